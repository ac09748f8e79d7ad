/**
 * The PostStore port's semantics, for any adapter: what a post keeps, the lookups that recognise the
 * same post twice, the filters, orders and pages of a list, status changes, and the planned times the
 * queue and the scheduler read. Each test opens a fresh store.
 */
import { describe, expect, it } from 'vitest';
import type { NewPost, PostFilter } from '../../src/ports.js';
import { HOUR, MINUTE, NOW, newPost, type OpenStore, seedWorkspace } from './store-fixture.js';

export function postsContract(open: OpenStore): void {
  describe('PostStore', () => {
    it('keeps a post as given (its payload exactly, key order included), readable by brand and id', async () => {
      const ws = await seedWorkspace(await open());
      const { posts } = ws.store;
      const post = newPost(ws, {
        payload: {
          publishMode: 'SCHEDULE',
          caption: 'Zürich ☕ “quotes”',
          scheduledAt: '2026-11-21 08:00:00',
          comment: { comment: 'First!', delay: 60 },
          platforms: { telegram: { caption: 'tg' } },
        },
        idempotencyKey: 'key-1',
      });
      const id = await posts.insert(post);
      const stored = await posts.find(ws.brandId, id);
      expect(stored).toEqual({ ...post, id, updatedAtMs: NOW, publishedAtMs: null });
      expect(JSON.stringify(stored?.payload)).toBe(JSON.stringify(post.payload));
      expect(await posts.get(id)).toEqual(stored);
      expect(await posts.find(ws.otherBrandId, id)).toBeUndefined();
      expect(await posts.get(id + 1000)).toBeUndefined();
    });

    it('finds a post by idempotency key within its brand; a key names one post per brand', async () => {
      const ws = await seedWorkspace(await open());
      const { posts } = ws.store;
      const id = await posts.insert(newPost(ws, { idempotencyKey: 'same' }));
      expect((await posts.findByIdempotencyKey(ws.brandId, 'same'))?.id).toBe(id);
      expect(await posts.findByIdempotencyKey(ws.otherBrandId, 'same')).toBeUndefined();
      const other = await posts.insert(
        newPost(ws, { brandId: ws.otherBrandId, collectionId: ws.otherCollectionId, idempotencyKey: 'same' }),
      );
      expect((await posts.findByIdempotencyKey(ws.otherBrandId, 'same'))?.id).toBe(other);
      await expect(posts.insert(newPost(ws, { idempotencyKey: 'same' }))).rejects.toThrow();
      // Posts without a key are not one another's duplicates.
      await posts.insert(newPost(ws));
      await posts.insert(newPost(ws));
      expect(await posts.count(ws.brandId, { order: 'newest' })).toBe(3);
    });

    // A request may carry any string as its key. PostgreSQL text cannot hold U+0000 (the adapter keeps
    // U+FFFD in its place); the SQLite driver of Node 20 ends the text there. Either way the key is kept
    // and names its post.
    it('keeps an idempotency key holding U+0000 and finds its post by it', async () => {
      const ws = await seedWorkspace(await open());
      const { posts } = ws.store;
      const id = await posts.insert(newPost(ws, { idempotencyKey: 'launch\u00001' }));
      expect((await posts.findByIdempotencyKey(ws.brandId, 'launch\u00001'))?.id).toBe(id);
      await expect(posts.insert(newPost(ws, { idempotencyKey: 'launch\u00001' }))).rejects.toThrow();
    });

    it('finds the latest post with the same content created since a time, not a cancelled one', async () => {
      const ws = await seedWorkspace(await open());
      const { posts } = ws.store;
      await posts.insert(newPost(ws, { contentHash: 'h', createdAtMs: NOW - 20 * MINUTE }));
      const early = await posts.insert(newPost(ws, { contentHash: 'h', createdAtMs: NOW - 5 * MINUTE }));
      const late = await posts.insert(newPost(ws, { contentHash: 'h', createdAtMs: NOW - 2 * MINUTE }));
      const sameMs = await posts.insert(newPost(ws, { contentHash: 'h', createdAtMs: NOW - 2 * MINUTE }));
      expect((await posts.findRecentSame(ws.brandId, 'h', NOW - 10 * MINUTE))?.id).toBe(sameMs);
      await posts.setStatus(sameMs, 'cancelled', NOW);
      await posts.setStatus(late, 'cancelled', NOW);
      expect((await posts.findRecentSame(ws.brandId, 'h', NOW - 10 * MINUTE))?.id).toBe(early);
      expect(await posts.findRecentSame(ws.brandId, 'h', NOW - MINUTE)).toBeUndefined();
      expect(await posts.findRecentSame(ws.otherBrandId, 'h', 0)).toBeUndefined();
    });

    it('inserts a post unless it repeats an earlier one: by idempotency key, else by recent content', async () => {
      const ws = await seedWorkspace(await open());
      const { posts } = ws.store;
      const since = NOW - 10 * MINUTE;
      const inserted: number[] = [];
      const insert = async (changes: Partial<NewPost>, sinceMs = since) => {
        const id = await posts.insertUnlessRepeated(newPost(ws, changes), sinceMs);
        if (id !== undefined && changes.brandId === undefined) inserted.push(id);
        return id;
      };
      // By key: any post of the brand with the key, whatever its content, age or status.
      const keyed = await insert({ idempotencyKey: 'k\u00001', contentHash: 'same' });
      expect(keyed).toBeTypeOf('number');
      await posts.setStatus(keyed!, 'cancelled', NOW);
      expect(
        await insert({ idempotencyKey: 'k\u00001', createdAtMs: NOW + HOUR }, NOW + HOUR),
      ).toBeUndefined();
      // The key in another brand is not a repeat.
      const elsewhere = { brandId: ws.otherBrandId, collectionId: ws.otherCollectionId };
      expect(await insert({ ...elsewhere, idempotencyKey: 'k\u00001' })).toBeTypeOf('number');
      // Without a key: a post of the same content since the time, not cancelled (the keyed one is).
      expect(await insert({ contentHash: 'same' })).toBeTypeOf('number');
      expect(await insert({ contentHash: 'same' })).toBeUndefined();
      expect(await insert({ ...elsewhere, contentHash: 'same' })).toBeTypeOf('number');
      expect(await insert({ contentHash: 'same' }, NOW + 1)).toBeTypeOf('number');
      // A post with a key of its own does not repeat one of the same content.
      expect(await insert({ contentHash: 'same', idempotencyKey: 'k2' })).toBeTypeOf('number');
      // What was inserted is kept as given, and nothing else.
      const stored = await posts.list(ws.brandId, { order: 'newest' }, { offset: 0, limit: 100 });
      expect(stored.map((post) => post.id).sort((x, y) => x - y)).toEqual(inserted);
      expect(await posts.find(ws.brandId, inserted[1]!)).toMatchObject({
        contentHash: 'same',
        status: 'scheduled',
      });
    });

    it('counts and lists with every filter; newest and calendar order put posts without a time last', async () => {
      const ws = await seedWorkspace(await open());
      const { posts } = ws.store;
      const at = (hours: number) => NOW + hours * HOUR;
      const a = await posts.insert(newPost(ws, { dueAtMs: at(2) }));
      const b = await posts.insert(newPost(ws, { dueAtMs: at(1) }));
      const c = await posts.insert(newPost(ws, { dueAtMs: at(2) }));
      const d = await posts.insert(newPost(ws, { status: 'draft', publishMode: 'DRAFT', dueAtMs: null }));
      const e = await posts.insert(newPost(ws, { status: 'draft', publishMode: 'DRAFT', dueAtMs: null }));
      const f = await posts.insert(newPost(ws, { status: 'queued', publishMode: 'QUEUE', dueAtMs: at(3) }));
      await posts.insert(newPost(ws, { brandId: ws.otherBrandId, collectionId: ws.otherCollectionId }));
      const ids = async (filter: PostFilter, limit = 100, offset = 0) =>
        (await posts.list(ws.brandId, filter, { limit, offset })).map((post) => post.id);

      expect(await ids({ order: 'newest' })).toEqual([f, c, a, b, e, d]);
      expect(await ids({ order: 'calendar' })).toEqual([b, a, c, f, d, e]);
      expect(await ids({ order: 'newest' }, 2, 1)).toEqual([c, a]);
      expect(await ids({ order: 'calendar' }, 10, 5)).toEqual([e]);
      expect(await ids({ order: 'calendar', status: 'draft' })).toEqual([d, e]);
      expect(await ids({ order: 'calendar', fromMs: at(2) })).toEqual([a, c, f]);
      expect(await ids({ order: 'calendar', toMs: at(2) })).toEqual([b]);
      expect(await ids({ order: 'calendar', fromMs: at(1), toMs: at(3), status: 'scheduled' })).toEqual([
        b,
        a,
        c,
      ]);
      expect(await ids({ order: 'calendar', collectionId: ws.otherCollectionId })).toEqual([]);
      expect(await posts.count(ws.brandId, { order: 'newest' })).toBe(6);
      expect(await posts.count(ws.brandId, { order: 'newest', status: 'scheduled', fromMs: at(2) })).toBe(2);
      expect(
        await posts.count(ws.brandId, { order: 'newest', collectionId: ws.collectionId, toMs: at(3) }),
      ).toBe(3);
    });

    it('updates a post, and changes its status keeping or setting its published time', async () => {
      const ws = await seedWorkspace(await open());
      const { posts } = ws.store;
      const id = await posts.insert(newPost(ws));
      const payload = { publishMode: 'QUEUE' as const, caption: 'Changed' };
      await posts.update(
        id,
        {
          collectionId: ws.collectionId,
          publishMode: 'QUEUE',
          status: 'queued',
          payload,
          dueAtMs: NOW + 5 * HOUR,
          contentHash: 'new',
        },
        NOW + MINUTE,
      );
      expect(await posts.get(id)).toMatchObject({
        publishMode: 'QUEUE',
        status: 'queued',
        payload,
        dueAtMs: NOW + 5 * HOUR,
        contentHash: 'new',
        createdAtMs: NOW,
        updatedAtMs: NOW + MINUTE,
      });
      await posts.setStatus(id, 'publishing', NOW + 2 * MINUTE);
      expect(await posts.get(id)).toMatchObject({
        status: 'publishing',
        updatedAtMs: NOW + 2 * MINUTE,
        publishedAtMs: null,
      });
      await posts.setStatus(id, 'published', NOW + 3 * MINUTE, NOW + 3 * MINUTE);
      await posts.setStatus(id, 'partially_published', NOW + 4 * MINUTE);
      expect(await posts.get(id)).toMatchObject({
        status: 'partially_published',
        publishedAtMs: NOW + 3 * MINUTE,
      });
    });

    it('finishes publishing once: false when the post was not publishing', async () => {
      const ws = await seedWorkspace(await open());
      const { posts } = ws.store;
      const id = await posts.insert(newPost(ws, { status: 'publishing' }));
      expect(await posts.finishPublishing(id, 'published', NOW + MINUTE, NOW + MINUTE)).toBe(true);
      expect(await posts.finishPublishing(id, 'failed', NOW + 2 * MINUTE, null)).toBe(false);
      expect(await posts.get(id)).toMatchObject({
        status: 'published',
        updatedAtMs: NOW + MINUTE,
        publishedAtMs: NOW + MINUTE,
      });
      const failed = await posts.insert(newPost(ws, { status: 'publishing' }));
      expect(await posts.finishPublishing(failed, 'failed', NOW, null)).toBe(true);
      expect((await posts.get(failed))?.publishedAtMs).toBeNull();
      expect(await posts.finishPublishing(failed + 100, 'failed', NOW, null)).toBe(false);
    });

    it('removes a post with its deliveries', async () => {
      const ws = await seedWorkspace(await open());
      const { posts, deliveries } = ws.store;
      const id = await posts.insert(newPost(ws, { status: 'publishing' }));
      await deliveries.insertMany(
        [
          {
            postId: id,
            channelId: ws.channelIds[0],
            channelName: 'Telegram',
            channelType: 'Telegram',
            status: 'pending',
            reason: null,
            notes: [],
            content: null,
          },
        ],
        NOW,
      );
      await posts.remove(id);
      expect(await posts.get(id)).toBeUndefined();
      expect(await deliveries.ofPost(id)).toEqual([]);
    });

    it('reads the planned times of a brand (queued and scheduled), each once, ascending, from a time on', async () => {
      const ws = await seedWorkspace(await open());
      const { posts } = ws.store;
      const at = (hours: number) => NOW + hours * HOUR;
      await posts.insert(newPost(ws, { dueAtMs: at(3) }));
      await posts.insert(newPost(ws, { status: 'queued', publishMode: 'QUEUE', dueAtMs: at(1) }));
      await posts.insert(newPost(ws, { status: 'queued', publishMode: 'QUEUE', dueAtMs: at(3) }));
      await posts.insert(newPost(ws, { status: 'queued', publishMode: 'QUEUE', dueAtMs: at(5) }));
      await posts.insert(newPost(ws, { status: 'draft', publishMode: 'DRAFT', dueAtMs: at(2) }));
      await posts.insert(newPost(ws, { status: 'cancelled', dueAtMs: at(4) }));
      await posts.insert(newPost(ws, { status: 'publishing', dueAtMs: at(6) }));
      await posts.insert(
        newPost(ws, { brandId: ws.otherBrandId, collectionId: ws.otherCollectionId, dueAtMs: at(2) }),
      );
      expect(await posts.plannedTimesFrom(ws.brandId, at(0), 10)).toEqual([at(1), at(3), at(5)]);
      expect(await posts.plannedTimesFrom(ws.brandId, at(1) + 1, 1)).toEqual([at(3)]);
      expect(await posts.plannedTimesFrom(ws.brandId, at(3), 10)).toEqual([at(3), at(5)]);
      expect(await posts.plannedTimesFrom(ws.brandId, at(6), 10)).toEqual([]);
    });

    it('lists queued (QUEUE mode) posts from a time on, and due posts of every brand or of one, soonest first', async () => {
      const ws = await seedWorkspace(await open());
      const { posts } = ws.store;
      const at = (minutes: number) => NOW + minutes * MINUTE;
      const q2 = await posts.insert(newPost(ws, { status: 'queued', publishMode: 'QUEUE', dueAtMs: at(2) }));
      const q1 = await posts.insert(newPost(ws, { status: 'queued', publishMode: 'QUEUE', dueAtMs: at(-1) }));
      const s1 = await posts.insert(newPost(ws, { dueAtMs: at(-3) }));
      const other = await posts.insert(
        newPost(ws, { brandId: ws.otherBrandId, collectionId: ws.otherCollectionId, dueAtMs: at(-2) }),
      );
      await posts.insert(newPost(ws, { status: 'publishing', dueAtMs: at(-5) }));
      await posts.insert(newPost(ws, { status: 'draft', publishMode: 'DRAFT', dueAtMs: at(-5) }));

      expect((await posts.queued(ws.brandId, at(-10), 10)).map((p) => p.id)).toEqual([q1, q2]);
      expect((await posts.queued(ws.brandId, at(0), 10)).map((p) => p.id)).toEqual([q2]);
      expect((await posts.queued(ws.brandId, at(-10), 1)).map((p) => p.id)).toEqual([q1]);
      expect((await posts.due(NOW, 10)).map((p) => p.id)).toEqual([s1, other, q1]);
      expect((await posts.due(NOW, 2)).map((p) => p.id)).toEqual([s1, other]);
      expect((await posts.due(NOW, 10, ws.brandId)).map((p) => p.id)).toEqual([s1, q1]);
      expect((await posts.due(NOW, 1, ws.brandId)).map((p) => p.id)).toEqual([s1]);
      expect((await posts.due(NOW, 10, ws.otherBrandId)).map((p) => p.id)).toEqual([other]);
      expect(await posts.nextDueAtMs()).toBe(at(-3));
      for (const id of [q1, q2, s1, other]) await posts.setStatus(id, 'cancelled', NOW);
      expect(await posts.nextDueAtMs()).toBeUndefined();
      expect(await posts.due(NOW, 10)).toEqual([]);
    });

    it('never remembers a queue run past a time a post gave up', async () => {
      const ws = await seedWorkspace(await open());
      const { posts } = ws.store;
      const id = await posts.insert(
        newPost(ws, { status: 'queued', publishMode: 'QUEUE', dueAtMs: NOW + 2 * HOUR }),
      );
      await posts.rememberHeldQueueRun(ws.brandId, { schedule: 's', afterMs: NOW, untilMs: NOW + 3 * HOUR });
      await posts.setStatus(id, 'cancelled', NOW);
      const run = await posts.heldQueueRun(ws.brandId, 's');
      if (run) expect(run.afterMs).toBeGreaterThanOrEqual(NOW + 2 * HOUR);
      expect(await posts.heldQueueRun(ws.brandId, 'another schedule')).toBeUndefined();
    });
  });
}
