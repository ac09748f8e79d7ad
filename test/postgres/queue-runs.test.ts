/**
 * The PostgreSQL store remembers the run of held queue slots a transaction walked (PostStore.heldQueueRun),
 * so that the next QUEUE post of the brand reads one number instead of walking the run again; and it
 * trusts the run only while no change could have freed one of its slots: the brand's plan_version, which
 * triggers count, whichever instance made the change; and only once the transaction that walked it
 * committed.
 */
import { expect, it } from 'vitest';
import type { BrandRecord } from '../../src/ports.js';
import { nextFreeQueueSlot, scheduleOf } from '../../src/service/queue-slot.js';
import type { AsyncStore } from '../../src/store/postgres/async-port.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { usePostgres } from './postgres-databases.js';
import { NOW, newPost, seedWorkspace, type Workspace } from './store-fixture.js';

const postgres = usePostgres();

async function twoInstances(): Promise<{
  a: PostgresStore;
  b: PostgresStore;
  ws: Workspace;
  brand: BrandRecord;
}> {
  const url = await postgres.database();
  const a = await postgres.open(url);
  const b = await postgres.open(url);
  const ws = await seedWorkspace(a);
  const brand = (await a.findBrand(ws.brandId))!;
  return { a, b, ws, brand };
}

/** Takes the brand's next free queue slot with a QUEUE post, as create_post does; the post's id and slot. */
async function queuePost(tx: AsyncStore, ws: Workspace, brand: BrandRecord) {
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
  // The other instance frees the first slot: this instance no longer trusts the run, and fills it.
  await b.transaction((tx) => tx.posts.remove(posts[0]!.id));
  expect(await remembered(a, brand)).toBeUndefined();
  expect((await a.transaction((tx) => queuePost(tx, ws, brand))).slot).toBe(posts[0]!.slot);
  // Turning a queued post into a draft frees its slot as well.
  await a.transaction((tx) => queuePost(tx, ws, brand));
  expect(await remembered(a, brand)).toBeDefined();
  await b.transaction((tx) => tx.posts.setStatus(posts[1]!.id, 'draft', NOW));
  expect((await a.transaction((tx) => queuePost(tx, ws, brand))).slot).toBe(posts[1]!.slot);
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
