/**
 * The narrow interfaces the service needs from the outside world. Every one is asynchronous, the store
 * included: its SQLite adapter runs each call synchronously when its turn comes, a server database
 * (PostgreSQL) answers over the network, and the service awaits both alike. The records they pass are in
 * records.ts, and the media, publisher and signal ports in media-port.ts, publisher-port.ts and
 * signal-port.ts (all re-exported here).
 */
import type { DeliveryStatus } from './domain/delivery.js';
import type { PostStatus } from './domain/post-schemas.js';
import type { JobStore } from './job-port.js';
import type {
  ApiKeyRecord,
  BrandRecord,
  BrandUpsert,
  ChannelActivity,
  ChannelRecord,
  ChannelUpsert,
  CollectionRecord,
  CollectionUpsert,
  ConnectionRecord,
  ConnectionUpsert,
  DeliveryRecord,
  MediaRecord,
  NewApiKey,
  NewDelivery,
  NewPost,
  PageWindow,
  PostChanges,
  PostFilter,
  PostRecord,
  UserRecord,
  UserUpsert,
} from './records.js';

export type * from './job-port.js';
export { JOB_KINDS } from './job-port.js';
export type * from './media-port.js';
export type * from './publisher-port.js';
export type * from './records.js';
export { type EventRelay, type PlanSignal, pollingOnly } from './signal-port.js';
export type { PostStatus };

/** Wall-clock time, injected so that tests can move it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * What a search for a brand's next free queue slot learned: every slot of the queue `schedule` (timezone
 * and queue times) after `afterMs` and before `untilMs` is held by a queued or scheduled post of the
 * brand. The next search starts at `untilMs` instead of walking the taken run again.
 */
export interface HeldQueueRun {
  schedule: string;
  afterMs: number;
  untilMs: number;
  /**
   * As the store answers a run one change old (another process's): the times that change freed. Those
   * that are slots of the queue and lie in the run end it there; the others (a scheduled post's odd
   * minute) free no slot.
   */
  freedMs?: readonly number[];
}

/** Posts of a brand. Every read is scoped to the brand the caller may see. */
export interface PostStore {
  insert(post: NewPost): Promise<number>;
  /**
   * Inserts the post unless the brand has an earlier one it repeats (create_post's duplicate rule), in
   * one statement: with an idempotency key, a post of the brand with that key; without one, a post of the
   * same content hash created at or after `sameSinceMs` and not cancelled (findRecentSame). The new
   * post's id; undefined when nothing was inserted (findByIdempotencyKey or findRecentSame reads the
   * earlier post).
   */
  insertUnlessRepeated(post: NewPost, sameSinceMs: number): Promise<number | undefined>;
  find(brandId: number, postId: number): Promise<PostRecord | undefined>;
  /** By id alone, for the publishing engine (no user is acting there). */
  get(postId: number): Promise<PostRecord | undefined>;
  findByIdempotencyKey(brandId: number, key: string): Promise<PostRecord | undefined>;
  /** The latest post of the brand with this content hash created at or after `sinceMs`, not cancelled. */
  findRecentSame(brandId: number, contentHash: string, sinceMs: number): Promise<PostRecord | undefined>;
  count(brandId: number, filter: PostFilter): Promise<number>;
  list(brandId: number, filter: PostFilter, window: PageWindow): Promise<PostRecord[]>;
  update(postId: number, changes: PostChanges, nowMs: number): Promise<void>;
  setStatus(postId: number, status: PostStatus, nowMs: number, publishedAtMs?: number | null): Promise<void>;
  /** Moves a `publishing` post to its final status; false when it was not publishing (settled already). */
  finishPublishing(
    postId: number,
    status: PostStatus,
    nowMs: number,
    publishedAtMs: number | null,
  ): Promise<boolean>;
  remove(postId: number): Promise<void>;
  /** Due times of the brand's queued and scheduled posts at or after `fromMs`, ascending (an index range). */
  plannedTimesFrom(brandId: number, fromMs: number, limit: number): Promise<number[]>;
  /**
   * The run last remembered for the brand and this schedule, while it is still true: the store narrows
   * or forgets it on every change that could free a time in it (a planned post moved, started,
   * cancelled or deleted; a rolled-back transaction; another connection's commit).
   */
  heldQueueRun(brandId: number, schedule: string): Promise<HeldQueueRun | undefined>;
  rememberHeldQueueRun(brandId: number, run: HeldQueueRun): Promise<void>;
  /** Queued (QUEUE mode) posts of the brand due at or after `fromMs`, soonest first. */
  queued(brandId: number, fromMs: number, limit: number): Promise<PostRecord[]>;
  /** Queued and scheduled posts due at or before `nowMs` (of one brand, when given), soonest first. */
  due(nowMs: number, limit: number, brandId?: number): Promise<PostRecord[]>;
  /** The earliest due time of a queued or scheduled post, if any. */
  nextDueAtMs(): Promise<number | undefined>;
}

