/**
 * The Store port's workspace semantics, for any adapter: users, brands, channels, collections, media,
 * upserts by natural key, pages and counts. Each test opens a fresh, empty store.
 */
import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE, NOW, type OpenStore, seedWorkspace } from './store-fixture.js';

export function workspaceContract(open: OpenStore): void {
  describe('users and emptiness', () => {
    it('a fresh store is empty and has no user; a brand alone makes it not empty', async () => {
      const store = await open();
      expect(await store.isEmpty()).toBe(true);
      expect(await store.countUsers()).toBe(0);
      expect(await store.onlyUser()).toBeUndefined();
      expect(await store.listUsers()).toEqual([]);
      await store.upsertBrand({ title: 'B', description: null, timezone: 'UTC', queueTimes: [] }, NOW);
      expect(await store.isEmpty()).toBe(false);
    });

    it('lists users oldest first (then by id), knows the only one, and those that never had a key', async () => {
      const store = await open();
      const ada = await store.upsertUser(
        { name: 'Ada', timezone: 'UTC', apiKeyHash: null, brandIds: [] },
        NOW,
      );
      expect(await store.onlyUser()).toEqual({ id: ada, name: 'Ada', timezone: 'UTC', joinedAtMs: NOW });
      expect(ada).toMatch(/^usr_[\w-]{16}$/);
      // Several users joining in the same millisecond (one import): ordered by id, byte by byte.
      const same: string[] = [];
      for (const name of ['B', 'C', 'D', 'E', 'F', 'G']) {
        same.push(await store.upsertUser({ name, timezone: 'UTC', apiKeyHash: null, brandIds: [] }, NOW + 1));
      }
      const bytewise = [...same].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect((await store.listUsers()).map((user) => user.id)).toEqual([ada, ...bytewise]);
      expect(await store.countUsers()).toBe(7);
      expect(await store.onlyUser()).toBeUndefined();
      expect(await store.getUser(ada)).toEqual({ id: ada, name: 'Ada', timezone: 'UTC', joinedAtMs: NOW });
      expect(await store.getUser('usr_nobody')).toBeUndefined();

      const keyed = await store.upsertUser(
        { name: 'Kay', timezone: 'UTC', apiKeyHash: 'a'.repeat(64), brandIds: [] },
        NOW,
      );
      const revoked = await store.apiKeys.add(
        same[0]!,
        { keyHash: 'b'.repeat(64), prefix: null, origin: 'cli' },
        NOW,
      );
      await store.apiKeys.revoke(revoked.id, NOW);
      const without = (await store.usersWithoutKey()).map((user) => user.id);
      expect(without).not.toContain(keyed);
      expect(without).not.toContain(same[0]);
      expect(without).toContain(ada);
      expect(without).toHaveLength(6);
      // Oldest first, then by id, as listUsers: users of one import joined in the same millisecond.
      expect(without).toEqual([ada, ...bytewise.filter((id) => id !== same[0])]);
    });

    it('upserts a user by API key hash, else by name among users no file gave a key; brands are replaced', async () => {
      const { store, brandId, otherBrandId } = await seedWorkspace(await open());
      const hash = 'c'.repeat(64);
      const imported = await store.upsertUser(
        { name: 'Imp', timezone: 'UTC', apiKeyHash: hash, brandIds: [brandId] },
        NOW,
      );
      expect((await store.apiKeys.findByHash(hash))?.key).toMatchObject({
        userId: imported,
        origin: 'import',
        prefix: null,
      });
      // Renamed and moved, known by its key.
      const again = await store.upsertUser(
        {
          name: 'Renamed',
          timezone: 'Asia/Tokyo',
          apiKeyHash: hash,
          brandIds: [otherBrandId, brandId, brandId],
        },
        NOW + HOUR,
      );
      expect(again).toBe(imported);
      expect(await store.getUser(imported)).toEqual({
        id: imported,
        name: 'Renamed',
        timezone: 'Asia/Tokyo',
        joinedAtMs: NOW,
      });
      expect(await store.countBrandsOfUser(imported)).toBe(2);
      // A user given a key by a file is not matched by name: a file without the key makes a new user.
      expect(
        await store.upsertUser({ name: 'Renamed', timezone: 'UTC', apiKeyHash: null, brandIds: [] }, NOW),
      ).not.toBe(imported);

      const local = await store.upsertUser(
        { name: 'Local', timezone: 'UTC', apiKeyHash: null, brandIds: [brandId] },
        NOW,
      );
      // A key issued here since (keys create, serve) does not make the user a new one.
      await store.apiKeys.add(local, { keyHash: 'd'.repeat(64), prefix: 'spk_Local', origin: 'serve' }, NOW);
      expect(
        await store.upsertUser(
          { name: 'Local', timezone: 'Europe/Paris', apiKeyHash: null, brandIds: [] },
          NOW,
        ),
      ).toBe(local);
      expect(await store.countBrandsOfUser(local)).toBe(0);
      expect((await store.getUser(local))?.timezone).toBe('Europe/Paris');
    });
  });

  describe('brands', () => {
    it('upserts by title: the same title keeps its id, and only a real change moves updatedAtMs', async () => {
      const store = await open();
      const id = await store.upsertBrand(
        { title: 'T', description: 'd', timezone: 'UTC', queueTimes: ['09:00'] },
        NOW,
      );
      expect(
        await store.upsertBrand(
          { title: 'T', description: 'd', timezone: 'UTC', queueTimes: ['09:00'] },
          NOW + 1,
        ),
      ).toBe(id);
      expect(await store.findBrand(id)).toEqual({
        id,
        title: 'T',
        description: 'd',
        timezone: 'UTC',
        queueTimes: ['09:00'],
        createdAtMs: NOW,
        updatedAtMs: NOW,
      });
      await store.upsertBrand(
        { title: 'T', description: null, timezone: 'UTC', queueTimes: ['09:00'] },
        NOW + 2,
      );
      expect((await store.findBrand(id))?.updatedAtMs).toBe(NOW + 2);
      await store.upsertBrand(
        { title: 'T', description: null, timezone: 'UTC', queueTimes: ['10:00', '09:00'] },
        NOW + 3,
      );
      expect(await store.findBrand(id)).toMatchObject({
        description: null,
        queueTimes: ['10:00', '09:00'],
        updatedAtMs: NOW + 3,
      });
      await store.upsertBrand(
        { title: 'T', description: null, timezone: 'Europe/Paris', queueTimes: ['10:00', '09:00'] },
        NOW + 4,
      );
      expect((await store.findBrand(id))?.updatedAtMs).toBe(NOW + 4);
      expect(await store.findBrandIdByTitle('T')).toBe(id);
      expect(await store.findBrandIdByTitle('t')).toBeUndefined();
      expect(await store.findBrand(id + 100)).toBeUndefined();
    });

    it('a user sees the brands given to them, by brand id, a page at a time', async () => {
      const store = await open();
      const ids = [];
      for (const title of ['E', 'D', 'C', 'B', 'A']) {
        ids.push(await store.upsertBrand({ title, description: null, timezone: 'UTC', queueTimes: [] }, NOW));
      }
      const userId = await store.upsertUser(
        { name: 'U', timezone: 'UTC', apiKeyHash: null, brandIds: [ids[4]!, ids[0]!, ids[2]!, ids[3]!] },
        NOW,
      );
      const seen = [ids[0]!, ids[2]!, ids[3]!, ids[4]!];
      expect(await store.countBrandsOfUser(userId)).toBe(4);
      expect((await store.listBrandsOfUser(userId, { limit: 10, offset: 0 })).map((b) => b.id)).toEqual(seen);
      expect((await store.listBrandsOfUser(userId, { limit: 2, offset: 1 })).map((b) => b.id)).toEqual(
        seen.slice(1, 3),
      );
      expect(await store.listBrandsOfUser(userId, { limit: 2, offset: 4 })).toEqual([]);
      expect((await store.findBrandOfUser(userId, ids[2]!))?.title).toBe('C');
      expect(await store.findBrandOfUser(userId, ids[1]!)).toBeUndefined();
      expect(await store.countBrandsOfUser('usr_nobody')).toBe(0);
    });
  });

  describe('channels and collections', () => {
    it('upserts channels by name within a brand; lists them by id, a page at a time, scoped to the brand', async () => {
      const { store, brandId, otherBrandId, channelIds } = await seedWorkspace(await open());
      const [telegram, mastodon, bluesky] = channelIds;
      expect(
        await store.upsertChannel(brandId, { name: 'Mastodon', type: 'Mastodon', status: 'ACTIVE' }, NOW + 1),
      ).toBe(mastodon);
      expect((await store.findChannel(brandId, mastodon))?.updatedAtMs).toBe(NOW);
      expect(
        await store.upsertChannel(
          brandId,
          { name: 'Mastodon', type: 'Mastodon', status: 'INACTIVE' },
          NOW + 2,
        ),
      ).toBe(mastodon);
      expect(await store.findChannel(brandId, mastodon)).toEqual({
        id: mastodon,
        brandId,
        name: 'Mastodon',
        type: 'Mastodon',
        status: 'INACTIVE',
        createdAtMs: NOW,
        updatedAtMs: NOW + 2,
      });
      expect(await store.findChannel(otherBrandId, mastodon)).toBeUndefined();
      expect(await store.countChannels(brandId)).toBe(3);
      expect((await store.listChannels(brandId, { limit: 10, offset: 0 })).map((c) => c.id)).toEqual([
        bluesky,
        mastodon,
        telegram,
      ]);
      expect((await store.listChannels(brandId, { limit: 1, offset: 1 })).map((c) => c.id)).toEqual([
        mastodon,
      ]);
      // The same name in another brand is another channel.
      expect(
        await store.upsertChannel(
          otherBrandId,
          { name: 'Mastodon', type: 'Mastodon', status: 'ACTIVE' },
          NOW,
        ),
      ).not.toBe(mastodon);
    });

    it('sets a channel ACTIVE or INACTIVE with its reason', async () => {
      const { store, brandId, channelIds } = await seedWorkspace(await open());
      await store.setChannelStatus(channelIds[0], 'INACTIVE', 'Disconnected', NOW + MINUTE);
      expect(await store.findChannel(brandId, channelIds[0])).toMatchObject({
        status: 'INACTIVE',
        updatedAtMs: NOW + MINUTE,
      });
      expect((await store.connections.activity(channelIds[0])).statusReason).toBe('Disconnected');
      await store.setChannelStatus(channelIds[0], 'ACTIVE', null, NOW + 2 * MINUTE);
      expect((await store.connections.activity(channelIds[0])).statusReason).toBeNull();
    });

    it('keeps a collection’s channels in the order given; a new membership replaces the old one', async () => {
      const { store, brandId, otherBrandId, channelIds, collectionId } = await seedWorkspace(await open());
      const [telegram, mastodon, bluesky] = channelIds;
      const found = await store.findCollection(brandId, collectionId);
      expect(found).toMatchObject({
        id: collectionId,
        brandId,
        title: 'Everywhere',
        description: null,
        status: 'ACTIVE',
      });
      expect(found?.channels.map((c) => c.id)).toEqual([telegram, mastodon, bluesky]);
      expect(found?.channels[0]).toEqual(await store.findChannel(brandId, telegram));
      expect(await store.findCollection(otherBrandId, collectionId)).toBeUndefined();

      // Unchanged: updatedAtMs stays. Reordered: it moves, and the order is the new one.
      expect(
        await store.upsertCollection(
          brandId,
          { title: 'Everywhere', description: null, channelIds: [telegram, mastodon, bluesky] },
          NOW + 1,
        ),
      ).toBe(collectionId);
      expect((await store.findCollection(brandId, collectionId))?.updatedAtMs).toBe(NOW);
      await store.upsertCollection(
        brandId,
        { title: 'Everywhere', description: null, channelIds: [bluesky, telegram] },
        NOW + 2,
      );
      const reordered = await store.findCollection(brandId, collectionId);
      expect(reordered?.channels.map((c) => c.id)).toEqual([bluesky, telegram]);
      expect(reordered?.updatedAtMs).toBe(NOW + 2);
      await store.upsertCollection(
        brandId,
        { title: 'Everywhere', description: 'All of them', channelIds: [bluesky, telegram] },
        NOW + 3,
      );
      expect(await store.findCollection(brandId, collectionId)).toMatchObject({
        description: 'All of them',
        updatedAtMs: NOW + 3,
      });

      const empty = await store.upsertCollection(
        brandId,
        { title: 'Nowhere', description: null, channelIds: [] },
        NOW,
      );
      const page = await store.listCollections(brandId, { limit: 10, offset: 0 });
      expect(page.map((c) => [c.id, c.channels.map((ch) => ch.id)])).toEqual([
        [collectionId, [bluesky, telegram]],
        [empty, []],
      ]);
      expect((await store.listCollections(brandId, { limit: 1, offset: 1 })).map((c) => c.id)).toEqual([
        empty,
      ]);
      expect(await store.countCollections(brandId)).toBe(2);
      expect(await store.countCollections(otherBrandId)).toBe(1);
    });
  });

  describe('media', () => {
    it('finds media by hash and by ids, within the brand only', async () => {
      const { store, brandId, otherBrandId } = await seedWorkspace(await open());
      const media = {
        id: 'med_a',
        brandId,
        type: 'image/png',
        size: 1234,
        sha256: 'f'.repeat(64),
        path: '/m/a.png',
        createdAtMs: NOW,
        durationMs: null,
      };
      await store.insertMedia(media);
      await store.insertMedia({ ...media, id: 'med_b', sha256: 'e'.repeat(64), path: '/m/b.png' });
      await store.insertMedia({ ...media, id: 'med_c', brandId: otherBrandId });
      expect(await store.findMediaByHash(brandId, 'f'.repeat(64))).toEqual(media);
      expect(await store.findMediaByHash(brandId, '0'.repeat(64))).toBeUndefined();
      expect((await store.findMediaByHash(otherBrandId, 'f'.repeat(64)))?.id).toBe('med_c');
      const found = await store.findMedia(brandId, ['med_b', 'med_a', 'med_c', 'med_x']);
      expect(found.map((m) => m.id).sort()).toEqual(['med_a', 'med_b']);
      expect(await store.findMedia(brandId, [])).toEqual([]);
    });

    it('refuses the same bytes twice in one brand, and goes on working', async () => {
      const { store, brandId } = await seedWorkspace(await open());
      const media = {
        id: 'med_a',
        brandId,
        type: 'image/png',
        size: 1,
        sha256: 'f'.repeat(64),
        path: '/a',
        createdAtMs: NOW,
        durationMs: null,
      };
      await store.insertMedia(media);
      await expect(store.insertMedia({ ...media, id: 'med_b' })).rejects.toThrow();
      expect((await store.findMediaByHash(brandId, media.sha256))?.id).toBe('med_a');
    });

    it("keeps a video's duration, to the millisecond, and no duration for the rest", async () => {
      const { store, brandId } = await seedWorkspace(await open());
      const video = {
        id: 'med_v',
        brandId,
        type: 'video/mp4',
        size: 10,
        sha256: 'd'.repeat(64),
        path: '/v.mp4',
        createdAtMs: NOW,
        durationMs: 141_500,
      };
      const image = { ...video, id: 'med_i', type: 'image/png', sha256: 'c'.repeat(64), durationMs: null };
      await store.insertMedia(video);
      await store.insertMedia(image);
      expect(await store.findMedia(brandId, ['med_v', 'med_i'])).toEqual(
        expect.arrayContaining([video, image]),
      );
      expect((await store.findMediaByHash(brandId, video.sha256))?.durationMs).toBe(141_500);
    });
  });
}
