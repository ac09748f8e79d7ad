/**
 * Transactions of the PostgreSQL store beyond the port's contract (transactions.contract.ts): they run
 * on a connection of their own, unseen until committed; store transactions without a target run one at
 * a time across instances, as SQLite's do, and those with one (the port's TransactionTarget) one at a
 * time per brand or per post, so the service's read-then-write transactions (the next free queue slot,
 * an idempotency key, settling a post) stay correct when instances race; a failed statement fails the
 * whole transaction with its own error; a store bound to a transaction is only usable inside it.
 */
import { expect, it } from 'vitest';
import type { Store, TransactionTarget } from '../../src/ports.js';
import { settlePost } from '../../src/service/publishing.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { usePostgres } from './postgres-databases.js';
import { HOUR, NOW, newPost, postWithDeliveries, type Workspace } from './store-fixture.js';
import { holdBrand, twoInstances as twoStores } from './two-instances.js';

const postgres = usePostgres();

const twoInstances = () => twoStores(postgres);

it('keeps its writes to itself until it commits', async () => {
  const { a, b, ws } = await twoInstances();
  let postId = 0;
  await a.transaction(async (tx) => {
    postId = await tx.posts.insert(newPost(ws));
    expect(await tx.posts.get(postId)).toBeDefined();
    expect(await a.posts.get(postId)).toBeUndefined();
    expect(await b.posts.get(postId)).toBeUndefined();
  });
  expect(await b.posts.get(postId)).toBeDefined();
});

it('runs one store transaction at a time, across instances', async () => {
  const { a, b } = await twoInstances();
  const timeline: string[] = [];
  const work = (name: string) => async (tx: Store) => {
    timeline.push(`${name} begins`);
    await tx.countUsers();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await tx.countUsers();
    timeline.push(`${name} ends`);
  };
  await Promise.all([
    a.transaction(work('first')),
    b.transaction(work('second')),
    a.transaction(work('third')),
  ]);
  for (let i = 0; i < timeline.length; i += 2) {
    expect(timeline[i + 1]).toBe(timeline[i]!.replace('begins', 'ends'));
  }
});

/** Runs two transactions at once, each holding on for a while; whether they overlapped. */
async function overlap(
  first: (work: (tx: Store) => Promise<void>) => Promise<void>,
  second: (work: (tx: Store) => Promise<void>) => Promise<void>,
): Promise<boolean> {
  const timeline: string[] = [];
  const work = (name: string) => async (tx: Store) => {
    timeline.push(`${name} begins`);
    await tx.countUsers();
    await new Promise((resolve) => setTimeout(resolve, 200));
    timeline.push(`${name} ends`);
  };
  await Promise.all([first(work('first')), second(work('second'))]);
  return timeline[1]!.endsWith('begins');
}

it('runs transactions on different brands, on different posts of a brand, or on one post, side by side', async () => {
  const { a, b, ws } = await twoInstances();
  const on = (store: PostgresStore, target: TransactionTarget) => (work: (tx: Store) => Promise<void>) =>
    store.transaction(work, target);
  expect(await overlap(on(a, { brandId: ws.brandId }), on(b, { brandId: ws.otherBrandId }))).toBe(true);
  expect(
    await overlap(on(a, { brandId: ws.brandId, postId: 1 }), on(b, { brandId: ws.brandId, postId: 2 })),
  ).toBe(true);
  // The sends to a post's channels are recorded at once; settling it waits (see the test below).
  expect(
    await overlap(on(a, { brandId: ws.brandId, postId: 1 }), on(b, { brandId: ws.brandId, postId: 1 })),
  ).toBe(true);
});