/**
 * Who holds a claim and until when. A claim is taken by one scheduler (`owner`, unique per running
 * scheduler) for a lease that its owner renews while it works; only an expired lease may be taken over.
 */
export interface Claim {
  owner: string;
  /** The lease ends at this instant (UTC ms) unless renewed. */
  leaseUntilMs: number;
}

/** What a delivery that was sent keeps. */
export interface SentDelivery {
  externalId: string | null;
  url: string | null;
}

/**
 * Deliveries: one post going to one channel, and what came of it. What is done to send them (claims,
 * leases, retries, steps) is their jobs' (`JobStore`); a delivery's row changes in the transaction that
 * ends or reschedules its job, after the job's change said the claim was still the owner's.
 */
export interface DeliveryStore {
  /** Adds the deliveries of a post; each pending one gets its send job, due at `nowMs`. */
  insertMany(deliveries: readonly NewDelivery[], nowMs: number): Promise<void>;
  ofPost(postId: number): Promise<DeliveryRecord[]>;
  ofPosts(postIds: readonly number[]): Promise<Map<number, DeliveryRecord[]>>;
  get(deliveryId: number): Promise<DeliveryRecord | undefined>;
  /** The delivery went out. */
  markSent(deliveryId: number, sent: SentDelivery, nowMs: number): Promise<void>;
  /** The delivery failed for good, with the reason. */
  markFailed(deliveryId: number, reason: string): Promise<void>;
  /** The delivery waits (`pending`: a retry; `sending`: a step under way at the platform), with why. */
  markWaiting(deliveryId: number, status: 'pending' | 'sending', reason: string | null): Promise<void>;
  /** Adds a note to the delivery (what happened after it was sent: a poll that could not be closed). */
  addNote(deliveryId: number, note: string): Promise<void>;
  /**
   * How many of the post's deliveries are in each status. In a transaction (the post being settled),
   * read after every other transaction that may settle the post at the same time has ended: the store
   * holds the post against them until this one ends.
   */
  counts(postId: number): Promise<Record<DeliveryStatus, number>>;
}

