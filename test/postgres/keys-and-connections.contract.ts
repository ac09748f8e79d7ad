/**
 * The Store port's API keys and channel connections, for any adapter. Each test opens a fresh store.
 */
import { describe, expect, it } from 'vitest';
import type { ConnectionUpsert } from '../../src/ports.js';
import { MINUTE, NOW, type OpenStore, seedWorkspace } from './store-fixture.js';

const hashOf = (c: string) => c.repeat(64);

export function keysAndConnectionsContract(open: OpenStore): void {
  describe('API keys', () => {
    it('adds keys, finds one by hash with its user, lists a user’s keys oldest first, revoked ones included', async () => {
      const { store, userId } = await seedWorkspace(await open());
      const first = await store.apiKeys.add(
        userId,
        { keyHash: hashOf('1'), prefix: 'spk_One', origin: 'cli' },
        NOW,
      );
      expect(first).toEqual({
        id: first.id,
        userId,
        prefix: 'spk_One',
        origin: 'cli',
        createdAtMs: NOW,
        lastUsedAtMs: null,
        revokedAtMs: null,
      });
      const second = await store.apiKeys.add(
        userId,
        { keyHash: hashOf('2'), prefix: null, origin: 'serve' },
        NOW + 1,
      );
      expect(await store.apiKeys.revoke(first.id, NOW + MINUTE)).toBe(true);
      expect(await store.apiKeys.revoke(first.id, NOW + 2 * MINUTE)).toBe(false);
      await store.apiKeys.recordUse(second.id, NOW + 3 * MINUTE);
      expect(await store.apiKeys.ofUser(userId)).toEqual([
        { ...first, revokedAtMs: NOW + MINUTE },
        { ...second, lastUsedAtMs: NOW + 3 * MINUTE },
      ]);
      const found = await store.apiKeys.findByHash(hashOf('1'));
      expect(found).toEqual({
        key: { ...first, revokedAtMs: NOW + MINUTE },
        keyHash: hashOf('1'),
        user: await store.getUser(userId),
      });
      expect(await store.apiKeys.findByHash(hashOf('9'))).toBeUndefined();
      expect(await store.apiKeys.ofUser('usr_nobody')).toEqual([]);
      await expect(
        store.apiKeys.add(userId, { keyHash: hashOf('2'), prefix: null, origin: 'cli' }, NOW),
      ).rejects.toThrow();
    });

    it('adds a first key only to a user who never had one (a revoked key counts)', async () => {
      const { store, userId } = await seedWorkspace(await open());
      expect(
        await store.apiKeys.addFirst(userId, { keyHash: hashOf('1'), prefix: 'spk_1', origin: 'serve' }, NOW),
      ).toBe(true);
      expect(
        await store.apiKeys.addFirst(userId, { keyHash: hashOf('2'), prefix: 'spk_2', origin: 'serve' }, NOW),
      ).toBe(false);
      const [key] = await store.apiKeys.ofUser(userId);
      await store.apiKeys.revoke(key!.id, NOW);
      expect(
        await store.apiKeys.addFirst(userId, { keyHash: hashOf('3'), prefix: 'spk_3', origin: 'serve' }, NOW),
      ).toBe(false);
      expect((await store.apiKeys.ofUser(userId)).map((k) => k.prefix)).toEqual(['spk_1']);
    });
  });

  describe('OAuth sign-ins waiting for their callback', () => {
    it('keeps a sign-in until it is taken, once; drops the expired ones when the next begins', async () => {
      const { store, brandId } = await seedWorkspace(await open());
      const sealed = new Uint8Array([1, 2, 3, 250]);
      await store.connections.addSignIn(
        { stateHash: 'a'.repeat(64), brandId, sealed, expiresAtMs: NOW + MINUTE },
        NOW,
      );
      await store.connections.addSignIn(
        { stateHash: 'b'.repeat(64), brandId, sealed, expiresAtMs: NOW + 2 * MINUTE },
        NOW,
      );
      expect(await store.connections.takeSignIn('a'.repeat(64))).toEqual({
        stateHash: 'a'.repeat(64),
        brandId,
        sealed,
        expiresAtMs: NOW + MINUTE,
      });
      // Taken once: a second callback with the same state finds nothing.
      expect(await store.connections.takeSignIn('a'.repeat(64))).toBeUndefined();
      // "b" expired by the time "c" begins: dropped then.
      await store.connections.addSignIn(
        { stateHash: 'c'.repeat(64), brandId, sealed, expiresAtMs: NOW + 20 * MINUTE },
        NOW + 3 * MINUTE,
      );
      expect(await store.connections.takeSignIn('b'.repeat(64))).toBeUndefined();
      expect((await store.connections.takeSignIn('c'.repeat(64)))?.brandId).toBe(brandId);
    });
  });

  describe('connections', () => {
    const connection: ConnectionUpsert = {
      kind: 'mastodon',
      account: '@ada@example.social',
      accountId: '109',
      endpoint: 'https://example.social',
      profileUrl: 'https://example.social/@ada',
      settings: { visibility: 'public', nested: { z: 1, a: [1, 2] } },
      capabilities: {
        textLimit: 500,
        textUnit: 'characters',
        maxMedia: 4,
        mediaTypes: ['image/png'],
        requiresMedia: false,
        polls: true,
        pollWithMedia: false,
      },
      sealedSecret: new Uint8Array([0, 1, 2, 254, 255]),
      secretEnv: null,
    };

    it('saves a connection (secret bytes and JSON kept exactly), replaces it, and clears the channel’s last error', async () => {
      const { store, brandId, channelIds } = await seedWorkspace(await open());
      const [, mastodon] = channelIds;
      await store.connections.recordError(mastodon, 'Token expired', NOW);
      await store.setChannelStatus(mastodon, 'INACTIVE', 'Reconnect', NOW);
      await store.connections.save(mastodon, connection, NOW + MINUTE);
      const saved = await store.connections.find(mastodon);
      expect(saved).toEqual({
        ...connection,
        channelId: mastodon,
        connectedAtMs: NOW + MINUTE,
        updatedAtMs: NOW + MINUTE,
      });
      expect(saved?.sealedSecret).toBeInstanceOf(Uint8Array);
      expect(JSON.stringify(saved?.settings)).toBe(JSON.stringify(connection.settings));
      expect(await store.connections.activity(mastodon)).toEqual({
        statusReason: null,
        lastError: null,
        lastErrorAtMs: null,
        lastPublishedAtMs: null,
      });

      await store.connections.save(
        mastodon,
        { ...connection, account: '@ada2', sealedSecret: null, secretEnv: 'TOKEN' },
        NOW + 2 * MINUTE,
      );
      expect(await store.connections.find(mastodon)).toMatchObject({
        account: '@ada2',
        sealedSecret: null,
        secretEnv: 'TOKEN',
        connectedAtMs: NOW + 2 * MINUTE,
      });
      expect(
        await store.connections.findByAccount(brandId, 'mastodon', 'https://example.social', '109'),
      ).toBe(mastodon);
      expect(
        await store.connections.findByAccount(brandId, 'bluesky', 'https://example.social', '109'),
      ).toBeUndefined();
      expect(await store.connections.find(channelIds[0])).toBeUndefined();
    });

    it('replaces only a secret that is there, erases it on disconnect, and says when there was nothing', async () => {
      const { store, channelIds } = await seedWorkspace(await open());
      const [telegram, mastodon, bluesky] = channelIds;
      await store.connections.save(mastodon, connection, NOW);
      await store.connections.save(
        bluesky,
        { ...connection, kind: 'bluesky', sealedSecret: null, secretEnv: 'BSKY' },
        NOW,
      );
      await store.connections.setSecret(mastodon, new Uint8Array([9, 9]), NOW + 1);
      await store.connections.setSecret(bluesky, new Uint8Array([9, 9]), NOW + 1);
      expect(await store.connections.find(mastodon)).toMatchObject({
        sealedSecret: new Uint8Array([9, 9]),
        updatedAtMs: NOW + 1,
      });
      expect(await store.connections.find(bluesky)).toMatchObject({ sealedSecret: null, updatedAtMs: NOW });

      const both = await store.connections.ofChannels([telegram, mastodon, bluesky]);
      expect([...both.keys()].sort()).toEqual([mastodon, bluesky].sort());
      expect((await store.connections.ofChannels([])).size).toBe(0);

      expect(await store.connections.erase(mastodon, NOW + 2)).toBe(true);
      expect(await store.connections.find(mastodon)).toMatchObject({
        sealedSecret: null,
        secretEnv: null,
        updatedAtMs: NOW + 2,
      });
      expect(await store.connections.erase(telegram, NOW + 2)).toBe(false);
    });

    it('records what a channel did: the latest publication only moves forward, the last error is kept', async () => {
      const { store, channelIds } = await seedWorkspace(await open());
      const [telegram] = channelIds;
      await store.connections.recordPublished(telegram, NOW + 2 * MINUTE);
      await store.connections.recordPublished(telegram, NOW + MINUTE);
      await store.connections.recordError(telegram, 'Rate limited', NOW + 3 * MINUTE);
      expect(await store.connections.activity(telegram)).toEqual({
        statusReason: null,
        lastError: 'Rate limited',
        lastErrorAtMs: NOW + 3 * MINUTE,
        lastPublishedAtMs: NOW + 2 * MINUTE,
      });
      expect(await store.connections.activity(999_999)).toEqual({
        statusReason: null,
        lastError: null,
        lastErrorAtMs: null,
        lastPublishedAtMs: null,
      });
    });

    it('has an id of its own, the same on every call', async () => {
      const store = await open();
      const id = await store.connections.storeId();
      expect(id).toMatch(/^[0-9a-f]{16}$/);
      expect(await store.connections.storeId()).toBe(id);
    });
  });
}