it('runs transactions on one brand, on a brand and its post, or without a target one at a time', async () => {
  const { a, b, ws } = await twoInstances();
  const on = (store: PostgresStore, target?: TransactionTarget) => (work: (tx: Store) => Promise<void>) =>
    store.transaction(work, target);
  const brand = { brandId: ws.brandId };
  const post = { brandId: ws.brandId, postId: 1 };
  expect(await overlap(on(a, brand), on(b, brand))).toBe(false);
  expect(await overlap(on(a, brand), on(b, post))).toBe(false);
  expect(await overlap(on(a, post), on(b, brand))).toBe(false);
  expect(await overlap(on(a), on(b, { brandId: ws.otherBrandId }))).toBe(false);
  expect(await overlap(on(a, { brandId: ws.otherBrandId }), on(b))).toBe(false);
});

it('tries a brand another transaction holds without waiting: the work does not run, and it says so', async () => {
  const { a, b, ws } = await twoInstances();
  const holder = await holdBrand(a, ws.brandId);
  let ran = 0;
  const started = performance.now();
  expect(await b.tryTransaction(async () => void ran++, { brandId: ws.brandId })).toBe(false);
  expect(performance.now() - started).toBeLessThan(1_000);
  expect(ran).toBe(0);
  // Another brand is free; and once the holder commits, so is this one.
  expect(await b.tryTransaction(async () => void ran++, { brandId: ws.otherBrandId })).toBe(true);
  await holder.release();
  expect(
    await b.tryTransaction(async (tx) => void (await tx.posts.insert(newPost(ws))), { brandId: ws.brandId }),
  ).toBe(true);
  expect(ran).toBe(1);
  expect(await a.posts.count(ws.brandId, { order: 'newest' })).toBe(1);
});

for (const target of ['none', 'brand'] as const) {
  const targetOf = (ws: Workspace) => (target === 'brand' ? { brandId: ws.brandId } : undefined);

  it(`gives racing QUEUE posts of one brand different slots, as the service takes them (target: ${target})`, async () => {
    const { a, b, ws } = await twoInstances();
    const slots = Array.from({ length: 30 }, (_, i) => NOW + (i + 1) * HOUR);
    // The service's shape: read the planned times, take the first free slot, insert, in one transaction.
    const queuePost = (store: PostgresStore) =>
      store.transaction(async (tx) => {
        const taken = new Set(await tx.posts.plannedTimesFrom(ws.brandId, NOW, 100));
        const slot = slots.find((s) => !taken.has(s))!;
        await tx.posts.insert(newPost(ws, { publishMode: 'QUEUE', status: 'queued', dueAtMs: slot }));
        return slot;
      }, targetOf(ws));
    const taken = await Promise.all(Array.from({ length: 20 }, (_, i) => queuePost(i % 2 === 0 ? a : b)));
    expect(new Set(taken).size).toBe(20);
    expect(await a.posts.plannedTimesFrom(ws.brandId, NOW, 100)).toEqual(slots.slice(0, 20));
  });

  it(`creates one post for racing requests with one idempotency key; the others find it (target: ${target})`, async () => {
    const { a, b, ws } = await twoInstances();
    const create = (store: PostgresStore) =>
      store.transaction(async (tx) => {
        const earlier = await tx.posts.findByIdempotencyKey(ws.brandId, 'once');
        return earlier?.id ?? (await tx.posts.insert(newPost(ws, { idempotencyKey: 'once' })));
      }, targetOf(ws));
    const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => create(i % 2 === 0 ? a : b)));
    expect(new Set(ids).size).toBe(1);
    expect(await a.posts.count(ws.brandId, { order: 'newest' })).toBe(1);
  });
}

