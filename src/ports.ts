/**
 * The narrow interfaces the service needs from the outside world. The store is synchronous because
 * both SQLite drivers are; everything that may wait on I/O (media, publishing) is asynchronous.
 */
import type { ChannelType, PostPayload, PublishMode } from './domain/schemas.js';

/** Wall-clock time, injected so that tests can move it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface UserRecord {
  id: string;
  name: string;
  timezone: string;
  joinedAtMs: number;
}

export interface BrandRecord {
  id: number;
  title: string;
  description: string | null;
  timezone: string;
  queueTimes: string[];
  createdAtMs: number;
  updatedAtMs: number;
}

export interface ChannelRecord {
  id: number;
  brandId: number;
  name: string;
  type: ChannelType;
  status: 'ACTIVE' | 'INACTIVE';
  createdAtMs: number;
  updatedAtMs: number;
}

export interface CollectionRecord {
  id: number;
  brandId: number;
  title: string;
  description: string | null;
  status: string;
  createdAtMs: number;
  updatedAtMs: number;
  channels: ChannelRecord[];
}

export interface MediaRecord {
  id: string;
  brandId: number;
  type: string;
  size: number;
  sha256: string;
  path: string;
  createdAtMs: number;
}

/** The lifecycle states a post has so far; delivery states come with the publishing engine. */
export type PostStatus = 'draft' | 'queued' | 'scheduled' | 'publishing';

export interface NewPost {
  brandId: number;
  collectionId: number;
  userId: string;
  publishMode: PublishMode;
  status: PostStatus;
  payload: PostPayload;
  /** When the post is due to go out (UTC ms); for a DRAFT, the planned time if one was given. */
  dueAtMs: number | null;
  createdAtMs: number;
}

export interface PageWindow {
  limit: number;
  offset: number;
}

/** Workspace declarations, upserted by natural key. */
export interface BrandUpsert {
  title: string;
  description: string | null;
  timezone: string;
  queueTimes: string[];
}

export interface ChannelUpsert {
  name: string;
  type: ChannelType;
  status: 'ACTIVE' | 'INACTIVE';
}

export interface CollectionUpsert {
  title: string;
  description: string | null;
  channelIds: number[];
}

export interface UserUpsert {
  name: string;
  timezone: string;
  /** SHA-256 of the API key; null for a user that only acts locally (the demo user). */
  apiKeyHash: string | null;
  brandIds: number[];
}

export interface Store {
  /** Runs `work` in one transaction; everything or nothing is written. */
  transaction<T>(work: () => T): T;
  close(): void;

  isEmpty(): boolean;
  countUsers(): number;
  onlyUser(): UserRecord | undefined;
  findUserByKeyHash(apiKeyHash: string): { user: UserRecord; apiKeyHash: string } | undefined;
  getUser(userId: string): UserRecord | undefined;

  countBrandsOfUser(userId: string): number;
  listBrandsOfUser(userId: string, window: PageWindow): BrandRecord[];
  findBrandOfUser(userId: string, brandId: number): BrandRecord | undefined;

  countChannels(brandId: number): number;
  listChannels(brandId: number, window: PageWindow): ChannelRecord[];
  findChannel(brandId: number, channelId: number): ChannelRecord | undefined;

  countCollections(brandId: number): number;
  listCollections(brandId: number, window: PageWindow): CollectionRecord[];
  findCollection(brandId: number, collectionId: number): CollectionRecord | undefined;

  findMediaByHash(brandId: number, sha256: string): MediaRecord | undefined;
  findMedia(brandId: number, mediaIds: readonly string[]): MediaRecord[];
  insertMedia(media: MediaRecord): void;

  insertPost(post: NewPost): number;
  /** Due times of the brand's queued and scheduled posts at or after `fromMs`, ascending (an index range). */
  plannedTimesFrom(brandId: number, fromMs: number, limit: number): number[];

  findBrandIdByTitle(title: string): number | undefined;
  upsertBrand(brand: BrandUpsert, nowMs: number): number;
  upsertChannel(brandId: number, channel: ChannelUpsert, nowMs: number): number;
  upsertCollection(brandId: number, collection: CollectionUpsert, nowMs: number): number;
  upsertUser(user: UserUpsert, nowMs: number): string;
}

/** A file being written into the media store: size, hash and first bytes known once fully read. */
export interface StagedMedia {
  size: number;
  sha256: string;
  /** The first bytes of the file, enough to detect its type. */
  head: Uint8Array;
  /** True when the source was longer than the limit; reading stopped there. */
  tooLarge: boolean;
}

export interface MediaStore {
  /** Streams `source` into a staging file, stopping as soon as it exceeds `limitBytes`. */
  stage(source: AsyncIterable<Uint8Array>, limitBytes: number): Promise<StagedMedia & { token: string }>;
  /** Moves a staged file to its permanent place; returns the stored path. */
  commit(token: string, brandId: number, mediaId: string): Promise<string>;
  /** Removes a staged file; never throws. */
  discard(token: string): Promise<void>;
  /** Removes a stored file; never throws. */
  remove(storedPath: string): Promise<void>;
}
