/**
 * The publishing engine on the PostgreSQL store, as several server instances would run it: three
 * schedulers, each on a store with its own pool, run their passes at the same moments over one
 * database. Every due post must be started once, every delivery and auto-comment sent once (the
 * sandbox outbox counts each send), and every post settled, whatever the interleaving.
 */
import { expect, it } from 'vitest';
import type { Clock, PublishingEvent } from '../../src/ports.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { usePostgres } from './postgres-databases.js';
import { statementsOf } from './statements-of.js';
import { MINUTE, NOW, newPost, seedWorkspace } from './store-fixture.js';
import { holdBrand } from './two-instances.js';

const postgres = usePostgres();

const POSTS = 40;
const INSTANCES = 3;

it('starts, sends and settles every post once with three schedulers racing over one database', async () => {
  const url = await postgres.database();
  const stores = [];
  for (let i = 0; i < INSTANCES; i++) stores.push(await postgres.open(url, { poolSize: 4 }));
  const ws = await seedWorkspace(stores[0]!);
  for (let i = 0; i < POSTS; i++) {
    await ws.store.posts.insert(
      newPost(ws, {
        payload: {
          publishMode: 'SCHEDULE',
          caption: `Roast ${i}`,
          comment: { comment: 'More soon', delay: 60 },
        },
        dueAtMs: NOW - (i % 5) * MINUTE,
      }),
    );
  }

  let now = NOW;
  const clock: Clock = { now: () => now };
  const settled: PublishingEvent[] = [];
  const logged: string[] = [];
  const schedulers = stores.map(
    (store) =>
      new Scheduler({
        store,
        clock,
        publisher: new SandboxPublisher(store.sandbox, clock),
        concurrency: 4,
        batchSize: 7,
        events: (event) => {
          if (/^post \d+: published$/.test(event.message)) settled.push(event);
        },
        log: (message) => logged.push(message),
      }),
  );
  // A pass leaves a brand another instance is starting to it: passes run (as the loop would run its
  // ticks) until one round has nothing left to start.
  for (let round = 1; ; round++) {
    const summaries = await Promise.all(schedulers.map((scheduler) => scheduler.runOnce()));
    if (summaries.every((summary) => summary.started === 0 && summary.leftToOthers === 0)) break;
    expect(round).toBeLessThan(20);
  }
  // The comments fall due a minute after their delivery.
  now += 2 * MINUTE;
  await Promise.all(schedulers.map((scheduler) => scheduler.runOnce()));
  await Promise.all(schedulers.map((scheduler) => scheduler.stop()));

  // The operator's log tells each post published, and nothing else (no error, no claim taken over).
  expect(logged.filter((line) => !/^post \d+: published$/.test(line))).toEqual([]);
  const posts = await ws.store.posts.list(ws.brandId, { order: 'calendar' }, { limit: 100, offset: 0 });
  expect(posts.map((post) => post.status)).toEqual(posts.map(() => 'published'));
  // Each post announced published once, by whichever instance settled it.
  expect(new Set(settled.map((event) => event.postId)).size).toBe(POSTS);
  expect(settled).toHaveLength(POSTS);
  const sends = await postgres.query<{ kind: string; sends: number; n: string }>(
    url,
    'SELECT kind, sends, COUNT(*) AS n FROM sandbox_outbox GROUP BY kind, sends ORDER BY kind',
  );
  expect(sends).toEqual([
    { kind: 'comment', sends: 1, n: String(POSTS * 3) },
    { kind: 'delivery', sends: 1, n: String(POSTS * 3) },
  ]);
});

it('leaves the due posts of a brand another instance is starting to it, and sends the others’ meanwhile', async () => {
  const url = await postgres.database();
  const [a, b] = [await postgres.open(url), await postgres.open(url)];
  const ws = await seedWorkspace(a);
  const heldPost = await a.posts.insert(newPost(ws, { dueAtMs: NOW - MINUTE }));
  const otherPost = await a.posts.insert(
    newPost(ws, { brandId: ws.otherBrandId, collectionId: ws.otherCollectionId, dueAtMs: NOW - MINUTE }),
  );
  const clock: Clock = { now: () => NOW };
  const scheduler = new Scheduler({ store: b, clock, publisher: new SandboxPublisher(b.sandbox, clock) });
  // Another instance holds the first brand (starting its posts, as far as this one can tell).
  const holder = await holdBrand(a, ws.brandId);
  try {
    const summary = await scheduler.runOnce();
    expect(summary).toMatchObject({ started: 1, leftToOthers: 1 });
    expect((await b.posts.get(heldPost))?.status).toBe('scheduled');
    expect((await b.posts.get(otherPost))?.status).toBe('published');
  } finally {
    await holder.release();
  }
  expect(await scheduler.runOnce()).toMatchObject({ started: 1, leftToOthers: 0 });
  expect((await b.posts.get(heldPost))?.status).toBe('published');
  await scheduler.stop();
});

it("reads the store's id once for a burst's sends, not once per send", async () => {
  // Every send's idempotency key starts with the store's id. Read once for all: a burst of 1,100 sends
  // each reading it kept 1,100 round trips in the way of the sends (docs/benchmarks.md, On time).
  const url = await postgres.database();
  const store = await postgres.open(url);
  const ws = await seedWorkspace(store);
  for (let i = 0; i < 10; i++) {
    await store.posts.insert(
      newPost(ws, { payload: { publishMode: 'SCHEDULE', caption: `Burst ${i}` }, dueAtMs: NOW }),
    );
  }
  const clock: Clock = { now: () => NOW };
  const scheduler = new Scheduler({ store, clock, publisher: new SandboxPublisher(store.sandbox, clock) });
  let summary: Awaited<ReturnType<Scheduler['runOnce']>> | undefined;
  const statements = await statementsOf(async () => {
    summary = await scheduler.runOnce();
  });
  await scheduler.stop();
  expect(summary).toMatchObject({ started: 10, sent: 30 });
  expect(statements.filter((text) => text.includes('store_meta'))).toHaveLength(1);
});