it('settles a post once when two instances record its last deliveries at the same moment, each on the post', async () => {
  const { a, b, ws } = await twoInstances();
  const posts = await Promise.all(Array.from({ length: 10 }, () => postWithDeliveries(ws)));
  const sent = { externalId: null, url: null };
  const claim = { owner: 'sender', leaseUntilMs: NOW + HOUR };
  await a.jobs.claim(100, claim, NOW);
  // The scheduler's shape (publishing-pass.ts): mark the delivery sent, then settle the post if none
  // is left open; the pause lets the other instance's transaction run meanwhile, were it not waiting.
  const markAndSettle = (store: PostgresStore, postId: number, deliveryId: number) =>
    store.transaction(
      async (tx) => {
        await tx.deliveries.markSent(deliveryId, sent, NOW);
        await new Promise((resolve) => setTimeout(resolve, 20));
        return settlePost(tx, postId, NOW);
      },
      { brandId: ws.brandId, postId },
    );
  for (const { ids } of posts) await a.deliveries.markSent(ids[0], sent, NOW);
  const settled = await Promise.all(
    posts.map(async ({ postId, ids }) =>
      (await Promise.all([markAndSettle(a, postId, ids[1]), markAndSettle(b, postId, ids[2])])).filter(
        (status) => status !== undefined,
      ),
    ),
  );
  expect(settled).toEqual(posts.map(() => ['published']));
  for (const { postId } of posts) expect((await a.posts.get(postId))?.status).toBe('published');
});

it('surfaces a unique violation as the driver’s error (23505, naming the constraint), as SQLite’s adapter does', async () => {
  const { a, b, ws } = await twoInstances();
  await a.posts.insert(newPost(ws, { idempotencyKey: 'taken' }));
  const error = await b.posts.insert(newPost(ws, { idempotencyKey: 'taken' })).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: '23505', constraint: 'posts_idempotency' });
  expect(error).toBeInstanceOf(Error);
  expect(await b.posts.count(ws.brandId, { order: 'newest' })).toBe(1);
});

it('fails the whole transaction with the first error once a statement failed, even if the work caught it', async () => {
  const { a, ws } = await twoInstances();
  const media = {
    id: 'med_a',
    brandId: ws.brandId,
    type: 'image/png',
    size: 1,
    sha256: 'a'.repeat(64),
    path: '/a',
    createdAtMs: NOW,
    durationMs: null,
  };
  await a.insertMedia(media);
  let first: unknown;
  const outcome = a.transaction(async (tx) => {
    await tx.posts.insert(newPost(ws));
    first = await tx.insertMedia({ ...media, id: 'med_b' }).catch((e: unknown) => e);
    // PostgreSQL has aborted the transaction: what follows fails with that first error.
    await expect(tx.countUsers()).rejects.toBe(first);
    return 'caught';
  });
  await expect(outcome).rejects.toMatchObject({ code: '23505' });
  await expect(outcome).rejects.toBe(first);
  expect(await a.posts.count(ws.brandId, { order: 'newest' })).toBe(0);
  expect(await a.countUsers()).toBe(1);
});

it('lets a savepoint catch a failed statement: the outer transaction goes on and commits', async () => {
  const { a, ws } = await twoInstances();
  const media = {
    id: 'med_a',
    brandId: ws.brandId,
    type: 'image/png',
    size: 1,
    sha256: 'a'.repeat(64),
    path: '/a',
    createdAtMs: NOW,
    durationMs: null,
  };
  await a.insertMedia(media);
  await a.transaction(async (tx) => {
    await tx.posts.insert(newPost(ws));
    await expect(
      tx.transaction((inner) => inner.insertMedia({ ...media, id: 'med_b' })),
    ).rejects.toMatchObject({
      code: '23505',
    });
    await tx.posts.insert(newPost(ws));
  });
  expect(await a.posts.count(ws.brandId, { order: 'newest' })).toBe(2);
});

it('refuses a store bound to a transaction once it has ended, and closing through it', async () => {
  const { a } = await twoInstances();
  let kept: Store | undefined;
  await a.transaction(async (tx) => {
    kept = tx;
    await expect(tx.close()).rejects.toThrow('Close the store');
  });
  await expect(kept!.countUsers()).rejects.toThrow('This transaction has ended');
  await expect(kept!.transaction(async () => 1)).rejects.toThrow('This transaction has ended');
});

it('closes once: a second close does nothing, and the pool is gone', async () => {
  const { a } = await twoInstances();
  await a.close();
  await a.close();
  await expect(a.countUsers()).rejects.toThrow();
});
