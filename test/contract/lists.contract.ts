/** getProfile, listBrands, listChannels, listCollections: resources, pagination and access. */
import { describe, expect, it } from 'vitest';
import type { PublishingService } from '../../src/service/publishing-service.js';
import { BRAND, CHANNEL, COLLECTION, expectBrandNotFound, expectErrors, TIMESTAMP } from './support.js';
import type { ContractContext } from './world.js';

const TYPES = [
  'Facebook',
  'Instagram',
  'Threads',
  'LinkedIn',
  'Google Business',
  'YouTube',
  'TikTok',
  'Pinterest',
  'X/Twitter',
  'Mastodon',
  'Bluesky',
  'Telegram',
];
const CHANNEL_KEYS = ['createdAt', 'id', 'name', 'status', 'type', 'updatedAt'];

type Lister = (service: PublishingService, query: Record<string, unknown>) => Promise<unknown>;

/** The pagination parameter rules, shared by every list operation. */
function paginationRules(ctx: ContractContext, list: Lister): void {
  it.each([
    [{ per_page: 101 }, { per_page: ['The per page may not be greater than 100.'] }],
    [{ per_page: 0 }, { per_page: ['The per page must be at least 1.'] }],
    [{ per_page: 'abc' }, { per_page: ['The per page must be an integer.'] }],
    [{ per_page: 2.5 }, { per_page: ['The per page must be an integer.'] }],
    [{ page: 0 }, { page: ['The page must be at least 1.'] }],
    [{ page: -3 }, { page: ['The page must be at least 1.'] }],
    [{ page: 'two' }, { page: ['The page must be an integer.'] }],
    [{ foo: 1 }, { foo: ['The foo field is not allowed.'] }],
  ])('rejects the query %j', async (query, expected) => {
    await expectErrors(list(ctx.service, query), expected);
  });

  it('reports every bad pagination parameter at once', async () => {
    await expectErrors(list(ctx.service, { page: 0, per_page: 101 }), {
      page: ['The page must be at least 1.'],
      per_page: ['The per page may not be greater than 100.'],
    });
  });
}

