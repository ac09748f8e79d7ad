/**
 * Writes a PostgreSQL transaction defers to its COMMIT (sql.ts `atCommit`): a channel's "last published"
 * time, which every send to the channel changes. Deferred, the row is locked only for the commit, so
 * sends to one channel recorded at once by several instances do not queue behind each other's whole
 * transactions; and the write still belongs to its transaction: made with it, undone with it or with
 * the savepoint it was made in.
 */
import { expect, it } from 'vitest';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { usePostgres } from './postgres-databases.js';
import { NOW } from './store-fixture.js';
import { twoInstances as twoStores } from './two-instances.js';

const postgres = usePostgres();

const twoInstances = () => twoStores(postgres);

const lastPublished = async (store: PostgresStore, channelId: number) =>
  (await store.connections.activity(channelId)).lastPublishedAtMs;

it('writes the time with the commit, not before, and not at all when the transaction is rolled back', async () => {
  const { a, b, ws } = await twoInstances();
  const channelId = ws.channelIds[0]!;
  await a.transaction(async (tx) => {
    await tx.connections.recordPublished(channelId, NOW);
    expect(await lastPublished(b, channelId)).toBeNull();
  });
  expect(await lastPublished(b, channelId)).toBe(NOW);
  const failed = a.transaction(async (tx) => {
    await tx.connections.recordPublished(channelId, NOW + 1000);
    throw new Error('the work failed');
  });
  await expect(failed).rejects.toThrow('the work failed');
  expect(await lastPublished(b, channelId)).toBe(NOW);
  // Outside a transaction, at once; an earlier time never replaces a later one.
  await b.connections.recordPublished(channelId, NOW + 2000);
  await b.connections.recordPublished(channelId, NOW + 500);
  expect(await lastPublished(a, channelId)).toBe(NOW + 2000);
});

it('undoes the write with the savepoint it was made in, and keeps one of a savepoint that was released', async () => {
  const { a, ws } = await twoInstances();
  const [kept, undone, outer] = ws.channelIds as [number, number, number];
  await a.transaction(async (tx) => {
    await tx.transaction(async (inner) => inner.connections.recordPublished(kept, NOW));
    await tx
      .transaction(async (inner) => {
        await inner.connections.recordPublished(undone, NOW);
        throw new Error('the savepoint failed');
      })
      .catch(() => undefined);
    await tx.connections.recordPublished(outer, NOW + 1);
  });
  expect(await lastPublished(a, kept)).toBe(NOW);
  expect(await lastPublished(a, undone)).toBeNull();
  expect(await lastPublished(a, outer)).toBe(NOW + 1);
});

it('holds the channel’s row only for the commit: another instance records a send to it meanwhile', async () => {
  const { a, b, ws } = await twoInstances();
  const channelId = ws.channelIds[0]!;
  // Sends to one channel of two posts of the brand, as the scheduler records them.
  const onPost = (postId: number) => ({ brandId: ws.brandId, postId });
  const timeline: string[] = [];
  let recorded!: () => void;
  const recordedFirst = new Promise<void>((resolve) => {
    recorded = resolve;
  });
  const slow = a.transaction(async (tx) => {
    await tx.connections.recordPublished(channelId, NOW);
    recorded();
    await new Promise((resolve) => setTimeout(resolve, 300));
    timeline.push('slow commits');
  }, onPost(1));
  await recordedFirst;
  await b.transaction(async (tx) => tx.connections.recordPublished(channelId, NOW + 1), onPost(2));
  timeline.push('other committed');
  await slow;
  expect(timeline).toEqual(['other committed', 'slow commits']);
  expect(await lastPublished(a, channelId)).toBe(NOW + 1);
});
