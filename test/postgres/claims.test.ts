/**
 * Claims on PostgreSQL from several instances at once: stores on one database, each with its own pool
 * (as separate processes would have), claim jobs (sends, auto-comments, poll closings) side by side.
 * FOR UPDATE SKIP LOCKED must hand each row to one of them only, and must not make one wait for
 * another; a claim whose lease ended is taken over once, and its old owner can then change nothing.
 */
import { expect, it } from 'vitest';
import type { Claim, ClaimedJob } from '../../src/ports.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { usePostgres } from './postgres-databases.js';
import { MINUTE, NOW, postWithDeliveries, seedWorkspace } from './store-fixture.js';

const postgres = usePostgres();

/** Stores on one fresh database, the first with the workspace and `posts` posts of 3 pending deliveries. */
async function instances(count: number, posts: number): Promise<{ stores: PostgresStore[]; ids: number[] }> {
  const url = await postgres.database();
  const stores: PostgresStore[] = [];
  for (let i = 0; i < count; i++) stores.push(await postgres.open(url, { poolSize: 4 }));
  const ws = await seedWorkspace(stores[0]!);
  const ids: number[] = [];
  for (let i = 0; i < posts; i++) ids.push(...(await postWithDeliveries(ws)).ids);
  return { stores, ids };
}

const claim = (owner: string, leaseUntilMs = NOW + MINUTE): Claim => ({ owner, leaseUntilMs });
const done = { status: 'done' as const, reason: null };
const ascending = (ids: number[]) => [...ids].sort((x, y) => x - y);

/**
 * Four workers per store, each claiming with `take` until it gets nothing; every claim, with the store
 * (its index) that got it.
 */
async function drain(
  stores: PostgresStore[],
  take: (store: PostgresStore, index: number) => Promise<ClaimedJob[]>,
): Promise<Array<{ by: number; id: number }>> {
  const claimed: Array<{ by: number; id: number }> = [];
  const worker = async (store: PostgresStore, by: number) => {
    for (;;) {
      const batch = await take(store, by);
      if (batch.length === 0) return;
      for (const { job } of batch) claimed.push({ by, id: job.deliveryId! });
    }
  };
  await Promise.all(stores.flatMap((store, by) => Array.from({ length: 4 }, () => worker(store, by))));
  return claimed;
}

it('hands every pending delivery to exactly one of two instances claiming at once', async () => {
  const { stores, ids } = await instances(2, 60);
  const claimed = await drain(stores, (store, by) =>
    store.jobs.claim(by === 0 ? 1 : 3, claim(`owner-${by}`), NOW),
  );
  expect(ascending(claimed.map((c) => c.id))).toEqual(ids);
  // Both took part, and each delivery is its claimer's: its first attempt, settled by that owner only.
  expect(new Set(claimed.map((c) => c.by))).toEqual(new Set([0, 1]));
  for (const { by, id } of claimed) {
    const job = await stores[0]!.jobs.ofDelivery(id, 'send');
    expect(job?.attempts).toBe(1);
    expect(await stores[1 - by]!.jobs.finish(job!.id, `owner-${1 - by}`, done, NOW)).toBe(false);
    expect(await stores[by]!.jobs.finish(job!.id, `owner-${by}`, done, NOW)).toBe(true);
  }
});

it('skips the rows another instance is claiming instead of waiting for it', async () => {
  const { stores, ids } = await instances(2, 4);
  const [a, b] = stores as [PostgresStore, PostgresStore];
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let claimedByA: number[] = [];
  const holding = a.transaction(async (tx) => {
    claimedByA = (await tx.jobs.claim(5, claim('a'), NOW)).map((c) => c.delivery!.id);
    await held;
  });
  // A's claim is not committed, and its rows stay locked, until `release`: B gets the others at once.
  await expect.poll(() => claimedByA.length).toBe(5);
  const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 5000));
  const claiming = b.jobs.claim(100, claim('b'), NOW);
  const claimedByB = await Promise.race([
    claiming.then((claimed) => claimed.map((c) => c.delivery!.id)),
    waited,
  ]);
  release();
  await holding;
  await claiming;
  expect(claimedByA).toEqual(ids.slice(0, 5));
  expect(claimedByB).toEqual(ids.slice(5));
  expect(await b.jobs.claim(100, claim('b'), NOW)).toEqual([]);
});

