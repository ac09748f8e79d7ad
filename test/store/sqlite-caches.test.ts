/**
 * The SQLite store keeps what it read from the workspace tables, and where a brand's run of taken queue
 * slots ends. Each test here changes the data the way a cache could miss (this store's own write,
 * another connection's commit, a rolled-back transaction, a post leaving the queue) and fails if a
 * stale answer comes back.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/ports.js';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { openTestRuntime, TEST_NOW, type TestRuntime } from '../support/local.js';

const NORTHWIND = 1;
const EVERYWHERE = 1;

let rt: TestRuntime;
const others: SqliteStore[] = [];
afterEach(async () => {
  for (const store of others.splice(0)) await store.close();
  await rt.close();
});

/** A second connection to the same database file, as another process (an import) would have. */
function otherConnection(): SqliteStore {
  const store = SqliteStore.open(join(rt.dataDir, DATABASE_FILE));
  others.push(store);
  return store;
}

async function brandUpsert(store: Store, brandId: number, timezone: string) {
  const brand = (await store.findBrandOfUser(rt.service.user.id, brandId))!;
  return { title: brand.title, description: brand.description, timezone, queueTimes: brand.queueTimes };
}

describe('workspace answers', () => {
  it("see this store's own upserts", async () => {
    rt = await openTestRuntime();
    const { store } = rt.runtime;
    const userId = rt.service.user.id;
    expect((await store.findBrandOfUser(userId, NORTHWIND))!.timezone).toBe('America/New_York');
    const count = await store.countBrandsOfUser(userId);
    await store.upsertBrand(await brandUpsert(store, NORTHWIND, 'Europe/Paris'), TEST_NOW);
    expect((await store.findBrandOfUser(userId, NORTHWIND))!.timezone).toBe('Europe/Paris');
    expect((await store.listBrandsOfUser(userId, { limit: 10, offset: 0 }))[0]!.timezone).toBe(
      'Europe/Paris',
    );

    const newBrand = await store.upsertBrand(
      { title: 'Fresh brand', description: null, timezone: 'UTC', queueTimes: ['10:00'] },
      TEST_NOW,
    );
    const user = (await store.getUser(userId))!;
    const withoutKey = (await store.usersWithoutKey()).some((u) => u.id === userId);
    const brands = await store.listBrandsOfUser(userId, { limit: 100, offset: 0 });
    // Upserted by its natural key (no API key: its name), with another timezone and one brand more.
    const sameUser = await store.upsertUser(
      {
        name: user.name,
        timezone: 'Pacific/Auckland',
        apiKeyHash: withoutKey ? null : 'unused',
        brandIds: [...brands.map((b) => b.id), newBrand],
      },
      TEST_NOW,
    );
    expect(sameUser).toBe(userId);
    expect((await store.getUser(userId))!.timezone).toBe('Pacific/Auckland');
    expect(await store.countBrandsOfUser(userId)).toBe(count + 1);
    expect((await store.findBrandOfUser(userId, newBrand))?.title).toBe('Fresh brand');
  });

  it("see another connection's commits", async () => {
    rt = await openTestRuntime();
    const { store } = rt.runtime;
    const userId = rt.service.user.id;
    const collection = (await store.findCollection(NORTHWIND, EVERYWHERE))!;
    expect((await store.findBrandOfUser(userId, NORTHWIND))!.timezone).toBe('America/New_York');
    expect((await rt.service.listBrands()).data[0]!.timezone).toBe('America/New_York');

    const other = otherConnection();
    await other.upsertBrand(await brandUpsert(other, NORTHWIND, 'Asia/Tokyo'), TEST_NOW);
    const kept = collection.channels.slice(0, 2).map((channel) => channel.id);
    await other.upsertCollection(
      NORTHWIND,
      { title: collection.title, description: 'Two left', channelIds: kept },
      TEST_NOW,
    );

    expect((await store.findBrandOfUser(userId, NORTHWIND))!.timezone).toBe('Asia/Tokyo');
    expect((await rt.service.listBrands()).data[0]!.timezone).toBe('Asia/Tokyo');
    const changed = (await store.findCollection(NORTHWIND, EVERYWHERE))!;
    expect(changed.description).toBe('Two left');
    expect(changed.channels.map((channel) => channel.id)).toEqual(kept);
  });

  it('forget what a rolled-back transaction read or wrote', async () => {
    rt = await openTestRuntime();
    const { store } = rt.runtime;
    const userId = rt.service.user.id;
    await expect(
      store.transaction(async (tx) => {
        await tx.upsertBrand(await brandUpsert(tx, NORTHWIND, 'Europe/Paris'), TEST_NOW);
        // Read (and kept) inside the transaction: uncommitted.
        expect((await tx.findBrandOfUser(userId, NORTHWIND))!.timezone).toBe('Europe/Paris');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect((await store.findBrandOfUser(userId, NORTHWIND))!.timezone).toBe('America/New_York');
  });

  it('cannot be changed by a caller', async () => {
    rt = await openTestRuntime();
    const { store } = rt.runtime;
    const userId = rt.service.user.id;
    const brand = (await store.findBrandOfUser(userId, NORTHWIND))!;
    const collection = (await store.findCollection(NORTHWIND, EVERYWHERE))!;
    expect(() => {
      brand.timezone = 'UTC';
    }).toThrow(TypeError);
    expect(() => brand.queueTimes.push('23:00')).toThrow(TypeError);
    expect(() => collection.channels.pop()).toThrow(TypeError);
    expect(() => {
      collection.channels[0]!.name = 'changed';
    }).toThrow(TypeError);
    expect((await store.findBrandOfUser(userId, NORTHWIND))!.timezone).toBe('America/New_York');
    expect((await store.findCollection(NORTHWIND, EVERYWHERE))!.channels).toHaveLength(12);
  });
});

describe('the run of taken queue slots', () => {
  const queuePost = async (caption: string) => {
    const created = await rt.service.createPost({
      brandId: NORTHWIND,
      collectionId: EVERYWHERE,
      publishMode: 'QUEUE',
      caption,
    });
    return (await rt.service.getPost({ brandId: NORTHWIND, postId: created.id! })) as {
      id: number;
      dueAt: string;
    };
  };

  it('gives back a slot freed by deleting, cancelling or rescheduling a queued post', async () => {
    rt = await openTestRuntime();
    const posts: Array<{ id: number; dueAt: string }> = [];
    for (let i = 0; i < 6; i++) posts.push(await queuePost(`Queued ${i}`));
    await rt.service.deletePost({ brandId: NORTHWIND, postId: posts[1]!.id });
    expect((await queuePost('Refill 1')).dueAt).toBe(posts[1]!.dueAt);
    await rt.service.updatePost({
      brandId: NORTHWIND,
      postId: posts[3]!.id,
      publishMode: 'SCHEDULE',
      scheduledAt: '2027-01-05 10:00:00',
    });
    expect((await queuePost('Refill 3')).dueAt).toBe(posts[3]!.dueAt);
    await rt.service.updatePost({ brandId: NORTHWIND, postId: posts[4]!.id, publishMode: 'DRAFT' });
    expect((await queuePost('Refill 4')).dueAt).toBe(posts[4]!.dueAt);
    expect((await queuePost('After the run')).dueAt > posts[5]!.dueAt).toBe(true);
  });

  it("gives back a slot another connection freed, and one a rolled-back transaction's post held", async () => {
    rt = await openTestRuntime();
    const posts: Array<{ id: number; dueAt: string }> = [];
    for (let i = 0; i < 4; i++) posts.push(await queuePost(`Queued ${i}`));
    await otherConnection().posts.remove(posts[2]!.id);
    expect((await queuePost('Refill 2')).dueAt).toBe(posts[2]!.dueAt);

    const { store } = rt.runtime;
    const next = await rt.service.getQueue({ brandId: NORTHWIND, count: 1 });
    await expect(
      store.transaction(async (tx) => {
        // The next free slot is taken inside the transaction, and the run remembered past it.
        const taken = await tx.posts.insert({
          ...(await tx.posts.get(posts[0]!.id))!,
          dueAtMs: Date.parse(next.nextSlots[0]!.at),
          idempotencyKey: null,
          contentHash: 'rolled-back',
        });
        expect(taken).toBeGreaterThan(0);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect((await queuePost('Into the freed slot')).dueAt).toBe(next.nextSlots[0]!.at);
  });

  it('is narrowed when a planned post in it stops holding its time', async () => {
    rt = await openTestRuntime();
    const { posts } = rt.runtime.store;
    const schedule = 'America/New_York 09:00';
    await posts.rememberHeldQueueRun(NORTHWIND, { schedule, afterMs: 0, untilMs: 10_000 });
    expect(await posts.heldQueueRun(NORTHWIND, schedule)).toEqual({ schedule, afterMs: 0, untilMs: 10_000 });
    expect(await posts.heldQueueRun(NORTHWIND, 'America/New_York 10:00')).toBeUndefined();
    const id = await posts.insert({
      brandId: NORTHWIND,
      collectionId: EVERYWHERE,
      userId: rt.service.user.id,
      publishMode: 'QUEUE',
      status: 'queued',
      payload: { publishMode: 'QUEUE', caption: 'x' } as never,
      dueAtMs: 4_000,
      createdAtMs: 0,
      idempotencyKey: null,
      contentHash: 'x',
    });
    // A new post only holds more.
    expect(await posts.heldQueueRun(NORTHWIND, schedule)).toEqual({ schedule, afterMs: 0, untilMs: 10_000 });
    await posts.setStatus(id, 'publishing', 5_000);
    expect(await posts.heldQueueRun(NORTHWIND, schedule)).toEqual({
      schedule,
      afterMs: 4_000,
      untilMs: 10_000,
    });
    // Moved to another time: the time it held before is not known, so the run is forgotten.
    const post = (await posts.get(id))!;
    await posts.update(id, { ...post, status: 'scheduled', dueAtMs: 20_000 }, 6_000);
    expect(await posts.heldQueueRun(NORTHWIND, schedule)).toBeUndefined();
  });
});
