/**
 * The PostgreSQL store remembers the run of held queue slots a transaction walked (PostStore.heldQueueRun),
 * so that the next QUEUE post of the brand reads one number instead of walking the run again; and it
 * trusts the run only while no change could have freed one of its slots: the brand's plan_version, which
 * triggers count once per transaction, whichever instance made the change; one change later, with the
 * times that change freed (a freed slot ends the run there, a freed odd minute changes nothing); and
 * only once the transaction that walked it committed.
 */
import { expect, it } from 'vitest';
import type { BrandRecord, Store } from '../../src/ports.js';
import { nextFreeQueueSlot, scheduleOf } from '../../src/service/queue-slot.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { usePostgres } from './postgres-databases.js';
import { statementsOf } from './statements-of.js';
import { NOW, newPost, type Workspace } from './store-fixture.js';
import { twoInstances as twoStores } from './two-instances.js';

const postgres = usePostgres();

async function twoInstances() {
  const { a, b, ws } = await twoStores(postgres);
  return { a, b, ws, brand: (await a.findBrand(ws.brandId))! };
}

/** Takes the brand's next free queue slot with a QUEUE post, as create_post does; the post's id and slot. */
async function queuePost(tx: Store, ws: Workspace, brand: BrandRecord) {
  const slot = (await nextFreeQueueSlot(tx, brand, NOW))!;
  const id = await tx.posts.insert(newPost(ws, { publishMode: 'QUEUE', status: 'queued', dueAtMs: slot }));
  return { id, slot };
}

const remembered = (store: PostgresStore, brand: BrandRecord) =>
  store.transaction((tx) =>
    tx.posts.heldQueueRun(brand.id, scheduleOf(brand.timezone, brand.queueTimes).key),
  );

it('remembers the run a committed transaction walked, until another instance frees one of its slots', async () => {
  const { a, b, ws, brand } = await twoInstances();
  const posts: { id: number; slot: number }[] = [];
  for (let i = 0; i < 3; i++) posts.push(await a.transaction((tx) => queuePost(tx, ws, brand)));
  // The third walk found the first two slots held: the run ends at the third.
  expect(await remembered(a, brand)).toMatchObject({ untilMs: posts[2]!.slot });
  // The other instance frees the first slot: the run comes with the time freed, and the next post fills it.
  await b.transaction((tx) => tx.posts.remove(posts[0]!.id));
  expect(await remembered(a, brand)).toMatchObject({ untilMs: posts[2]!.slot, freedMs: [posts[0]!.slot] });
  expect((await a.transaction((tx) => queuePost(tx, ws, brand))).slot).toBe(posts[0]!.slot);
  // Turning a queued post into a draft frees its slot as well.
  await a.transaction((tx) => queuePost(tx, ws, brand));
  expect(await remembered(a, brand)).toBeDefined();
  await b.transaction((tx) => tx.posts.setStatus(posts[1]!.id, 'draft', NOW));
  expect((await a.transaction((tx) => queuePost(tx, ws, brand))).slot).toBe(posts[1]!.slot);
});

/**
 * `tx` with its post store's reads of planned times recorded: where each walk of the queue began.
 */
function watched(tx: Store, reads: number[]): Store {
  const posts = new Proxy(tx.posts, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (name !== 'plannedTimesFrom') return typeof value === 'function' ? value.bind(target) : value;
      return (brandId: number, fromMs: number, limit: number) => {
        reads.push(fromMs);
        return target.plannedTimesFrom(brandId, fromMs, limit);
      };
    },
  });
  return new Proxy(tx, {
    get: (target, name) => (name === 'posts' ? posts : Reflect.get(target, name, target)),
  });
}

/** Where the next QUEUE post's walk began, and the slot it took. */
async function nextWalk(store: PostgresStore, ws: Workspace, brand: BrandRecord) {
  const reads: number[] = [];
  const { slot } = await store.transaction((tx) => queuePost(watched(tx, reads), ws, brand));
  return { from: reads[0], slot };
}

it('trusts a run one change old when that change freed no slot: the next walk starts at the run’s end', async () => {
  const { a, b, ws, brand } = await twoInstances();
  const posts: { id: number; slot: number }[] = [];
  for (let i = 0; i < 20; i++) posts.push(await a.transaction((tx) => queuePost(tx, ws, brand)));
  // A scheduled post seven minutes after a slot inside the run: planned, but holding no slot.
  const scheduled = await a.transaction((tx) =>
    tx.posts.insert(newPost(ws, { status: 'scheduled', dueAtMs: posts[5]!.slot + 7 * 60_000 })),
  );
  const end = await nextWalk(a, ws, brand);
  expect(end.from).toBe(posts[19]!.slot);
  await b.transaction((tx) => tx.posts.remove(scheduled));
  const after = await nextWalk(a, ws, brand);
  expect(after.from).toBe(end.slot);
  expect(after.slot).toBeGreaterThan(end.slot);
});