it('hands every due auto-comment and poll closing to exactly one of three instances', async () => {
  const { stores, ids } = await instances(3, 30);
  const [first] = stores as [PostgresStore];
  for (const { job } of await first.jobs.claim(1000, claim('sender'), NOW)) {
    const dueAtMs = NOW + (job.deliveryId! % 7) * 1000;
    await first.jobs.finish(job.id, 'sender', done, NOW);
    const subject = { deliveryId: job.deliveryId, channelId: job.channelId };
    await first.jobs.add([
      { kind: 'comment', ...subject, dueAtMs },
      { kind: 'close_poll', ...subject, dueAtMs: dueAtMs + 10 * MINUTE },
    ]);
  }
  const comments = await drain(stores, (store, by) =>
    store.jobs.claim(2, claim(`owner-${by}`), NOW + MINUTE),
  );
  expect(ascending(comments.map((c) => c.id))).toEqual(ids);
  const polls = await drain(stores, (store, by) =>
    store.jobs.claim(2, claim(`owner-${by}`), NOW + 20 * MINUTE),
  );
  expect(ascending(polls.map((c) => c.id))).toEqual(ids);
  expect(new Set(polls.map((c) => c.by)).size).toBeGreaterThan(1);
});

it('takes over a claim whose lease ended once, however many instances try; its old owner then changes nothing', async () => {
  const { stores, ids } = await instances(3, 10);
  const [owner, ...others] = stores as [PostgresStore, PostgresStore, PostgresStore];
  const jobIds = (await owner.jobs.claim(100, claim('stalled', NOW + MINUTE), NOW)).map((c) => c.job.id);
  const later = NOW + 2 * MINUTE;
  const expired = await others[0]!.jobs.expired(later, 100);
  expect(ascending(expired.map((job) => job.deliveryId!))).toEqual(ids);

  // Every other instance tries to put each one back at the same moment: one of them succeeds.
  const released = await Promise.all(
    expired.flatMap((job) =>
      others.map((store) => store.jobs.takeOver(job.id, later, { status: 'waiting' })),
    ),
  );
  expect(released.filter(Boolean)).toHaveLength(ids.length);

  const retaken = await others[1]!.jobs.claim(100, claim('new owner', later + MINUTE), later);
  expect(retaken.map((c) => [c.delivery!.id, c.job.attempts])).toEqual(ids.map((id) => [id, 2]));
  await owner.jobs.renew(jobIds, claim('stalled', later + 10 * MINUTE));
  expect(await owner.jobs.nextWakeAtMs()).toBe(later + MINUTE + 1);
  for (const id of jobIds) expect(await owner.jobs.finish(id, 'stalled', done, later)).toBe(false);
});

it('settles a late owner’s outcome and a take-over racing for one job exactly once', async () => {
  const { stores, ids } = await instances(2, 20);
  const [owner, other] = stores as [PostgresStore, PostgresStore];
  const jobIds = (await owner.jobs.claim(100, claim('late', NOW + MINUTE), NOW)).map((c) => c.job.id);
  expect(jobIds).toHaveLength(ids.length);
  const later = NOW + 2 * MINUTE;
  const outcomes = await Promise.all(
    jobIds.map(async (id) => {
      const [marked, failed] = await Promise.all([
        owner.jobs.finish(id, 'late', done, later),
        other.jobs.takeOver(id, later, { status: 'failed', reason: 'In doubt' }),
      ]);
      return Number(marked) + Number(failed);
    }),
  );
  expect(outcomes).toEqual(jobIds.map(() => 1));
});