/** Channel connections (connect / disconnect) and what the engine learns about each channel. */
export interface ConnectionStore {
  find(channelId: number): Promise<ConnectionRecord | undefined>;
  ofChannels(channelIds: readonly number[]): Promise<Map<number, ConnectionRecord>>;
  /** The channels signed in (a secret stored or named) with one of these kinds, by channel (keep-signed-in.ts). */
  signedInOfKinds(kinds: readonly string[]): Promise<{ channelId: number; kind: string }[]>;
  /** Creates or replaces a channel's connection, and clears the channel's last error. */
  save(channelId: number, connection: ConnectionUpsert, nowMs: number): Promise<void>;
  /** Replaces the sealed secret of a connection that still has one (a refreshed session). */
  setSecret(channelId: number, sealedSecret: Uint8Array, nowMs: number): Promise<void>;
  /** Erases a connection's secret (disconnect); false when the channel has no connection. */
  erase(channelId: number, nowMs: number): Promise<boolean>;
  activity(channelId: number): Promise<ChannelActivity>;
  recordPublished(channelId: number, nowMs: number): Promise<void>;
  recordError(channelId: number, error: string, nowMs: number): Promise<void>;
  /** The channel of the brand connected to this account of this platform, if any. */
  findByAccount(
    brandId: number,
    kind: string,
    endpoint: string,
    accountId: string,
  ): Promise<number | undefined>;
  /** A random id of this store, made once: part of every idempotency key sent to a platform. */
  storeId(): Promise<string>;
  /**
   * Keeps an OAuth sign-in begun on `serve` (its request sealed, under the SHA-256 of its `state`)
   * until it expires; sign-ins expired by `nowMs` are dropped.
   */
  addSignIn(signIn: PendingSignIn, nowMs: number): Promise<void>;
  /** Takes a sign-in once: gone afterwards, expired or not; undefined when there is none. */
  takeSignIn(stateHash: string): Promise<PendingSignIn | undefined>;
}

/** An OAuth sign-in waiting for its callback (src/oauth/server-sign-in.ts). */
export interface PendingSignIn {
  stateHash: string;
  brandId: number;
  /** The request (user, platform, collections, PKCE verifier…), sealed like a channel's secret. */
  sealed: Uint8Array;
  expiresAtMs: number;
}

/**
 * API keys: a user may have several; only their SHA-256 hashes are stored. A revoked key stays listed
 * (and keeps its hash, so that importing the same key again does not bring it back).
 */
export interface ApiKeyStore {
  /** The key with this hash, revoked or not, and its user. */
  findByHash(keyHash: string): Promise<{ key: ApiKeyRecord; keyHash: string; user: UserRecord } | undefined>;
  /** A user's keys, oldest first, revoked ones included. */
  ofUser(userId: string): Promise<ApiKeyRecord[]>;
  add(userId: string, key: NewApiKey, nowMs: number): Promise<ApiKeyRecord>;
  /** Adds a user's first key; false when the user has or had one (added meanwhile by another process). */
  addFirst(userId: string, key: NewApiKey, nowMs: number): Promise<boolean>;
  /** Records that the key was accepted at `nowMs`. */
  recordUse(keyId: number, nowMs: number): Promise<void>;
  /** Refuses the key from now on; false when it was revoked already. */
  revoke(keyId: number, nowMs: number): Promise<boolean>;
}

/** The sandbox publisher's record of what each platform would have received. */
export interface SandboxOutbox {
  /**
   * Records a delivery or comment: its body once, and every send in a count (`sends`), so that a
   * delivery sent twice shows even though the sandbox, being idempotent, keeps one body.
   */
  record(
    kind: 'delivery' | 'comment',
    deliveryId: number,
    platform: string,
    body: unknown,
    nowMs: number,
  ): Promise<void>;
}

/**
 * What a transaction reads and then writes, for a store whose transactions can run side by side (a
 * server database shared by several instances): a brand (its posts, queue slots, idempotency keys and
 * due posts starting), or one post of it (its deliveries and its settling). A transaction on a brand
 * runs alone among those on that brand and on its posts; transactions on posts of a brand run side by
 * side, and so do those of different brands; a transaction without a target runs alone. Work
 * that names a target reads and then writes nothing outside it (anything else it writes is a single
 * conditional statement, safe by itself). A store may run every transaction alone, as SQLite does.
 */
export interface TransactionTarget {
  brandId: number;
  /**
   * A post of the brand: the transaction records that post's deliveries and settles it, nothing else of
   * the brand. Transactions on posts of one brand (one post too) may run side by side; `counts` makes
   * the one that settles the post wait for the others that might.
   */
  postId?: number;
  /** It looks for the brand's next free queue slot: a store may read the walk's start as it begins. */
  walksQueue?: boolean;
}

