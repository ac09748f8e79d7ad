/**
 * The records the store keeps and the shapes it is written with: plain data, shared by the ports, the
 * service and the adapters.
 */
import type { Capabilities } from './domain/capabilities.js';
import type { CommentStatus, DeliveryStatus, PlatformContent } from './domain/delivery.js';
import type { PostPayload, PostStatus } from './domain/post-schemas.js';
import type { ChannelType, PublishMode } from './domain/schemas.js';
import type { ConnectedKind } from './publish/connectors/registry.js';
import type { StepState } from './publisher-port.js';

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
  /** A video's duration (MP4, QuickTime), measured on upload; null when not measured. */
  durationMs: number | null;
}

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
  /** The public address of the published post, when the platform gave one. */
  url: string | null;
  attempts: number;
  /** A pending delivery that failed for a while (rate limit, transient fault) waits until then. */
  retryAtMs: number | null;
  sentAtMs: number | null;
  commentStatus: CommentStatus;
  commentDueAtMs: number | null;
  commentSentAtMs: number | null;
  commentReason: string | null;
}

export type NewDelivery = Pick<
  DeliveryRecord,
  'postId' | 'channelId' | 'channelName' | 'channelType' | 'status' | 'reason' | 'notes' | 'content'
> & {
  /** What was prepared ahead for this delivery (its prepare job's state), handed to its send. */
  prepared?: StepState;
};

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

/**
 * Where an API key came from: `keys create` (`cli`), the first `serve` of a user without one (`serve`),
 * a workspace file (`import`), or a store older than the key registry (`migrated`).
 */
export type ApiKeyOrigin = 'cli' | 'serve' | 'import' | 'migrated';

/** An API key as the store knows it: never the key itself, only its hash (kept apart) and a prefix. */
export interface ApiKeyRecord {
  id: number;
  userId: string;
  /** The key's first characters (`spk_AbCd1234`), to recognise it; null where the key was not made here. */
  prefix: string | null;
  origin: ApiKeyOrigin;
  createdAtMs: number;
  /** Last accepted, to the minute; null when never used. */
  lastUsedAtMs: number | null;
  /** Refused from this time on; null while active. */
  revokedAtMs: number | null;
}

export interface NewApiKey {
  keyHash: string;
  prefix: string | null;
  origin: ApiKeyOrigin;
}

/** How a channel has fared: why it is INACTIVE, its last error, its last publication. */
export interface ChannelActivity {
  statusReason: string | null;
  lastError: string | null;
  lastErrorAtMs: number | null;
  lastPublishedAtMs: number | null;
}

/**
 * A channel's connection to its account. The secret is sealed (AES-256-GCM, `SecretBox`), or named by
 * an environment variable (`secretEnv`, declared in a workspace file); both null once disconnected.
 */
export interface ConnectionRecord {
  channelId: number;
  kind: ConnectedKind;
  account: string;
  accountId: string;
  endpoint: string;
  profileUrl: string | null;
  settings: Record<string, unknown>;
  capabilities: Capabilities;
  sealedSecret: Uint8Array | null;
  secretEnv: string | null;
  connectedAtMs: number;
  updatedAtMs: number;
}

export type ConnectionUpsert = Omit<ConnectionRecord, 'channelId' | 'connectedAtMs' | 'updatedAtMs'>;
