/**
 * The narrow interfaces the service needs from the outside world. The store is synchronous because
 * both SQLite drivers are; everything that may wait on I/O (media, publishing) is asynchronous.
 */
import type { CommentStatus, DeliveryStatus, PlatformContent } from './domain/delivery.js';
import type { PostPayload, PostStatus } from './domain/post-schemas.js';
import type { ChannelType, PublishMode } from './domain/schemas.js';

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

export type { PostStatus };

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
  idempotencyKey: string | null;
  /** Hash of collection + payload, to recognise the same post created twice. */
  contentHash: string;
}

export interface PostRecord extends NewPost {
  id: number;
  updatedAtMs: number;
  publishedAtMs: number | null;
}

export interface PostChanges {
  collectionId: number;
  publishMode: PublishMode;
  status: PostStatus;
  payload: PostPayload;
  dueAtMs: number | null;
  contentHash: string;
}

export interface PostFilter {
  status?: PostStatus | undefined;
  collectionId?: number | undefined;
  /** Due at or after (UTC ms). */
  fromMs?: number | undefined;
  /** Due before (UTC ms). */
  toMs?: number | undefined;
  order: 'newest' | 'calendar';
}

export interface DeliveryRecord {
  id: number;
  postId: number;
  channelId: number;
  channelName: string;
  channelType: ChannelType;
  status: DeliveryStatus;
  reason: string | null;
  notes: string[];
  content: PlatformContent | null;
  externalId: string | null;
  attempts: number;
  sentAtMs: number | null;
  commentStatus: CommentStatus;
  commentDueAtMs: number | null;
  commentSentAtMs: number | null;
  commentReason: string | null;
}

export type NewDelivery = Pick<
  DeliveryRecord,
  'postId' | 'channelId' | 'channelName' | 'channelType' | 'status' | 'reason' | 'notes' | 'content'
>;

/**
 * What a search for a brand's next free queue slot learned: every slot of the queue `schedule` (timezone
 * and queue times) after `afterMs` and before `untilMs` is held by a queued or scheduled post of the
 * brand. The next search starts at `untilMs` instead of walking the taken run again.
 */
export interface HeldQueueRun {
  schedule: string;
  afterMs: number;
  untilMs: number;
}

/** Posts of a brand. Every read is scoped to the brand the caller may see. */
export interface PostStore {
  insert(post: NewPost): number;
  find(brandId: number, postId: number): PostRecord | undefined;
  /** By id alone, for the publishing engine (no user is acting there). */
  get(postId: number): PostRecord | undefined;
  findByIdempotencyKey(brandId: number, key: string): PostRecord | undefined;
  /** The latest post of the brand with this content hash created at or after `sinceMs`, not cancelled. */
  findRecentSame(brandId: number, contentHash: string, sinceMs: number): PostRecord | undefined;
  count(brandId: number, filter: PostFilter): number;
  list(brandId: number, filter: PostFilter, window: PageWindow): PostRecord[];
  update(postId: number, changes: PostChanges, nowMs: number): void;
  setStatus(postId: number, status: PostStatus, nowMs: number, publishedAtMs?: number | null): void;
  remove(postId: number): void;
  /** Due times of the brand's queued and scheduled posts at or after `fromMs`, ascending (an index range). */
  plannedTimesFrom(brandId: number, fromMs: number, limit: number): number[];
  /**
   * The run last remembered for the brand and this schedule, while it is still true: the store narrows
   * or forgets it on every change that could free a time in it (a planned post moved, started,
   * cancelled or deleted; a rolled-back transaction; another connection's commit).
   */
  heldQueueRun(brandId: number, schedule: string): HeldQueueRun | undefined;
  rememberHeldQueueRun(brandId: number, run: HeldQueueRun): void;
  /** Queued (QUEUE mode) posts of the brand due at or after `fromMs`, soonest first. */
  queued(brandId: number, fromMs: number, limit: number): PostRecord[];
  /** Queued and scheduled posts due at or before `nowMs`, soonest first. */
  due(nowMs: number, limit: number): PostRecord[];
  /** The earliest due time of a queued or scheduled post, if any. */
  nextDueAtMs(): number | undefined;
}

