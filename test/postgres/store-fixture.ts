/**
 * A small workspace written through the store's own upserts, so that the contract suites run alike on
 * any adapter: two brands, three channels of the first in one collection, a user who may see it.
 */
import type { DeliveryRecord, NewDelivery, NewPost, Store } from '../../src/ports.js';

/** 2026-11-21 12:00:00 UTC, as in test/support/local.ts. */
export const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

export type OpenStore = () => Promise<Store>;

export interface Workspace {
  store: Store;
  brandId: number;
  otherBrandId: number;
  /** Telegram, Mastodon, Bluesky, in collection order (the reverse of their ids). */
  channelIds: [number, number, number];
  collectionId: number;
  otherCollectionId: number;
  userId: string;
}

export async function seedWorkspace(store: Store): Promise<Workspace> {
  const brandId = await store.upsertBrand(
    {
      title: 'Northwind Coffee',
      description: 'Roastery',
      timezone: 'America/New_York',
      queueTimes: ['09:00', '17:00'],
    },
    NOW,
  );
  const otherBrandId = await store.upsertBrand(
    { title: 'Contoso', description: null, timezone: 'Asia/Tokyo', queueTimes: ['12:00'] },
    NOW,
  );
  const bluesky = await store.upsertChannel(
    brandId,
    { name: 'Bluesky', type: 'Bluesky', status: 'ACTIVE' },
    NOW,
  );
  const mastodon = await store.upsertChannel(
    brandId,
    { name: 'Mastodon', type: 'Mastodon', status: 'ACTIVE' },
    NOW,
  );
  const telegram = await store.upsertChannel(
    brandId,
    { name: 'Telegram', type: 'Telegram', status: 'ACTIVE' },
    NOW,
  );
  const collectionId = await store.upsertCollection(
    brandId,
    { title: 'Everywhere', description: null, channelIds: [telegram, mastodon, bluesky] },
    NOW,
  );
  const otherChannel = await store.upsertChannel(
    otherBrandId,
    { name: 'X', type: 'X/Twitter', status: 'ACTIVE' },
    NOW,
  );
  const otherCollectionId = await store.upsertCollection(
    otherBrandId,
    { title: 'All', description: null, channelIds: [otherChannel] },
    NOW,
  );
  const userId = await store.upsertUser(
    { name: 'Ada', timezone: 'Europe/London', apiKeyHash: null, brandIds: [brandId] },
    NOW,
  );
  return {
    store,
    brandId,
    otherBrandId,
    channelIds: [telegram, mastodon, bluesky],
    collectionId,
    otherCollectionId,
    userId,
  };
}

let contentCounter = 0;

/** A scheduled post of the workspace's brand, due an hour from NOW unless told otherwise. */
export function newPost(ws: Workspace, changes: Partial<NewPost> = {}): NewPost {
  contentCounter++;
  return {
    brandId: ws.brandId,
    collectionId: ws.collectionId,
    userId: ws.userId,
    publishMode: 'SCHEDULE',
    status: 'scheduled',
    payload: {
      publishMode: 'SCHEDULE',
      caption: `Post ${contentCounter}`,
      scheduledAt: '2026-11-21 08:00:00',
    },
    dueAtMs: NOW + HOUR,
    createdAtMs: NOW,
    idempotencyKey: null,
    contentHash: `hash-${contentCounter}`,
    ...changes,
  };
}

/** A pending delivery of `postId` to each channel of the workspace's collection. */
export function newDeliveries(ws: Workspace, postId: number): NewDelivery[] {
  return ws.channelIds.map((channelId, i) => ({
    postId,
    channelId,
    channelName: ['Telegram', 'Mastodon', 'Bluesky'][i]!,
    channelType: (['Telegram', 'Mastodon', 'Bluesky'] as const)[i]!,
    status: 'pending',
    reason: null,
    notes: [`note ${i}`],
    content: {
      platform: (['Telegram', 'Mastodon', 'Bluesky'] as const)[i]!,
      format: 'feed',
      caption: 'Hi',
      media: [],
    },
  }));
}

/** A publishing post with a pending delivery to each channel; the delivery ids, in channel order. */
export async function postWithDeliveries(
  ws: Workspace,
  changes: Partial<NewPost> = {},
): Promise<{ postId: number; ids: [number, number, number] }> {
  const postId = await ws.store.posts.insert(newPost(ws, { status: 'publishing', ...changes }));
  await ws.store.deliveries.insertMany(newDeliveries(ws, postId), NOW);
  const ids = (await ws.store.deliveries.ofPost(postId)).map((delivery) => delivery.id);
  return { postId, ids: ids as [number, number, number] };
}

/** The deliveries of a post, by id. */
export async function deliveriesById(ws: Workspace, postId: number): Promise<Map<number, DeliveryRecord>> {
  return new Map((await ws.store.deliveries.ofPost(postId)).map((delivery) => [delivery.id, delivery]));
}
