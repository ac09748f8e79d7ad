/**
 * The service interface: the six operations of http-interface.md and the post lifecycle, for one
 * acting user. The local service (SQLite) and the remote client (HTTP) both implement it; one contract
 * suite runs on both. Requests are `unknown`: each implementation validates (or has its server
 * validate) with the domain schemas and throws the typed errors of `domain/errors.ts`.
 */

import type { CreatedPost, DeletedPost, Post, Queue } from '../domain/post-schemas.js';
import type { Brand, Channel, Collection, Media, User } from '../domain/schemas.js';
import type { StartedConnection } from '../oauth/server-sign-in.js';
import type { TransferOptions } from '../ports.js';
import type { ChannelDetail } from '../publish/connectors/schemas.js';

/** What `mediaThumbnail` gives: the file's type and size, and its bytes when small enough. */
export interface MediaThumbnail {
  type: string;
  size: number;
  bytes?: Uint8Array;
}

/** Page position of a list result; adapters add `nextPageUrl` and `prevPageUrl`. */
export interface PageInfo {
  currentPage: number;
  perPage: number;
  total: number;
  lastPage: number;
}

export interface Page<T> {
  data: T[];
  pagination: PageInfo;
}

export interface PublishingService {
  /** `{}`: no arguments (an unknown one is refused, never ignored). */
  getProfile(request?: unknown): Promise<User>;
  /** `{ page?, per_page? }` */
  listBrands(request?: unknown): Promise<Page<Brand>>;
  /** `{ brandId, page?, per_page? }` */
  listChannels(request: unknown): Promise<Page<Channel>>;
  /** `{ brandId, channelId }`: the channel with its connection (never a secret). */
  getChannel(request: unknown): Promise<ChannelDetail>;
  /** `{ brandId, page?, per_page? }` */
  listCollections(request: unknown): Promise<Page<Collection>>;
  /** `{ brandId, path | url | base64 (+ filename) }`: exactly one source. */
  uploadMedia(request: unknown, transfer?: TransferOptions): Promise<Media>;
  /** `{ brandId, collectionId, ...post creation payload, idempotencyKey?, dryRun? }` */
  createPost(request: unknown): Promise<CreatedPost>;

  /** `{ brandId, status?, collectionId?, from?, to?, order?, page?, per_page? }` */
  listPosts(request: unknown): Promise<Page<Post>>;
  /** `{ brandId, postId }` */
  getPost(request: unknown): Promise<Post>;
  /** `{ brandId, postId, ...fields to change (null removes one) }` */
  updatePost(request: unknown): Promise<Post>;
  /** `{ brandId, postId }`: removes a draft, cancels a queued or scheduled post. */
  deletePost(request: unknown): Promise<DeletedPost>;
  /** `{ brandId, postId }`: publishes a draft, queued or scheduled post now. */
  publishPost(request: unknown): Promise<Post>;
  /** `{ brandId, count? }` */
  getQueue(request: unknown): Promise<Queue>;
  /**
   * `{ brandId, platform, collectionIds?, account? }`: begins an OAuth sign-in that the server completes
   * (src/oauth/server-sign-in.ts); the address for the user to open, and until when it works.
   */
  startConnection(request: unknown): Promise<StartedConnection>;
  /**
   * The channel, once the sign-in begun by `startConnection` with this address is completed by this
   * process; undefined where it cannot be told (a remote server): the user is told to look for it.
   */
  connectionCompleted?(authorizationUrl: string): Promise<ChannelDetail>;
  /**
   * An uploaded file of the brand with its bytes when it is an image of at most `maxBytes`, for a
   * preview to show; undefined for an unknown id. Only a service on the store has it (a remote one
   * shows no thumbnails).
   */
  mediaThumbnail?(brandId: number, mediaId: string, maxBytes: number): Promise<MediaThumbnail | undefined>;
}

/** A file read, measured and type-checked, not yet kept: commit it or discard it. */
export interface StagedUpload {
  commit(): Promise<Media>;
  discard(): Promise<void>;
}

/**
 * The service with media uploads that arrive as a stream (the REST API's multipart body) rather than a
 * path, a URL or base64 text. The local service implements it; the REST API is served over it.
 */
export interface StreamingPublishingService extends PublishingService {
  /**
   * Resolves when the acting user may use the brand, else rejects with the NotFoundError of a brand that
   * does not exist: checked before an upload's body is read.
   */
  requireBrand(brandId: number): Promise<void>;
  /** Stages an upload while it arrives; it is kept only once the caller, having read the whole request, commits it. */
  stageMediaUpload(brandId: number, source: AsyncIterable<Uint8Array>): Promise<StagedUpload>;
}