/** Deliveries and their auto-comments; the claim methods are what make a delivery happen once. */
export interface DeliveryStore {
  insertMany(deliveries: readonly NewDelivery[]): void;
  ofPost(postId: number): DeliveryRecord[];
  ofPosts(postIds: readonly number[]): Map<number, DeliveryRecord[]>;
  /** Whether any delivery waits to be claimed. */
  hasPending(): boolean;
  /** Moves up to `limit` pending deliveries to `sending` (attempts + 1) and returns them. */
  claimPending(limit: number, nowMs: number): DeliveryRecord[];
  markSent(deliveryId: number, externalId: string | null, nowMs: number, commentDueAtMs: number | null): void;
  markFailed(deliveryId: number, reason: string): void;
  /** Deliveries `sending` since before `claimedBeforeMs`: a process that stopped may have left them. */
  inDoubt(claimedBeforeMs: number): DeliveryRecord[];
  /** Puts an in-doubt delivery back to `pending` (for an idempotent publisher). */
  retry(deliveryId: number): void;
  claimDueComments(limit: number, nowMs: number): DeliveryRecord[];
  markComment(deliveryId: number, status: 'sent' | 'failed', nowMs: number, reason: string | null): void;
  /** Comments left `sending` by a process that stopped. */
  commentsInDoubt(): DeliveryRecord[];
  retryComment(deliveryId: number): void;
  nextCommentDueAtMs(): number | undefined;
  counts(postId: number): Record<DeliveryStatus, number>;
}

/** The sandbox publisher's record of what each platform would have received. */
export interface SandboxOutbox {
  /** Records a delivery or comment once; false when it was already recorded. */
  record(
    kind: 'delivery' | 'comment',
    deliveryId: number,
    platform: string,
    body: unknown,
    nowMs: number,
  ): boolean;
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
  /** Users that have no API key yet (the demo user of a fresh store). */
  usersWithoutKey(): UserRecord[];
  setApiKeyHash(userId: string, apiKeyHash: string): void;

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

  readonly posts: PostStore;
  readonly deliveries: DeliveryStore;
  readonly sandbox: SandboxOutbox;

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

/** How a caller follows and stops a long upload. */
export interface TransferOptions {
  /** Aborts the transfer; whatever was staged is discarded. */
  signal?: AbortSignal | undefined;
  /** Told how many bytes have been read so far (and the total, when known). */
  onProgress?: ((bytes: number, total: number | undefined) => void) | undefined;
}

export interface MediaStore {
  /**
   * Streams `source` into a staging file, stopping as soon as it exceeds `limitBytes`. Rejects (and
   * leaves nothing) when `signal` aborts.
   */
  stage(
    source: AsyncIterable<Uint8Array>,
    limitBytes: number,
    options?: TransferOptions & { total?: number | undefined },
  ): Promise<StagedMedia & { token: string }>;
  /** Moves a staged file to its permanent place; returns the stored path. */
  commit(token: string, brandId: number, mediaId: string): Promise<string>;
  /** Removes a staged file; never throws. */
  discard(token: string): Promise<void>;
  /** Removes a stored file; never throws. */
  remove(storedPath: string): Promise<void>;
}

/** One delivery handed to a publisher. `deliveryId` is stable: a publisher may use it to deduplicate. */
export interface DeliveryJob {
  deliveryId: number;
  postId: number;
  brandId: number;
  channel: { id: number; name: string; type: ChannelType };
  content: PlatformContent;
}

/** The auto-comment of a sent delivery. */
export interface CommentJob {
  deliveryId: number;
  postId: number;
  brandId: number;
  channel: { id: number; name: string; type: ChannelType };
  /** The id the platform gave the post when it was delivered. */
  externalId: string | null;
  comment: string;
}

export type PublishOutcome = { ok: true; externalId: string | null } | { ok: false; reason: string };

/**
 * What the publishing engine did to a post (published, a delivery failed, a webhook retried), worded for
 * the people who use the post's brand: MCP sessions show it as a log message. Diagnostics for the
 * operator (stack traces) go to each component's `log` instead.
 */
export interface PublishingEvent {
  level: 'info' | 'warning' | 'error';
  message: string;
  brandId: number;
  postId: number;
}

/** Where the publishing engine reports its events; must not throw. */
export type PublishingEventSink = (event: PublishingEvent) => void;

/** Sends deliveries to the platforms (or stands in for them). */
export interface Publisher {
  readonly name: string;
  /**
   * True when sending the same job twice has the effect of sending it once (the publisher deduplicates
   * by `deliveryId`). Only then is a delivery whose outcome a crash left unknown sent again.
   */
  readonly idempotent: boolean;
  deliver(job: DeliveryJob): Promise<PublishOutcome>;
  comment(job: CommentJob): Promise<PublishOutcome>;
  /** Releases what the publisher holds (connections); optional. */
  close?(): Promise<void>;
}

/** A file being downloaded: its bytes, and the total the server announced (not trusted, only shown). */
export interface Download {
  body: AsyncIterable<Uint8Array>;
  announcedBytes: number | undefined;
}

/** Downloads media from public URLs, refusing private addresses and endless transfers. */
export interface MediaDownloader {
  /** Rejects with a ValidationError on `url` for a URL it will not or cannot fetch. */
  open(url: string, signal?: AbortSignal): Promise<Download>;
}