export function listsContract(ctx: ContractContext): void {
  describe('getProfile', () => {
    it('returns the acting user with exactly the documented fields', async () => {
      const profile = await ctx.service.getProfile();
      expect(Object.keys(profile).sort()).toEqual(['id', 'joinedAt', 'name', 'timezone']);
      expect(profile).toMatchObject({ name: 'Demo User', timezone: 'Europe/London' });
      expect(typeof profile.id).toBe('string');
      expect(profile.id.length).toBeGreaterThan(0);
      expect(profile.joinedAt).toMatch(TIMESTAMP);
    });

    it('answers for the user who acts', async () => {
      const mine = await ctx.service.getProfile();
      const theirs = await ctx.other.getProfile();
      expect(theirs).toMatchObject({ name: 'Other User', timezone: 'Europe/Paris' });
      expect(theirs.joinedAt).toMatch(TIMESTAMP);
      expect(theirs.id).not.toBe(mine.id);
    });
  });

  describe('listBrands', () => {
    it('lists the demo brands with exactly the documented fields', async () => {
      const page = await ctx.service.listBrands();
      expect(page.data.map((brand) => [brand.id, brand.title, brand.description, brand.timezone])).toEqual([
        [BRAND.northwind, 'Northwind Coffee', 'Specialty coffee roaster', 'America/New_York'],
        [BRAND.kite, 'Kite & Key Studio', null, 'Asia/Tokyo'],
      ]);
      for (const brand of page.data) {
        expect(Object.keys(brand).sort()).toEqual([
          'createdAt',
          'description',
          'id',
          'timezone',
          'title',
          'updatedAt',
        ]);
        expect(brand.createdAt).toMatch(TIMESTAMP);
        expect(brand.updatedAt).toMatch(TIMESTAMP);
      }
      expect(page.pagination).toMatchObject({ currentPage: 1, perPage: 10, total: 2, lastPage: 1 });
    });

    it('accepts an empty request like no request', async () => {
      expect(await ctx.service.listBrands({})).toEqual(await ctx.service.listBrands());
    });

    it('pages the brands', async () => {
      const first = await ctx.service.listBrands({ per_page: 1 });
      expect(first.data.map((brand) => brand.id)).toEqual([BRAND.northwind]);
      expect(first.pagination).toMatchObject({ currentPage: 1, perPage: 1, total: 2, lastPage: 2 });
      const second = await ctx.service.listBrands({ page: 2, per_page: 1 });
      expect(second.data.map((brand) => brand.id)).toEqual([BRAND.kite]);
      expect(second.pagination).toMatchObject({ currentPage: 2, perPage: 1, total: 2, lastPage: 2 });
    });

    it('answers a page beyond the last with no data and the real totals', async () => {
      const page = await ctx.service.listBrands({ page: 5 });
      expect(page.data).toEqual([]);
      expect(page.pagination).toMatchObject({ currentPage: 5, perPage: 10, total: 2, lastPage: 1 });
    });

    it('accepts per_page 1 and 100', async () => {
      expect((await ctx.service.listBrands({ per_page: 100 })).pagination.perPage).toBe(100);
      expect((await ctx.service.listBrands({ per_page: 1 })).data).toHaveLength(1);
    });

    it('shows each user only the brands they can access', async () => {
      const theirs = await ctx.other.listBrands();
      expect(theirs.data.map((brand) => brand.title)).toEqual(['Harbor Bakery', 'Harbor Pop-up']);
      expect(theirs.data[0]).toMatchObject({ description: 'Another user’s brand', timezone: 'Europe/Paris' });
      expect(theirs.data[1]).toMatchObject({ description: null });
      expect(theirs.pagination).toMatchObject({ total: 2, lastPage: 1 });
      const mine = await ctx.service.listBrands({ per_page: 100 });
      expect(mine.data.map((brand) => brand.title)).toEqual(['Northwind Coffee', 'Kite & Key Studio']);
      expect(mine.pagination.total).toBe(2);
    });

    paginationRules(ctx, (service, query) => service.listBrands(query));
  });

  describe('listChannels', () => {
    it('lists the 12 Northwind channels in order, Pinterest INACTIVE', async () => {
      const page = await ctx.service.listChannels({ brandId: BRAND.northwind, per_page: 100 });
      expect(page.data.map((channel) => channel.id)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(page.data.map((channel) => channel.type)).toEqual(TYPES);
      expect(page.data.map((channel) => channel.name)).toEqual(TYPES.map((t) => `Northwind Coffee on ${t}`));
      for (const channel of page.data) {
        expect(Object.keys(channel).sort()).toEqual(CHANNEL_KEYS);
        expect(channel.status).toBe(channel.type === 'Pinterest' ? 'INACTIVE' : 'ACTIVE');
        expect(channel.createdAt).toMatch(TIMESTAMP);
        expect(channel.updatedAt).toMatch(TIMESTAMP);
      }
      expect(page.data[CHANNEL.pinterest - 1]).toMatchObject({ id: CHANNEL.pinterest, status: 'INACTIVE' });
      expect(page.pagination).toMatchObject({ currentPage: 1, perPage: 100, total: 12, lastPage: 1 });
    });

    it('lists Kite & Key Studio channels 13 to 16', async () => {
      const page = await ctx.service.listChannels({ brandId: BRAND.kite });
      expect(page.data.map((channel) => [channel.id, channel.type, channel.status])).toEqual([
        [CHANNEL.kiteInstagram, 'Instagram', 'ACTIVE'],
        [CHANNEL.kiteX, 'X/Twitter', 'ACTIVE'],
        [CHANNEL.kiteBluesky, 'Bluesky', 'ACTIVE'],
        [CHANNEL.kiteLinkedIn, 'LinkedIn', 'ACTIVE'],
      ]);
    });

    it('pages 10 per page by default', async () => {
      const first = await ctx.service.listChannels({ brandId: BRAND.northwind });
      expect(first.data.map((channel) => channel.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(first.pagination).toMatchObject({ currentPage: 1, perPage: 10, total: 12, lastPage: 2 });
      const second = await ctx.service.listChannels({ brandId: BRAND.northwind, page: 2 });
      expect(second.data.map((channel) => channel.type)).toEqual(['Bluesky', 'Telegram']);
      expect(second.pagination).toMatchObject({ currentPage: 2, perPage: 10, total: 12, lastPage: 2 });
      const beyond = await ctx.service.listChannels({ brandId: BRAND.northwind, page: 3 });
      expect(beyond.data).toEqual([]);
      expect(beyond.pagination).toMatchObject({ currentPage: 3, total: 12, lastPage: 2 });
    });

    it('pages with a custom per_page', async () => {
      const page = await ctx.service.listChannels({ brandId: BRAND.northwind, page: 3, per_page: 5 });
      expect(page.data.map((channel) => channel.id)).toEqual([11, 12]);
      expect(page.pagination).toMatchObject({ currentPage: 3, perPage: 5, total: 12, lastPage: 3 });
    });

    it('answers 404 Brand not found for a brand that does not exist', async () => {
      await expectBrandNotFound(ctx.service.listChannels({ brandId: 999 }));
    });

    it('answers 404 Brand not found for a brand of another user, both ways', async () => {
      const [harbor] = (await ctx.other.listBrands()).data;
      await expectBrandNotFound(ctx.service.listChannels({ brandId: harbor!.id }));
      await expectBrandNotFound(ctx.other.listChannels({ brandId: BRAND.northwind }));
      await expectBrandNotFound(ctx.other.listChannels({ brandId: BRAND.kite }));
      const theirs = await ctx.other.listChannels({ brandId: harbor!.id });
      expect(theirs.data.map((channel) => channel.type)).toEqual(['YouTube', 'Instagram']);
    });

    it('answers an empty list with lastPage 1 for a brand without channels or collections', async () => {
      const popUp = (await ctx.other.listBrands()).data.find((brand) => brand.title === 'Harbor Pop-up');
      const channels = await ctx.other.listChannels({ brandId: popUp!.id });
      expect(channels.data).toEqual([]);
      expect(channels.pagination).toMatchObject({ currentPage: 1, perPage: 10, total: 0, lastPage: 1 });
      const collections = await ctx.other.listCollections({ brandId: popUp!.id, page: 2 });
      expect(collections.data).toEqual([]);
      expect(collections.pagination).toMatchObject({ currentPage: 2, perPage: 10, total: 0, lastPage: 1 });
    });

    it('requires the brand id', async () => {
      await expectErrors(ctx.service.listChannels({}), { brandId: ['The brand id field is required.'] });
      await expectErrors(ctx.service.listChannels({ brandId: 'one' }), {
        brandId: ['The brand id must be an integer.'],
      });
    });

    paginationRules(ctx, (service, query) => service.listChannels({ brandId: BRAND.northwind, ...query }));
  });

  describe('listCollections', () => {
    it('lists the Northwind collections with their embedded channels', async () => {
      const page = await ctx.service.listCollections({ brandId: BRAND.northwind });
      expect(page.data.map((c) => [c.id, c.title, c.channels.length])).toEqual([
        [COLLECTION.everywhere, 'Everywhere', 12],
        [COLLECTION.visual, 'Visual', 5],
        [COLLECTION.conversation, 'Conversation', 6],
        [COLLECTION.newsletter, 'Newsletter', 0],
      ]);
      for (const collection of page.data) {
        expect(Object.keys(collection).sort()).toEqual([
          'channels',
          'createdAt',
          'description',
          'id',
          'status',
          'title',
          'updatedAt',
        ]);
        expect(collection.status).toBe('ACTIVE');
        expect(collection.createdAt).toMatch(TIMESTAMP);
        expect(collection.updatedAt).toMatch(TIMESTAMP);
        for (const channel of collection.channels) {
          expect(Object.keys(channel).sort()).toEqual(CHANNEL_KEYS);
          expect(channel.createdAt).toMatch(TIMESTAMP);
        }
      }
      expect(page.pagination).toMatchObject({ currentPage: 1, perPage: 10, total: 4, lastPage: 1 });
    });

    it('embeds the same channels the channel list shows', async () => {
      const channels = (await ctx.service.listChannels({ brandId: BRAND.northwind, per_page: 100 })).data;
      const [everywhere, visual, conversation] = (await ctx.service.listCollections({ brandId: 1 })).data;
      expect([...everywhere!.channels].sort((a, b) => a.id - b.id)).toEqual(channels);
      expect(visual!.channels.map((c) => c.type).sort()).toEqual(
        ['Facebook', 'Instagram', 'Pinterest', 'TikTok', 'YouTube'].sort(),
      );
      expect(visual!.channels.find((c) => c.type === 'Pinterest')?.status).toBe('INACTIVE');
      expect(conversation!.channels.map((c) => c.type).sort()).toEqual(
        ['Bluesky', 'LinkedIn', 'Mastodon', 'Telegram', 'Threads', 'X/Twitter'].sort(),
      );
    });

    it('lists Kite & Key Studio collection 5 "All" with its 4 channels', async () => {
      const page = await ctx.service.listCollections({ brandId: BRAND.kite });
      expect(page.data.map((c) => [c.id, c.title, c.description])).toEqual([
        [COLLECTION.kiteAll, 'All', null],
      ]);
      expect(page.data[0]!.channels.map((c) => c.id).sort((a, b) => a - b)).toEqual([13, 14, 15, 16]);
    });

    it('pages the collections', async () => {
      const second = await ctx.service.listCollections({ brandId: BRAND.northwind, page: 2, per_page: 3 });
      expect(second.data.map((c) => c.title)).toEqual(['Newsletter']);
      expect(second.data[0]!.channels).toEqual([]);
      expect(second.pagination).toMatchObject({ currentPage: 2, perPage: 3, total: 4, lastPage: 2 });
      const beyond = await ctx.service.listCollections({ brandId: BRAND.northwind, page: 9 });
      expect(beyond.data).toEqual([]);
      expect(beyond.pagination).toMatchObject({ currentPage: 9, total: 4, lastPage: 1 });
    });

    it('answers 404 Brand not found for a missing brand and for a brand of another user', async () => {
      await expectBrandNotFound(ctx.service.listCollections({ brandId: 999 }));
      const [harbor] = (await ctx.other.listBrands()).data;
      await expectBrandNotFound(ctx.service.listCollections({ brandId: harbor!.id }));
      await expectBrandNotFound(ctx.other.listCollections({ brandId: BRAND.northwind }));
      const theirs = await ctx.other.listCollections({ brandId: harbor!.id });
      expect(theirs.data.map((c) => [c.title, c.channels.length])).toEqual([['Harbor All', 2]]);
    });

    paginationRules(ctx, (service, query) => service.listCollections({ brandId: BRAND.northwind, ...query }));
  });
}