export interface Store {
  /**
   * Runs `work` in one transaction: everything or nothing is written. `work` is given the store bound to
   * the transaction and must use it (`tx`), not this store, for everything it reads and writes: what the
   * store does meanwhile for other callers waits for the transaction to end, or runs beside it on its own
   * connection, but never joins it. `target` says what it reads and then writes (TransactionTarget);
   * without one it runs alone. `tx.transaction(...)` nests, under the outer transaction's target: when
   * its `work` throws, only its own writes are undone, and the outer transaction goes on if its caller
   * catches the error.
   */
  transaction<T>(work: (tx: Store) => Promise<T>, target?: TransactionTarget): Promise<T>;
  /**
   * As `transaction`, unless another transaction holds the target's brand right now (another process
   * starting its due posts): then `work` does not run, and the answer is false, at once rather than after
   * a wait. A store whose transactions run one at a time (SQLite) always runs it.
   */
  tryTransaction(work: (tx: Store) => Promise<void>, target: TransactionTarget): Promise<boolean>;
  close(): Promise<void>;
  /** Answers a trivial query: the store can be reached and used now (a health check). */
  ping(): Promise<void>;
  /**
   * Tells the other processes on the store that the plan changed (PlanSignal), as part of the transaction
   * under way: when it commits, and only if it does, so that a process killed right after its commit has
   * told them all the same. Outside a transaction, at once. A store whose processes cannot reach one
   * another (SQLite) does nothing: they poll.
   */
  announcePlanChange(): Promise<void>;

  isEmpty(): Promise<boolean>;
  countUsers(): Promise<number>;
  onlyUser(): Promise<UserRecord | undefined>;
  /** Every user, oldest first; users who joined in the same millisecond (one import) by id. */
  listUsers(): Promise<UserRecord[]>;
  getUser(userId: string): Promise<UserRecord | undefined>;
  /**
   * Users that never had an API key (the demo user of a fresh store), in listUsers' order; revoked keys
   * count as had.
   */
  usersWithoutKey(): Promise<UserRecord[]>;
  readonly apiKeys: ApiKeyStore;

  countBrandsOfUser(userId: string): Promise<number>;
  listBrandsOfUser(userId: string, window: PageWindow): Promise<BrandRecord[]>;
  findBrandOfUser(userId: string, brandId: number): Promise<BrandRecord | undefined>;
  /** A brand by id, whoever may see it (the command line acts for the operator). */
  findBrand(brandId: number): Promise<BrandRecord | undefined>;

  countChannels(brandId: number): Promise<number>;
  listChannels(brandId: number, window: PageWindow): Promise<ChannelRecord[]>;
  findChannel(brandId: number, channelId: number): Promise<ChannelRecord | undefined>;

  countCollections(brandId: number): Promise<number>;
  listCollections(brandId: number, window: PageWindow): Promise<CollectionRecord[]>;
  findCollection(brandId: number, collectionId: number): Promise<CollectionRecord | undefined>;

  findMediaByHash(brandId: number, sha256: string): Promise<MediaRecord | undefined>;
  findMedia(brandId: number, mediaIds: readonly string[]): Promise<MediaRecord[]>;
  insertMedia(media: MediaRecord): Promise<void>;

  readonly posts: PostStore;
  readonly deliveries: DeliveryStore;
  readonly jobs: JobStore;
  readonly sandbox: SandboxOutbox;
  readonly connections: ConnectionStore;
  /** Sets a channel ACTIVE or INACTIVE, keeping why (`reason`, null when ACTIVE). */
  setChannelStatus(
    channelId: number,
    status: 'ACTIVE' | 'INACTIVE',
    reason: string | null,
    nowMs: number,
  ): Promise<void>;

  findBrandIdByTitle(title: string): Promise<number | undefined>;
  upsertBrand(brand: BrandUpsert, nowMs: number): Promise<number>;
  upsertChannel(brandId: number, channel: ChannelUpsert, nowMs: number): Promise<number>;
  upsertCollection(brandId: number, collection: CollectionUpsert, nowMs: number): Promise<number>;
  upsertUser(user: UserUpsert, nowMs: number): Promise<string>;
}