it('ends the run at the earliest slot one transaction freed, counting that transaction once', async () => {
  const { a, b, ws, brand } = await twoInstances();
  const posts: { id: number; slot: number }[] = [];
  for (let i = 0; i < 20; i++) posts.push(await a.transaction((tx) => queuePost(tx, ws, brand)));
  await nextWalk(a, ws, brand);
  // One transaction of the other instance frees two slots (and a third post's time moves later).
  await b.transaction(async (tx) => {
    await tx.posts.remove(posts[12]!.id);
    await tx.posts.remove(posts[4]!.id);
  });
  const first = await nextWalk(a, ws, brand);
  expect(first).toEqual({ from: posts[4]!.slot, slot: posts[4]!.slot });
  const second = await nextWalk(a, ws, brand);
  expect(second.slot).toBe(posts[12]!.slot);
});

it('walks again from the start after two changes, or after one that freed more times than are kept', async () => {
  const { a, b, ws, brand } = await twoInstances();
  const posts: { id: number; slot: number }[] = [];
  for (let i = 0; i < 10; i++) posts.push(await a.transaction((tx) => queuePost(tx, ws, brand)));
  await nextWalk(a, ws, brand);
  await b.transaction((tx) => tx.posts.remove(posts[7]!.id));
  await b.transaction((tx) => tx.posts.remove(posts[3]!.id));
  expect(await remembered(a, brand)).toBeUndefined();
  expect(await nextWalk(a, ws, brand)).toEqual({ from: NOW + 1, slot: posts[3]!.slot });
  // 300 scheduled posts deleted in one transaction: too many times to keep, so none is trusted.
  const many = await b.transaction(async (tx) => {
    const ids: number[] = [];
    for (let i = 0; i < 300; i++) {
      ids.push(
        await tx.posts.insert(newPost(ws, { status: 'scheduled', dueAtMs: NOW + 400 * 86_400_000 + i })),
      );
    }
    return ids;
  });
  expect((await nextWalk(a, ws, brand)).slot).toBe(posts[7]!.slot);
  await b.transaction(async (tx) => {
    for (const id of many) await tx.posts.remove(id);
  });
  expect(await remembered(a, brand)).toBeUndefined();
  const last = await nextWalk(a, ws, brand);
  expect(last.from).toBe(NOW + 1);
  expect(last.slot).toBeGreaterThan(posts[9]!.slot);
});

it('does not remember what a rolled-back transaction walked', async () => {
  const { a, ws, brand } = await twoInstances();
  const first = await a.transaction((tx) => queuePost(tx, ws, brand));
  // Two posts in one transaction, then a failure: its second walk counted its first post as held.
  const undone: number[] = [];
  await expect(
    a.transaction(async (tx) => {
      undone.push((await queuePost(tx, ws, brand)).slot);
      undone.push((await queuePost(tx, ws, brand)).slot);
      throw new Error('rolled back');
    }),
  ).rejects.toThrow('rolled back');
  expect(undone[0]).toBeGreaterThan(first.slot);
  // Both slots are free again: the next post takes the earlier one.
  expect((await a.transaction((tx) => queuePost(tx, ws, brand))).slot).toBe(undone[0]);
});

it('does not remember what a savepoint that was undone walked', async () => {
  const { a, ws, brand } = await twoInstances();
  await a.transaction((tx) => queuePost(tx, ws, brand));
  const undone: number[] = [];
  const after = await a.transaction(async (tx) => {
    await expect(
      tx.transaction(async (inner) => {
        undone.push((await queuePost(inner, ws, brand)).slot);
        undone.push((await queuePost(inner, ws, brand)).slot);
        throw new Error('undone');
      }),
    ).rejects.toThrow('undone');
    return queuePost(tx, ws, brand);
  });
  // The savepoint's posts are gone: the posts after it take their slots, in order.
  expect(after.slot).toBe(undone[0]);
  expect((await a.transaction((tx) => queuePost(tx, ws, brand))).slot).toBe(undone[1]);
});

