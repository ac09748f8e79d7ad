/** createPost: publish modes, scheduledAt in the brand's timezone, the queue, 404s and storage. */
import { describe, expect, it } from 'vitest';
import {
  BRAND,
  CHANNEL,
  COLLECTION,
  chars,
  expectBrandNotFound,
  expectCollectionNotFound,
  expectErrors,
  expectNotFound,
  expectValidation,
  PLAYLIST_CHANNEL_MESSAGE,
  postRequest,
  postRequestWithout,
} from './support.js';
import { CONTRACT_NOW, type ContractContext } from './world.js';

const FUTURE_MESSAGE = 'The scheduled at must be a future date.';
const FORMAT_MESSAGE = 'The scheduled at does not match the format Y-m-d H:i:s.';

export function createPostRulesContract(ctx: ContractContext): void {
  const create = (changes: Record<string, unknown>) => ctx.service.createPost(postRequest(changes));
  const schedule = (scheduledAt: string, changes: Record<string, unknown> = {}) =>
    create({ publishMode: 'SCHEDULE', scheduledAt, ...changes });
  const kite = { brandId: BRAND.kite, collectionId: COLLECTION.kiteAll };
  const playlists = (...channelIds: unknown[]) => ({
    platforms: {
      youtube: { playlists: channelIds.map((channelId) => ({ channelId, playlistIds: ['PL1'] })) },
    },
  });

  describe('publish modes', () => {
    it.each([
      ['DRAFT', {}],
      ['SCHEDULE', { scheduledAt: '2026-11-24 09:00:00' }],
      ['QUEUE', {}],
      ['IMMEDIATE', {}],
    ])('%s creates a post with an integer id and a message', async (publishMode, extra) => {
      const created = await create({ publishMode, ...extra });
      // The documented members, and the pre-flight warnings that may be added to them.
      expect(
        Object.keys(created)
          .filter((key) => key !== 'warnings')
          .sort(),
      ).toEqual(['id', 'message']);
      expect(Number.isInteger(created.id)).toBe(true);
      expect(created.id).toBeGreaterThan(0);
      expect(typeof created.message).toBe('string');
      expect(created.message.length).toBeGreaterThan(0);
    });

    it('gives every post its own id', async () => {
      const ids = [];
      for (const [index, publishMode] of ['DRAFT', 'QUEUE', 'IMMEDIATE', 'DRAFT'].entries()) {
        ids.push((await create({ publishMode, caption: `Post number ${index}` })).id);
      }
      expect(new Set(ids).size).toBe(4);
    });
  });

  describe('scheduledAt', () => {
    it('is required with SCHEDULE', async () => {
      await expectErrors(create({ publishMode: 'SCHEDULE' }), {
        scheduledAt: ['The scheduled at field is required when publish mode is SCHEDULE.'],
      });
      await expectErrors(schedule(''), {
        scheduledAt: ['The scheduled at field is required when publish mode is SCHEDULE.'],
      });
    });

    it.each([
      '2026-11-24T09:00',
      '2026-11-24T09:00:00',
      '2026-11-24 09:00',
      '24/11/2026 09:00:00',
      '2026-02-30 09:00:00',
      '2026-13-01 09:00:00',
      '2026-11-24 24:00:00',
      '2026-11-24 09:60:00',
      'tomorrow',
    ])('rejects the format of %j', async (scheduledAt) => {
      await expectErrors(schedule(scheduledAt), { scheduledAt: [FORMAT_MESSAGE] });
    });

    it('must be a string', async () => {
      await expectErrors(create({ publishMode: 'SCHEDULE', scheduledAt: 1795000000 }), {
        scheduledAt: ['The scheduled at must be a string.'],
      });
    });

    it('rejects a past time and exactly now, accepts one second later', async () => {
      await expectErrors(schedule('2026-11-20 09:00:00'), { scheduledAt: [FUTURE_MESSAGE] });
      await expectErrors(schedule('2026-11-21 06:59:59'), { scheduledAt: [FUTURE_MESSAGE] });
      await expectErrors(schedule('2026-11-21 07:00:00'), { scheduledAt: [FUTURE_MESSAGE] });
      const created = await schedule('2026-11-21 07:00:01');
      expect(created.message).toContain('2026-11-21T12:00:01.000000Z');
    });

    it("is read in the brand's timezone: New York", async () => {
      const created = await schedule('2026-11-24 09:00:00');
      expect(created.message).toContain('2026-11-24T14:00:00.000000Z');
      // 11:00 in New York is still ahead, although 11:00 UTC (and London) has passed.
      expect((await schedule('2026-11-21 11:00:00')).message).toContain('2026-11-21T16:00:00.000000Z');
    });

    it("is read in the brand's timezone: Tokyo", async () => {
      const created = await schedule('2026-11-24 09:00:00', kite);
      expect(created.message).toContain('2026-11-24T00:00:00.000000Z');
      // 20:00 in Tokyo has passed (it is 21:00 there), although 20:00 UTC has not.
      await expectErrors(schedule('2026-11-21 20:00:00', kite), { scheduledAt: [FUTURE_MESSAGE] });
    });

    it('rejects a local time in the DST gap', async () => {
      await expectErrors(schedule('2027-03-14 02:30:00'), {
        scheduledAt: ['The scheduled at does not exist in the America/New_York timezone.'],
      });
      expect((await schedule('2027-03-14 03:30:00')).message).toContain('2027-03-14T07:30:00.000000Z');
    });

    it('refuses a local time whose instant is past year 9999 in UTC, and takes the last one before it', async () => {
      // 20:00 on 9999-12-31 in New York is 01:00 on 10000-01-01 UTC: no timestamp can write it.
      await expectErrors(schedule('9999-12-31 20:00:00'), {
        scheduledAt: ['The scheduled at must be before 10000-01-01 00:00:00 UTC.'],
      });
      expect((await schedule('9999-12-31 18:59:59')).message).toContain('9999-12-31T23:59:59.000000Z');
    });

    it('resolves an ambiguous local time (DST fall-back) to the earlier instant', async () => {
      const created = await schedule('2027-11-07 01:30:00');
      expect(created.message).toContain('2027-11-07T05:30:00.000000Z');
      expect(created.message).not.toContain('2027-11-07T06:30:00.000000Z');
    });

    it.each(['QUEUE', 'IMMEDIATE'])('is ignored with %s, and the message says so', async (publishMode) => {
      const created = await create({ publishMode, scheduledAt: '2020-01-01 09:00:00' });
      expect(Number.isInteger(created.id)).toBe(true);
      expect(created.message).toMatch(/ignored/i);
      expect(created.message).toContain('2020-01-01 09:00:00');
      const plain = await create({ publishMode });
      expect(plain.message).not.toMatch(/ignored/i);
    });

    it('must be in the future with DRAFT too (only QUEUE and IMMEDIATE ignore it)', async () => {
      await expectErrors(create({ publishMode: 'DRAFT', scheduledAt: '2026-11-20 09:00:00' }), {
        scheduledAt: [FUTURE_MESSAGE],
      });
    });

    it('is kept as the planned time of a DRAFT', async () => {
      const created = await create({ publishMode: 'DRAFT', scheduledAt: '2026-11-24 09:00:00' });
      expect(created.message).toContain('2026-11-24T14:00:00.000000Z');
    });
  });

  describe('queue', () => {
    // Distinct captions: the same post twice within ten minutes is a duplicate, not a second post.
    let queued = 0;
    const queue = async () =>
      (await create({ publishMode: 'QUEUE', caption: `Queued post ${++queued}` })).message;

    it('takes the earliest free queue time after now, in the brand timezone', async () => {
      expect(await queue()).toContain('2026-11-21T14:00:00.000000Z'); // 09:00 New York
      expect(await queue()).toContain('2026-11-21T17:00:00.000000Z'); // 12:00
      await schedule('2026-11-21 17:00:00'); // holds 17:00 (22:00 UTC)
      expect(await queue()).toContain('2026-11-22T14:00:00.000000Z'); // next day 09:00
      expect(await queue()).toContain('2026-11-22T17:00:00.000000Z');
    });

    it('skips a time held by a scheduled post, but not one a draft plans', async () => {
      await create({ publishMode: 'DRAFT', scheduledAt: '2026-11-21 09:00:00' });
      await create({ publishMode: 'IMMEDIATE' });
      expect(await queue()).toContain('2026-11-21T14:00:00.000000Z');
      await schedule('2026-11-21 12:00:00');
      expect(await queue()).toContain('2026-11-21T22:00:00.000000Z');
    });

    it('keeps one queue per brand', async () => {
      expect(await queue()).toContain('2026-11-21T14:00:00.000000Z');
      // Tokyo: it is 21:00, so the next queue time is 09:00 tomorrow = 00:00 UTC.
      expect((await create({ publishMode: 'QUEUE', ...kite })).message).toContain(
        '2026-11-22T00:00:00.000000Z',
      );
      expect(await queue()).toContain('2026-11-21T17:00:00.000000Z');
    });
  });

  describe('brand and collection', () => {
    it('answers 404 Brand not found for a missing brand', async () => {
      await expectBrandNotFound(create({ brandId: 999 }));
    });

    it('answers 404 Brand not found for a brand of another user, both ways', async () => {
      const [harbor] = (await ctx.other.listBrands()).data;
      const [harborAll] = (await ctx.other.listCollections({ brandId: harbor!.id })).data;
      await expectBrandNotFound(create({ brandId: harbor!.id, collectionId: harborAll!.id }));
      await expectBrandNotFound(ctx.other.createPost(postRequest()));
      const theirs = await ctx.other.createPost(
        postRequest({ brandId: harbor!.id, collectionId: harborAll!.id }),
      );
      expect(Number.isInteger(theirs.id)).toBe(true);
    });

    it('answers 404 for the brand before validating the payload', async () => {
      await expectBrandNotFound(ctx.service.createPost({ brandId: 999, collectionId: 1, caption: 5 }));
    });

    it('answers 404 Collection not found for a missing collection', async () => {
      await expectCollectionNotFound(create({ collectionId: 999 }));
    });

    it('answers 404 for the collection before validating the payload', async () => {
      await expectCollectionNotFound(create({ collectionId: 999, caption: 5, publishMode: 'SOON' }));
    });

    it('answers 404 Collection not found for a collection of another brand', async () => {
      await expectCollectionNotFound(create({ collectionId: COLLECTION.kiteAll }));
      await expectCollectionNotFound(create({ ...kite, collectionId: COLLECTION.everywhere }));
      const [harbor] = (await ctx.other.listBrands()).data;
      const [harborAll] = (await ctx.other.listCollections({ brandId: harbor!.id })).data;
      await expectCollectionNotFound(create({ collectionId: harborAll!.id }));
    });

    it('requires integer brand and collection ids', async () => {
      const errors = await expectValidation(
        ctx.service.createPost(postRequestWithout('brandId', 'collectionId')),
      );
      expect(errors).toMatchObject({
        brandId: ['The brand id field is required.'],
        collectionId: ['The collection id field is required.'],
      });
    });

    it('allows a DRAFT in an empty collection (Newsletter)', async () => {
      const created = await create({ collectionId: COLLECTION.newsletter });
      expect(Number.isInteger(created.id)).toBe(true);
    });

    it.each([
      ['QUEUE', {}],
      ['IMMEDIATE', {}],
      ['SCHEDULE', { scheduledAt: '2026-11-24 09:00:00' }],
    ])('rejects %s in an empty collection with a 422 on collectionId', async (publishMode, extra) => {
      const errors = await expectValidation(
        create({ collectionId: COLLECTION.newsletter, publishMode, ...extra }),
      );
      expect(Object.keys(errors)).toEqual(['collectionId']);
      expect(errors.collectionId).toEqual([expect.stringMatching(/no channels/)]);
    });
  });

  describe('YouTube playlists', () => {
    const key = (index: number) => `platforms.youtube.playlists.${index}.channelId`;

    it('accepts a channel of the brand', async () => {
      const created = await create(playlists(CHANNEL.youtube));
      expect(Number.isInteger(created.id)).toBe(true);
    });

    it('answers 404 for a channel that does not exist', async () => {
      await expectNotFound(create(playlists(999)), key(0), PLAYLIST_CHANNEL_MESSAGE);
    });

    it('answers 404 for a channel of another brand', async () => {
      await expectNotFound(create(playlists(CHANNEL.kiteInstagram)), key(0), PLAYLIST_CHANNEL_MESSAGE);
      const [harbor] = (await ctx.other.listBrands()).data;
      const [harborYouTube] = (await ctx.other.listChannels({ brandId: harbor!.id })).data;
      await expectNotFound(create(playlists(harborYouTube!.id)), key(0), PLAYLIST_CHANNEL_MESSAGE);
    });

    it('names the index of the bad playlist', async () => {
      await expectNotFound(create(playlists(CHANNEL.youtube, 999)), key(1), PLAYLIST_CHANNEL_MESSAGE);
    });

    it('reports validation failures (422) before the playlist 404', async () => {
      await expectErrors(create({ caption: chars(3001), ...playlists(999) }), {
        caption: ['The caption may not be greater than 3000 characters.'],
      });
    });

    it('requires an integer channelId', async () => {
      await expectErrors(create(playlists('six')), {
        [key(0)]: [`The ${key(0).replace('channelId', 'channel id')} must be an integer.`],
      });
    });
  });

  if (ctx.options.inspection) {
    describe('storage', () => {
      it('stores the post with its brand, collection, mode and due time', async () => {
        const inspect = ctx.inspect();
        const created = await schedule('2026-11-24 09:00:00', {
          title: 'Beans',
          link: 'https://example.com',
        });
        expect(await inspect.post(created.id!)).toMatchObject({
          brandId: BRAND.northwind,
          collectionId: COLLECTION.everywhere,
          publishMode: 'SCHEDULE',
          dueAtMs: Date.UTC(2026, 10, 24, 14, 0, 0),
          payload: { caption: 'Fresh beans are in.', title: 'Beans', link: 'https://example.com' },
        });
        const draft = await create({});
        expect(await inspect.post(draft.id!)).toMatchObject({ publishMode: 'DRAFT', dueAtMs: null });
        const now = await create({ publishMode: 'IMMEDIATE' });
        expect(await inspect.post(now.id!)).toMatchObject({
          publishMode: 'IMMEDIATE',
          dueAtMs: CONTRACT_NOW,
        });
      });

      it('stores nothing for a rejected request', async () => {
        const inspect = ctx.inspect();
        await expectValidation(create({ caption: chars(3001) }));
        await expectCollectionNotFound(create({ collectionId: 999 }));
        await expectNotFound(
          create(playlists(999)),
          'platforms.youtube.playlists.0.channelId',
          PLAYLIST_CHANNEL_MESSAGE,
        );
        expect(await inspect.count('posts')).toBe(0);
        await create({});
        expect(await inspect.count('posts')).toBe(1);
      });
    });
  }
}
