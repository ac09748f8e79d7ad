/**
 * create_post holds a connection for its transaction while it waits for its pre-flight's reads, which
 * need connections of the same pool. They are issued before the transaction asks for its own, and the
 * pool hands connections out in order of asking, so a transaction never waits for a read queued behind
 * it: calls at once complete even with a pool of one connection.
 */
import { expect, it } from 'vitest';
import { openLocalRuntime } from '../../src/local-runtime.js';
import { resolveLocalUser } from '../../src/service/acting-user.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { usePostgres } from './postgres-databases.js';

const postgres = usePostgres();

it('creates posts at once on a pool of one connection', async () => {
  const url = await postgres.database({ empty: true });
  const runtime = await openLocalRuntime({
    dataDir: makeTempDir(),
    demo: true,
    database: { url, poolSize: 1 },
  });
  try {
    const service = new LocalPublishingService(runtime, await resolveLocalUser(runtime.store, undefined));
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        service.createPost({ brandId: 1, collectionId: 1, publishMode: 'QUEUE', caption: `At once ${i}` }),
      ),
    );
    const queue = await service.getQueue({ brandId: 1, count: 1 });
    expect(queue.queued.map((post) => post.id).sort()).toEqual(created.map((post) => post.id).sort());
    expect(new Set(queue.queued.map((post) => post.dueAt)).size).toBe(12);
  } finally {
    await runtime.close();
  }
});