it('reads the brand’s plan in BEGIN’s round trip, and reads it again once the transaction has written', async () => {
  const { a, b, ws, brand } = await twoInstances();
  const target = { brandId: brand.id };
  const posts: { id: number; slot: number }[] = [];
  for (let i = 0; i < 3; i++) posts.push(await a.transaction((tx) => queuePost(tx, ws, brand), target));
  // A QUEUE post on the brand's lock: its plan comes with BEGIN, not in a statement of its own.
  const sent = await statementsOf(() => a.transaction((tx) => queuePost(tx, ws, brand), target));
  const planReads = sent.filter((text) => text.includes('plan_version'));
  expect(planReads).toHaveLength(1);
  expect(planReads[0]).toMatch(/^BEGIN; /);
  // A transaction that deletes a queued post changed the plan itself: what BEGIN read is stale, and the
  // post after the deletion takes the slot it freed.
  const refill = await a.transaction(async (tx) => {
    await tx.posts.remove(posts[0]!.id);
    return queuePost(tx, ws, brand);
  }, target);
  expect(refill.slot).toBe(posts[0]!.slot);
  // Another instance frees a slot: the plan read with BEGIN carries the time freed, and it is taken.
  await b.transaction((tx) => tx.posts.remove(posts[1]!.id));
  expect((await a.transaction((tx) => queuePost(tx, ws, brand), target)).slot).toBe(posts[1]!.slot);
  // Without the brand's lock (no target), the plan is read on its own, as before.
  const untargeted = await statementsOf(() => a.transaction((tx) => queuePost(tx, ws, brand)));
  expect(
    untargeted.filter((text) => text.includes('plan_version') && !text.startsWith('BEGIN')),
  ).toHaveLength(1);
});

it('reads a queue walk’s first planned times with BEGIN, from the end of the run it remembers, and uses them for that walk only', async () => {
  const { a, b, ws, brand } = await twoInstances();
  const walking = { brandId: brand.id, walksQueue: true };
  const ours: { id: number; slot: number }[] = [];
  for (let i = 0; i < 3; i++) ours.push(await a.transaction((tx) => queuePost(tx, ws, brand), walking));
  // The other instance takes the next two slots. Inserts free nothing: A's run is still trusted, and
  // what A reads with BEGIN, from the run's end, holds B's posts.
  const theirs: { id: number; slot: number }[] = [];
  for (let i = 0; i < 2; i++) theirs.push(await b.transaction((tx) => queuePost(tx, ws, brand), walking));
  expect(theirs[0]!.slot).toBeGreaterThan(ours[2]!.slot);
  const free = await b.transaction((tx) => nextFreeQueueSlot(tx, brand, NOW));
  expect(free).toBeGreaterThan(theirs[1]!.slot);
  const plannedReads = (texts: string[]) =>
    texts.filter((text) => text.includes('SELECT DISTINCT due_at_ms'));
  let slot: number | undefined;
  const sent = await statementsOf(async () => {
    ({ slot } = await a.transaction((tx) => queuePost(tx, ws, brand), walking));
  });
  expect(slot).toBe(free);
  expect(plannedReads(sent)).toHaveLength(1);
  expect(plannedReads(sent)[0]).toMatch(/^BEGIN; /);
  // Two changes later A's run is not trusted: the walk starts from now, not where BEGIN read from, so
  // that read is left unused and the slot freed first is taken.
  await b.transaction((tx) => tx.posts.remove(ours[1]!.id));
  await b.transaction((tx) => tx.posts.remove(theirs[0]!.id));
  const again = await statementsOf(async () => {
    ({ slot } = await a.transaction((tx) => queuePost(tx, ws, brand), walking));
  });
  expect(slot).toBe(ours[1]!.slot);
  expect(plannedReads(again)).toHaveLength(2);
  // What BEGIN read is stale once the transaction has written: a post it stored at the next free slot
  // (an insert frees nothing, so the run is still trusted) holds that slot, and the walk reads past it.
  const next = await b.transaction((tx) => nextFreeQueueSlot(tx, brand, NOW));
  const after = await a.transaction(async (tx) => {
    await tx.posts.insert(newPost(ws, { status: 'scheduled', dueAtMs: next! }));
    return queuePost(tx, ws, brand);
  }, walking);
  expect(after.slot).toBeGreaterThan(next!);
  // Without walksQueue, BEGIN reads no planned times.
  const plain = await statementsOf(() =>
    a.transaction((tx) => queuePost(tx, ws, brand), { brandId: brand.id }),
  );
  expect(plannedReads(plain).filter((text) => text.startsWith('BEGIN'))).toEqual([]);
});
