/** createPost safety: idempotency keys, the same post twice within ten minutes, and dry runs. */
import { describe, expect, it } from 'vitest';
import { BRAND, COLLECTION, chars, expectErrors, expectValidation, postRequest } from './support.js';
import type { ContractContext } from './world.js';

const MINUTE = 60_000;
const NW = { brandId: BRAND.northwind };

export function safetyContract(ctx: ContractContext): void {
  const create = (changes: Record<string, unknown> = {}) => ctx.service.createPost(postRequest(changes));
  const total = async () => (await ctx.service.listPosts(NW)).pagination.total;
  const queueSlots = async () => (await ctx.service.getQueue({ ...NW, count: 2 })).nextSlots;
  const dueAt = async (postId: number) => (await ctx.service.getPost({ ...NW, postId })).dueAt;

  describe('idempotency key', () => {
    it('returns the first post for the same key, says it is a duplicate and stores one post', async () => {
      const first = await create({ idempotencyKey: 'launch-1', publishMode: 'QUEUE' });
      // The documented members, and the pre-flight warnings that may be added to them.
      expect(
        Object.keys(first)
          .filter((key) => key !== 'warnings')
          .sort(),
      ).toEqual(['id', 'message']);
      const again = await create({ idempotencyKey: 'launch-1', publishMode: 'QUEUE' });
      expect(again).toMatchObject({ id: first.id, duplicate: true });
      expect(again.message).toMatch(/duplicate/i);
      expect(await total()).toBe(1);
      // The duplicate took no second queue time.
      expect((await queueSlots())[0]!.scheduledAt).toBe('2026-11-21 12:00:00');
    });

    it('takes any text as a key, U+0000 included (which PostgreSQL text cannot hold)', async () => {
      const first = await create({ idempotencyKey: 'launch\u00003' });
      const again = await create({ idempotencyKey: 'launch\u00003' });
      expect(again).toMatchObject({ id: first.id, duplicate: true });
      expect(await total()).toBe(1);
    });

    it('publishes an IMMEDIATE post once for the same key', async () => {
      const first = await create({ idempotencyKey: 'now-1', publishMode: 'IMMEDIATE' });
      const again = await create({ idempotencyKey: 'now-1', publishMode: 'IMMEDIATE' });
      expect(again).toMatchObject({ id: first.id, duplicate: true });
      const post = await ctx.service.getPost({ ...NW, postId: first.id! });
      expect(post.deliveries).toHaveLength(12);
      expect(await total()).toBe(1);
    });

    it('refuses the same key with different content (422 on idempotencyKey) and stores nothing', async () => {
      const first = await create({ idempotencyKey: 'launch-2' });
      const errors = await expectValidation(create({ idempotencyKey: 'launch-2', caption: 'Other words' }));
      expect(Object.keys(errors)).toEqual(['idempotencyKey']);
      expect(errors.idempotencyKey).toEqual([expect.stringContaining(String(first.id))]);
      await expectValidation(create({ idempotencyKey: 'launch-2', collectionId: COLLECTION.visual }));
      expect(await total()).toBe(1);
    });

    it('gives different keys different posts, and one user’s key never returns another user’s post', async () => {
      const first = await create({ idempotencyKey: 'a', caption: 'Same words' });
      const [harbor] = (await ctx.other.listBrands()).data;
      const [harborAll] = (await ctx.other.listCollections({ brandId: harbor!.id })).data;
      const theirs = await ctx.other.createPost(
        postRequest({ brandId: harbor!.id, collectionId: harborAll!.id, idempotencyKey: 'a' }),
      );
      expect(theirs.duplicate).toBeUndefined();
      expect(theirs.id).not.toBe(first.id);
      const second = await create({ idempotencyKey: 'b', caption: 'Other words' });
      expect(second.duplicate).toBeUndefined();
      expect(second.id).not.toBe(first.id);
      expect(await total()).toBe(2);
    });

    it('validates the key', async () => {
      await expectErrors(create({ idempotencyKey: chars(256) }), {
        idempotencyKey: ['The idempotency key may not be greater than 255 characters.'],
      });
      await expectErrors(create({ idempotencyKey: 7 }), {
        idempotencyKey: ['The idempotency key must be a string.'],
      });
    });
  });

  describe('the same post twice', () => {
    it('returns the first post for an identical post within ten minutes', async () => {
      const first = await create({ publishMode: 'QUEUE', title: 'Beans' });
      // The same fields in another order are the same post.
      const again = await ctx.service.createPost({
        title: 'Beans',
        caption: 'Fresh beans are in.',
        publishMode: 'QUEUE',
        collectionId: COLLECTION.everywhere,
        brandId: BRAND.northwind,
      });
      expect(again).toMatchObject({ id: first.id, duplicate: true });
      expect(again.message).toMatch(/duplicate/i);
      expect(await total()).toBe(1);
      expect((await queueSlots())[0]!.scheduledAt).toBe('2026-11-21 12:00:00');
    });

    it('creates a new post when anything differs', async () => {
      const first = await create();
      const others = [
        await create({ caption: 'Fresh beans are in!' }),
        await create({ collectionId: COLLECTION.visual }),
        await create({ publishMode: 'QUEUE' }),
        await create({ title: 'Beans' }),
      ];
      for (const other of others) expect(other.duplicate).toBeUndefined();
      expect(new Set([first.id, ...others.map((o) => o.id)]).size).toBe(5);
      expect(await total()).toBe(5);
    });

    it('does not count a cancelled post: the new post takes its freed queue time', async () => {
      const first = await create({ publishMode: 'QUEUE' });
      await ctx.service.deletePost({ ...NW, postId: first.id! });
      const again = await create({ publishMode: 'QUEUE' });
      expect(again.duplicate).toBeUndefined();
      expect(again.id).not.toBe(first.id);
      expect(await dueAt(again.id!)).toBe('2026-11-21T14:00:00.000000Z');
    });

    if (ctx.options.clock) {
      it('counts within ten minutes and creates a new post after them', async () => {
        const first = await create({ publishMode: 'QUEUE' });
        ctx.clock().advance(9 * MINUTE + 59_000);
        expect(await create({ publishMode: 'QUEUE' })).toMatchObject({ id: first.id, duplicate: true });
        ctx.clock().advance(2_000); // 10 minutes and 1 second after the first
        const later = await create({ publishMode: 'QUEUE' });
        expect(later.duplicate).toBeUndefined();
        expect(later.id).not.toBe(first.id);
        expect(await total()).toBe(2);
        expect(await dueAt(later.id!)).toBe('2026-11-21T17:00:00.000000Z');
      });

      it('keeps an idempotency key after ten minutes', async () => {
        const first = await create({ idempotencyKey: 'kept' });
        ctx.clock().advance(60 * MINUTE);
        expect(await create({ idempotencyKey: 'kept' })).toMatchObject({ id: first.id, duplicate: true });
        expect(await total()).toBe(1);
      });
    }
  });

  describe('dry run', () => {
    it('resolves the queue time without storing the post or taking the time', async () => {
      const dry = await create({ publishMode: 'QUEUE', dryRun: true });
      expect(dry).toMatchObject({ id: null, dryRun: true });
      expect(dry.message).toContain('2026-11-21T14:00:00.000000Z');
      expect(dry.message).toContain('09:00');
      expect(await total()).toBe(0);
      expect((await queueSlots())[0]!.scheduledAt).toBe('2026-11-21 09:00:00');
      // Not a duplicate of itself: the real post is created, and takes the time the dry run showed.
      const real = await create({ publishMode: 'QUEUE' });
      expect(real.duplicate).toBeUndefined();
      expect(await dueAt(real.id!)).toBe('2026-11-21T14:00:00.000000Z');
      const next = await create({ publishMode: 'QUEUE', caption: 'Second', dryRun: true });
      expect(next.message).toContain('2026-11-21T17:00:00.000000Z');
      expect(await total()).toBe(1);
    });

    it("resolves a scheduled time in the brand's timezone", async () => {
      const dry = await create({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-24 09:00:00', dryRun: true });
      expect(dry).toMatchObject({ id: null, dryRun: true });
      expect(dry.message).toContain('2026-11-24T14:00:00.000000Z');
      expect(await total()).toBe(0);
    });

    it('publishes nothing for IMMEDIATE and reserves no idempotency key', async () => {
      const dry = await create({ publishMode: 'IMMEDIATE', idempotencyKey: 'dry', dryRun: true });
      expect(dry).toMatchObject({ id: null, dryRun: true });
      expect(await total()).toBe(0);
      const real = await create({ idempotencyKey: 'dry', caption: 'Other words' });
      expect(real.duplicate).toBeUndefined();
      expect(Number.isInteger(real.id)).toBe(true);
    });

    it('still reports every validation failure', async () => {
      await expectErrors(create({ caption: chars(3001), dryRun: true }), {
        caption: ['The caption may not be greater than 3000 characters.'],
      });
      await expectErrors(
        create({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-20 09:00:00', link: 'nope', dryRun: true }),
        { scheduledAt: ['The scheduled at must be a future date.'], link: ['The link format is invalid.'] },
      );
      await expectErrors(create({ dryRun: 'yes' }), { dryRun: ['The dry run field must be true or false.'] });
      const empty = await expectValidation(
        create({ collectionId: COLLECTION.newsletter, publishMode: 'QUEUE', dryRun: true }),
      );
      expect(Object.keys(empty)).toEqual(['collectionId']);
      expect(await total()).toBe(0);
    });

    it('reports a duplicate and a reused key exactly as the real call would, storing nothing', async () => {
      const first = await create({ idempotencyKey: 'seen', caption: 'Once' });
      // The same key and content: the first post, marked duplicate.
      const sameKey = await create({ idempotencyKey: 'seen', caption: 'Once', dryRun: true });
      expect(sameKey).toMatchObject({ id: first.id, duplicate: true, dryRun: true });
      expect(sameKey.message).toMatch(
        /^Dry run, nothing stored: Duplicate: post \d+ was already created with the same idempotency key/,
      );
      // The same key with other content: the real call's 422 on idempotencyKey.
      await expectErrors(create({ idempotencyKey: 'seen', caption: 'Other words', dryRun: true }), {
        idempotencyKey: [
          `The idempotency key was already used for post ${first.id}, with different content. Use a new key for a new post.`,
        ],
      });
      // The same content again within ten minutes, without a key: a duplicate too.
      const sameContent = await create({ caption: 'Once', dryRun: true });
      expect(sameContent).toMatchObject({ id: first.id, duplicate: true, dryRun: true });
      expect(sameContent.message).toContain('the same content less than 10 minutes ago');
      expect(await total()).toBe(1);
    });

    it('with dryRun false creates the post', async () => {
      const created = await create({ dryRun: false });
      expect(Number.isInteger(created.id)).toBe(true);
      expect(created.dryRun).toBeUndefined();
      expect(await total()).toBe(1);
    });
  });
}
