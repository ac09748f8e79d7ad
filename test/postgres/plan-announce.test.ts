/**
 * The wake-up for a newly planned post is part of the transaction that plans it (NOTIFY is
 * transactional): it reaches the other instances when the post is committed, also when the planning
 * instance does nothing after its commit (killed as its 201 goes out), and never for a transaction
 * that rolls back or a draft. Before, it was sent after the commit, fire and forget: an instance killed
 * in between left the others to find the post at their next poll, about 30 s later.
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import { type LocalRuntime, openLocalRuntime } from '../../src/local-runtime.js';
import { startPublishingEngine } from '../../src/publish/engine.js';
import { resolveLocalUser } from '../../src/service/acting-user.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { PLAN_CHANNEL } from '../../src/store/postgres/signals.js';
import { SecretBox } from '../../src/store/secret-box.js';
import { makeTempDir } from '../support/local.js';
import { usePostgres } from './postgres-databases.js';

const postgres = usePostgres();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(5);
  }
  return performance.now() - started;
}

/** Two instances on one new database with the demo workspace, as two `serve` processes would be. */
async function twoInstances(): Promise<{
  url: string;
  a: LocalRuntime;
  b: LocalRuntime;
  close(): Promise<void>;
}> {
  const url = await postgres.database();
  const open = (demo: boolean) =>
    openLocalRuntime({ dataDir: makeTempDir('spm-announce-'), database: { url, poolSize: 4 }, demo });
  const a = await open(true);
  const b = await open(false);
  return {
    url,
    a,
    b,
    async close() {
      await b.close();
      await a.close();
    },
  };
}

/** A listener of the test's own on the plan channel: the payloads, as they come. */
async function listenToPlans(url: string): Promise<{ payloads: string[]; end(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const payloads: string[] = [];
  client.on('notification', (message) => {
    if (message.channel === PLAN_CHANNEL) payloads.push(message.payload ?? '');
  });
  await client.query(`LISTEN ${PLAN_CHANNEL}`);
  return { payloads, end: () => client.end() };
}

/**
 * B's service as a process killed right after its commit would leave it: nothing runs after commit. With
 * the ids of Northwind Coffee and its collection `title` (a database of this file may have had others).
 */
async function serviceWithoutAfterCommit(
  b: LocalRuntime,
  title: string,
): Promise<{ service: LocalPublishingService; brandId: number; collectionId: number }> {
  const user = await resolveLocalUser(b.store, undefined);
  const service = new LocalPublishingService({ ...b, allowLocalPaths: false }, user);
  const brand = (await service.listBrands({ per_page: 100 })).data.find(
    (x) => x.title === 'Northwind Coffee',
  )!;
  const collections = await service.listCollections({ brandId: brand.id, per_page: 100 });
  const collection = collections.data.find((x) => x.title === title)!;
  return { service, brandId: brand.id, collectionId: collection.id };
}

it('another instance publishes a post at once when its planner does nothing after the commit', async () => {
  const { a, b, close } = await twoInstances();
  const engine = await startPublishingEngine({
    store: a.store,
    clock: a.clock,
    publisher: { kind: 'sandbox' },
    secrets: new SecretBox({ dataDir: makeTempDir('spm-announce-') }, () => undefined),
    version: 'test',
    log: () => undefined,
    planSignal: a.planSignal,
  });
  try {
    // A's engine finds nothing, then sleeps its longest sleep (30 s): only a signal wakes it sooner.
    await sleep(500);
    const { service, brandId, collectionId } = await serviceWithoutAfterCommit(b, 'Conversation');
    const { id } = await service.createPost({
      brandId,
      collectionId,
      publishMode: 'IMMEDIATE',
      caption: 'Planned by an instance that dies as it answers',
    });
    const ms = await waitFor(async () => (await a.store.posts.get(id!))?.status !== 'publishing', 5_000);
    process.stderr.write(
      `plan announced in the transaction: published ${Math.round(ms)} ms after the commit\n`,
    );
  } finally {
    await engine.stop();
    await close();
  }
});

it('announces with the commit only: once per planned post, never for a draft or a rollback', async () => {
  const { url, b, close } = await twoInstances();
  const plans = await listenToPlans(url);
  try {
    const { service, brandId, collectionId } = await serviceWithoutAfterCommit(b, 'Everywhere');
    await service.createPost({ brandId, collectionId, publishMode: 'DRAFT', caption: 'Draft' });
    await expect(
      b.store.transaction(async (tx) => {
        await tx.announcePlanChange();
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await sleep(300);
    expect(plans.payloads).toEqual([]);

    const { id } = await service.createPost({
      brandId,
      collectionId,
      publishMode: 'QUEUE',
      caption: 'Q',
    });
    await waitFor(() => plans.payloads.length === 1, 5_000);
    await service.updatePost({ brandId, postId: id!, caption: 'Q, changed' });
    await waitFor(() => plans.payloads.length === 2, 5_000);
    await sleep(200);
    expect(plans.payloads).toHaveLength(2);
    // The instance's own id, so that its own listener ignores it.
    expect(new Set(plans.payloads).size).toBe(1);
  } finally {
    await plans.end();
    await close();
  }
});
