/** The post lifecycle: listPosts, getPost, updatePost, deletePost and publishPost (getQueue: queue.contract.ts). */
import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/domain/post-schemas.js';
import {
  BRAND,
  CHANNEL,
  COLLECTION,
  chars,
  expectBrandNotFound,
  expectErrors,
  expectNotFound,
  expectValidation,
  postRequest,
  postRequestWithout,
  VALID_POLL,
} from './support.js';
import type { ContractContext } from './world.js';

const NOW_UTC = '2026-11-21T12:00:00.000000Z';
const NW = { brandId: BRAND.northwind };
const ids = (posts: Post[]) => posts.map((post) => post.id);
const byChannel = (post: Post) => [...post.deliveries].sort((a, b) => a.channelId - b.channelId);
const ALL_CHANNELS = Array.from({ length: 12 }, (_, i) => i + 1);
const POLL_CHANNELS = [
  CHANNEL.threads,
  CHANNEL.linkedin,
  CHANNEL.x,
  CHANNEL.mastodon,
  CHANNEL.bluesky,
  CHANNEL.telegram,
];

export function lifecycleContract(ctx: ContractContext): void {
  // Distinct captions: the same post twice within ten minutes would be a duplicate.
  let serial = 0;
  const create = async (changes: Record<string, unknown> = {}) => {
    const created = await ctx.service.createPost(postRequest({ caption: `Post ${++serial}`, ...changes }));
    return created.id!;
  };
  const schedule = (scheduledAt: string, changes: Record<string, unknown> = {}) =>
    create({ publishMode: 'SCHEDULE', scheduledAt, ...changes });
  const queue = () => create({ publishMode: 'QUEUE' });
  const get = (postId: number) => ctx.service.getPost({ ...NW, postId });
  const list = (query: Record<string, unknown> = {}) => ctx.service.listPosts({ ...NW, ...query });
  const update = (postId: number, changes: Record<string, unknown>) =>
    ctx.service.updatePost({ ...NW, postId, ...changes });
  const remove = (postId: number) => ctx.service.deletePost({ ...NW, postId });
  const publish = (postId: number) => ctx.service.publishPost({ ...NW, postId });
  const when = async (postId: number) => (await get(postId)).scheduledAt;
  const harbor = async () => {
    const [brand] = (await ctx.other.listBrands()).data;
    const [collection] = (await ctx.other.listCollections({ brandId: brand!.id })).data;
    return { brandId: brand!.id, collectionId: collection!.id };
  };
  const expectPostIdError = async (call: Promise<unknown>, status: string) => {
    const errors = await expectValidation(call);
    expect(Object.keys(errors)).toEqual(['postId']);
    expect(errors.postId).toEqual([expect.stringContaining(status)]);
  };

  describe('listPosts', () => {
    it('lists newest planned first by default and soonest first in calendar order, timeless drafts last', async () => {
      const draft1 = await create();
      const later = await schedule('2026-11-25 10:00:00');
      const queued = await queue(); // 2026-11-21 09:00
      const sooner = await schedule('2026-11-23 08:00:00');
      const planned = await create({ scheduledAt: '2026-11-22 10:00:00' });
      const draft2 = await create();
      const newest = (await list()).data;
      expect(ids(newest).slice(0, 4)).toEqual([later, sooner, planned, queued]);
      expect(ids(newest).slice(4).sort()).toEqual([draft1, draft2].sort());
      expect((await list({ order: 'newest' })).data).toEqual(newest);
      const calendar = (await list({ order: 'calendar' })).data;
      expect(ids(calendar).slice(0, 4)).toEqual([queued, planned, sooner, later]);
      expect(ids(calendar).slice(4).sort()).toEqual([draft1, draft2].sort());
      await expectErrors(list({ order: 'oldest' }), { order: ['The selected order is invalid.'] });
    });

    it('shows every field of a post', async () => {
      const id = await schedule('2026-11-24 09:00:00', { title: 'Beans', link: 'https://example.com/b' });
      const post = (await list()).data[0]!;
      expect(post).toEqual({
        id,
        brandId: BRAND.northwind,
        collectionId: COLLECTION.everywhere,
        status: 'scheduled',
        publishMode: 'SCHEDULE',
        timezone: 'America/New_York',
        scheduledAt: '2026-11-24 09:00:00',
        dueAt: '2026-11-24T14:00:00.000000Z',
        content: { caption: `Post ${serial}`, title: 'Beans', link: 'https://example.com/b' },
        deliveries: [],
        createdAt: NOW_UTC,
        updatedAt: NOW_UTC,
        publishedAt: null,
      });
      expect(await get(id)).toEqual(post);
    });

    it('filters by status and by collection', async () => {
      const draft = await create();
      const queued = await queue();
      const scheduled = await schedule('2026-11-24 09:00:00', { collectionId: COLLECTION.visual });
      const now = await create({ publishMode: 'IMMEDIATE', collectionId: COLLECTION.visual });
      expect(ids((await list({ status: 'draft' })).data)).toEqual([draft]);
      expect(ids((await list({ status: 'queued' })).data)).toEqual([queued]);
      expect(ids((await list({ status: 'scheduled' })).data)).toEqual([scheduled]);
      expect(ids((await list({ status: 'publishing' })).data)).toEqual([now]);
      expect((await list({ status: 'cancelled' })).pagination.total).toBe(0);
      const visual = await list({ collectionId: COLLECTION.visual, order: 'calendar' });
      expect(ids(visual.data)).toEqual([now, scheduled]);
      expect(visual.pagination.total).toBe(2);
      expect((await list({ collectionId: COLLECTION.visual, status: 'draft' })).data).toEqual([]);
      await expectErrors(list({ status: 'sent' }), { status: ['The selected status is invalid.'] });
    });

    it("filters by local time in the brand's timezone: from included, to excluded", async () => {
      const early = await schedule('2026-11-23 05:00:00'); // 10:00 UTC: before 09:00 New York
      const atFrom = await schedule('2026-11-23 09:00:00');
      const between = await schedule('2026-11-23 23:59:59');
      const atTo = await schedule('2026-11-24 09:00:00');
      await create(); // no time: outside every time range
      const range = { from: '2026-11-23 09:00:00', to: '2026-11-24 09:00:00', order: 'calendar' };
      const page = await list(range);
      expect(ids(page.data)).toEqual([atFrom, between]);
      expect(page.pagination.total).toBe(2);
      expect(ids((await list({ from: '2026-11-24 09:00:00' })).data)).toEqual([atTo]);
      expect(ids((await list({ to: '2026-11-23 09:00:00' })).data)).toEqual([early]);
      await expectErrors(list({ from: '2026-11-23T09:00:00Z' }), {
        from: ['The from does not match the format Y-m-d H:i:s.'],
      });
    });

    it('pages the posts', async () => {
      const a = await schedule('2026-11-22 10:00:00');
      const b = await schedule('2026-11-23 10:00:00');
      const c = await schedule('2026-11-24 10:00:00');
      const first = await list({ per_page: 2 });
      expect(ids(first.data)).toEqual([c, b]);
      expect(first.pagination).toMatchObject({ currentPage: 1, perPage: 2, total: 3, lastPage: 2 });
      const second = await list({ per_page: 2, page: 2 });
      expect(ids(second.data)).toEqual([a]);
      expect(second.pagination).toMatchObject({ currentPage: 2, perPage: 2, total: 3, lastPage: 2 });
      await expectErrors(list({ per_page: 101 }), {
        per_page: ['The per page may not be greater than 100.'],
      });
    });

    it('pages posts planned for the same time, and drafts, each once in either order', async () => {
      const posts: number[] = [];
      for (let i = 0; i < 12; i++) posts.push(await (i < 7 ? schedule('2026-11-22 10:00:00') : create()));
      for (const order of ['newest', 'calendar']) {
        const pages = await Promise.all([1, 2, 3, 4].map((page) => list({ order, per_page: 3, page })));
        const paged = pages.flatMap((page) => ids(page.data));
        expect(paged).toEqual(ids((await list({ order, per_page: 100 })).data));
        expect([...paged].sort((a, b) => a - b)).toEqual(posts);
      }
    });

    it('answers 404 for a missing brand or one of another user, and shows only the brand’s posts', async () => {
      const mine = await create();
      const theirs = await ctx.other.createPost(postRequest({ ...(await harbor()), caption: 'Croissants' }));
      await ctx.service.createPost(postRequest({ brandId: BRAND.kite, collectionId: COLLECTION.kiteAll }));
      await expectBrandNotFound(list({ brandId: 999 }));
      await expectBrandNotFound(list({ brandId: (await harbor()).brandId }));
      await expectBrandNotFound(ctx.other.listPosts(NW));
      expect(ids((await list()).data)).toEqual([mine]);
      expect(ids((await ctx.other.listPosts({ brandId: (await harbor()).brandId })).data)).toEqual([
        theirs.id,
      ]);
      await expectNotFound(get(theirs.id!), 'post', 'Post not found.');
    });
  });

  describe('getPost', () => {
    it('answers 404 Post not found for a missing post and for a post of another brand', async () => {
      await expectNotFound(get(999), 'post', 'Post not found.');
      const kite = await create({ brandId: BRAND.kite, collectionId: COLLECTION.kiteAll });
      await expectNotFound(get(kite), 'post', 'Post not found.');
      expect((await ctx.service.getPost({ brandId: BRAND.kite, postId: kite })).id).toBe(kite);
      await expectBrandNotFound(ctx.service.getPost({ brandId: 999, postId: kite }));
    });

    it('shows one delivery per channel of an IMMEDIATE post; the INACTIVE Pinterest fails', async () => {
      const id = await create({ publishMode: 'IMMEDIATE', title: 'Beans' });
      const post = await get(id);
      expect(post).toMatchObject({ status: 'publishing', publishMode: 'IMMEDIATE', dueAt: NOW_UTC });
      const deliveries = byChannel(post);
      expect(deliveries.map((d) => d.channelId)).toEqual(ALL_CHANNELS);
      expect(deliveries.filter((d) => d.status === 'pending').map((d) => d.channelId)).toEqual(
        ALL_CHANNELS.filter((c) => c !== CHANNEL.pinterest),
      );
      const pinterest = deliveries[CHANNEL.pinterest - 1]!;
      expect(pinterest).toMatchObject({ status: 'failed', channelType: 'Pinterest', content: null });
      expect(pinterest.reason).toContain('INACTIVE');
      expect(deliveries[CHANNEL.instagram - 1]).toEqual({
        id: expect.any(Number),
        channelId: CHANNEL.instagram,
        channelName: 'Northwind Coffee on Instagram',
        channelType: 'Instagram',
        status: 'pending',
        reason: null,
        notes: [],
        content: { platform: 'Instagram', format: 'feed', media: [], caption: `Post ${serial}` },
        externalId: null,
        url: null,
        attempts: 0,
        retryAt: null,
        sentAt: null,
        comment: { status: 'none', dueAt: null, sentAt: null, reason: null },
      });
      expect(deliveries[CHANNEL.youtube - 1]!.content).toMatchObject({ title: 'Beans' });
    });

    it('skips the platforms without polls for a poll-only post', async () => {
      const request = { ...postRequestWithout('caption'), publishMode: 'IMMEDIATE', poll: VALID_POLL };
      const { id } = await ctx.service.createPost(request);
      const deliveries = byChannel(await get(id!));
      const status = (s: string) => deliveries.filter((d) => d.status === s).map((d) => d.channelId);
      expect(status('pending')).toEqual(POLL_CHANNELS);
      expect(status('skipped')).toEqual([1, 2, 5, 6, 7]);
      expect(status('failed')).toEqual([CHANNEL.pinterest]);
      for (const d of deliveries.filter((d) => d.status === 'skipped')) expect(d.reason).toMatch(/poll/);
      expect(deliveries[CHANNEL.linkedin - 1]!.content).toMatchObject({ poll: VALID_POLL });
    });
  });

  describe('updatePost', () => {
    it('changes the caption of a queued post and keeps its queue time', async () => {
      const first = await queue(); // 09:00
      const second = await queue(); // 12:00
      await remove(first); // 09:00 is free again
      const updated = await update(second, { caption: 'New words' });
      expect(updated).toMatchObject({ id: second, status: 'queued', scheduledAt: '2026-11-21 12:00:00' });
      expect(updated.content.caption).toBe('New words');
      const { warnings: _warnings, ...stored } = updated;
      expect(await get(second)).toEqual(stored);
      expect(await when(await queue())).toBe('2026-11-21 09:00:00');
    });

    it('moves a scheduled post to a new time', async () => {
      const id = await schedule('2026-11-24 09:00:00');
      const updated = await update(id, { scheduledAt: '2026-11-25 10:30:00' });
      expect(updated).toMatchObject({ status: 'scheduled', scheduledAt: '2026-11-25 10:30:00' });
      expect(updated.dueAt).toBe('2026-11-25T15:30:00.000000Z');
    });

    it('puts a scheduled post in the queue at the next free time, and frees a queue time when leaving', async () => {
      await queue(); // 09:00
      const id = await schedule('2026-11-24 09:00:00');
      const queued = await update(id, { publishMode: 'QUEUE' });
      expect(queued).toMatchObject({
        status: 'queued',
        publishMode: 'QUEUE',
        scheduledAt: '2026-11-21 12:00:00',
      });
      expect(queued.dueAt).toBe('2026-11-21T17:00:00.000000Z');
      const back = await update(id, { publishMode: 'SCHEDULE', scheduledAt: '2026-11-26 10:00:00' });
      expect(back).toMatchObject({ status: 'scheduled', scheduledAt: '2026-11-26 10:00:00' });
      expect(await when(await queue())).toBe('2026-11-21 12:00:00');
    });

    it('removes a field given null and keeps the fields not given', async () => {
      const id = await create({
        title: 'Beans',
        link: 'https://example.com/b',
        scheduledAt: '2026-11-24 09:00:00',
      });
      const updated = await update(id, { title: null, scheduledAt: null });
      expect(updated.content).toEqual({ caption: `Post ${serial}`, link: 'https://example.com/b' });
      expect(updated).toMatchObject({ status: 'draft', scheduledAt: null, dueAt: null });
      await expectErrors(update(id, { caption: null }), {
        caption: ['The caption field is required when poll is not present.'],
      });
    });

    it.each([
      [
        'a caption of 3001',
        { caption: chars(3001) },
        { caption: ['The caption may not be greater than 3000 characters.'] },
      ],
      [
        'a past time',
        { scheduledAt: '2026-11-20 09:00:00' },
        { scheduledAt: ['The scheduled at must be a future date.'] },
      ],
      [
        'a bad format',
        { scheduledAt: '2026-11-24 9:00' },
        { scheduledAt: ['The scheduled at does not match the format Y-m-d H:i:s.'] },
      ],
      ['an unknown field', { captoin: 'typo' }, { captoin: ['The captoin field is not allowed.'] }],
      [
        'two bad fields',
        { publishMode: 'SOON', link: 'nope' },
        { publishMode: ['The selected publish mode is invalid.'], link: ['The link format is invalid.'] },
      ],
    ])(
      "answers create_post's messages for %s, once each, and changes nothing",
      async (_, changes, expected) => {
        const id = await schedule('2026-11-24 09:00:00');
        const before = await get(id);
        await expectErrors(update(id, changes), expected);
        expect(await get(id)).toEqual(before);
      },
    );

    it('refuses to change a cancelled, publishing or failed post (422 on postId)', async () => {
      const cancelled = await queue();
      await remove(cancelled);
      await expectPostIdError(update(cancelled, { caption: 'Again' }), 'cancelled');
      const publishing = await create({ publishMode: 'IMMEDIATE' });
      await expectPostIdError(update(publishing, { caption: 'Again' }), 'publishing');
      // A poll to Visual has no platform that takes it: every delivery is skipped or fails at once.
      const failed = (
        await ctx.service.createPost({
          ...postRequestWithout('caption'),
          collectionId: COLLECTION.visual,
          publishMode: 'IMMEDIATE',
          poll: VALID_POLL,
        })
      ).id!;
      expect((await get(failed)).status).toBe('failed');
      await expectPostIdError(update(failed, { caption: 'Again' }), 'failed');
    });

    it('answers 404 for a missing post or brand', async () => {
      await expectNotFound(update(999, { caption: 'x' }), 'post', 'Post not found.');
      await expectBrandNotFound(
        ctx.service.updatePost({ brandId: 999, postId: await create(), caption: 'x' }),
      );
    });
  });

  describe('deletePost', () => {
    it('deletes a draft', async () => {
      const id = await create();
      expect(await remove(id)).toMatchObject({ id, status: 'deleted' });
      await expectNotFound(get(id), 'post', 'Post not found.');
      expect((await list()).pagination.total).toBe(0);
    });

    it('cancels a queued post, which stays readable and frees its queue time', async () => {
      const id = await queue();
      const deleted = await remove(id);
      expect(deleted).toMatchObject({ id, status: 'cancelled' });
      expect(typeof deleted.message).toBe('string');
      expect(await get(id)).toMatchObject({ status: 'cancelled', scheduledAt: '2026-11-21 09:00:00' });
      const q = await ctx.service.getQueue(NW);
      expect(q.queued).toEqual([]);
      expect(q.nextSlots[0]).toEqual({
        scheduledAt: '2026-11-21 09:00:00',
        at: '2026-11-21T14:00:00.000000Z',
      });
      expect(await when(await queue())).toBe('2026-11-21 09:00:00');
    });

    it('cancels a scheduled post and frees its time', async () => {
      await queue(); // 09:00
      const id = await schedule('2026-11-21 12:00:00');
      expect(await remove(id)).toMatchObject({ id, status: 'cancelled' });
      expect(await when(await queue())).toBe('2026-11-21 12:00:00');
    });

    it('refuses a publishing or cancelled post, and answers 404 for a missing one', async () => {
      const publishing = await create({ publishMode: 'IMMEDIATE' });
      await expectPostIdError(remove(publishing), 'publishing');
      expect((await get(publishing)).status).toBe('publishing');
      const cancelled = await queue();
      await remove(cancelled);
      await expectPostIdError(remove(cancelled), 'cancelled');
      await expectNotFound(remove(999), 'post', 'Post not found.');
    });
  });

  describe('publishPost', () => {
    it.each([
      ['draft', {}],
      ['queued', { publishMode: 'QUEUE' }],
      ['scheduled', { publishMode: 'SCHEDULE', scheduledAt: '2026-11-24 09:00:00' }],
    ])('publishes a %s post now, with its deliveries', async (_status, changes) => {
      const id = await create(changes);
      const post = await publish(id);
      expect(post).toMatchObject({ id, status: 'publishing', publishMode: 'IMMEDIATE', dueAt: NOW_UTC });
      expect(byChannel(post).map((d) => d.channelId)).toEqual(ALL_CHANNELS);
      const { warnings: _warnings, ...stored } = post;
      expect(await get(id)).toEqual(stored);
      await expectPostIdError(publish(id), 'publishing');
      expect((await get(id)).deliveries).toHaveLength(12);
    });

    it('frees the queue time of a queued post it publishes', async () => {
      const id = await queue();
      await publish(id);
      expect(await when(await queue())).toBe('2026-11-21 09:00:00');
    });

    it('refuses a draft in a collection without channels, and answers 404 for a missing post', async () => {
      const id = await create({ collectionId: COLLECTION.newsletter });
      const errors = await expectValidation(publish(id));
      expect(Object.keys(errors)).toEqual(['collectionId']);
      expect((await get(id)).status).toBe('draft');
      await expectNotFound(publish(999), 'post', 'Post not found.');
    });
  });
}
