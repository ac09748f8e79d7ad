/**
 * The service interface over HTTP: each method is one request to a server that speaks
 * http-interface.md (and our post-lifecycle endpoints), acting as the owner of the API key. Path ids
 * are checked here; every other field goes to the server as sent, so its validation and messages are
 * the truth. Errors come back as the same typed errors the local service throws.
 */
import { openAsBlob } from 'node:fs';
import { FormData } from 'undici';
import { z } from 'zod';
import { ChannelRequest } from '../domain/channel-detail.js';
import {
  type CreatedPost,
  CreatedPost as CreatedPostSchema,
  CreatePostRequest,
  type DeletedPost,
  DeletedPost as DeletedPostSchema,
  ListPostsRequest,
  type Post,
  PostRequest,
  Post as PostSchema,
  type Queue,
  QueueRequest,
  Queue as QueueSchema,
  UpdatePostRequest,
} from '../domain/post-schemas.js';
import {
  type Brand,
  BrandPageRequest,
  Brand as BrandSchema,
  type Channel,
  Channel as ChannelSchema,
  type Collection,
  Collection as CollectionSchema,
  GetProfileRequest,
  ListBrandsRequest,
  type Media,
  Media as MediaSchema,
  UploadMediaRequest,
  type User,
  User as UserSchema,
} from '../domain/schemas.js';
import { ConnectionRequest, type StartedConnection } from '../oauth/server-sign-in.js';
import type { MediaDownloader, TransferOptions } from '../ports.js';
import { type ChannelDetail, ChannelDetail as ChannelDetailSchema } from '../publish/connectors/schemas.js';
import type { Page, PublishingService } from '../service/publishing-service.js';
import { openMediaSource } from '../service/upload-media.js';
import { splitPathIds, validatePathOnly } from './path-ids.js';
import { RestClient, successBody, successList } from './rest-client.js';
import { spoolToTempFile } from './spool.js';

export interface RemoteServiceOptions {
  /** The `{base_url}` of http-interface.md, including `/v1` (SOCIAL_PUBLISHER_API_URL). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` (SOCIAL_PUBLISHER_API_KEY); never shown in a message. */
  apiKey: string;
  /** Per attempt, the longest a request may take; an upload, the longest it may stall. Default 30000. */
  timeoutMs?: number;
  /** How often a failed GET is tried again. Default 3. */
  maxRetries?: number;
  /** The first retry's wait, doubled for each further one, with jitter. Default 250. */
  baseDelayMs?: number;
  /** The longest wait before a retry, also for a server's Retry-After. Default 5000. */
  maxDelayMs?: number;
  userAgent?: string;
  /** Fetches media given by url (downloaded here, then uploaded); without one, a url is refused. */
  downloader?: MediaDownloader;
}

const DEFAULT_USER_AGENT = `social-publisher-mcp remote client (Node ${process.versions.node})`;

function option(name: string, value: number | undefined, fallback: number, min: number): number {
  const chosen = value ?? fallback;
  if (!Number.isFinite(chosen) || chosen < min)
    throw new Error(`${name} must be a number of at least ${min}.`);
  return chosen;
}

/** Lists lose the page URLs: the interface's Page has the position only. */
function page<T>(body: { data: T[]; pagination: Page<T>['pagination'] }): Page<T> {
  return { data: body.data, pagination: body.pagination };
}

export class RemotePublishingService implements PublishingService {
  private readonly client: RestClient;

  private readonly downloader: MediaDownloader | undefined;

  constructor(options: RemoteServiceOptions) {
    this.downloader = options.downloader;
    const maxRetries = option('maxRetries', options.maxRetries, 3, 0);
    if (!Number.isInteger(maxRetries)) throw new Error('maxRetries must be an integer.');
    this.client = new RestClient({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      timeoutMs: option('timeoutMs', options.timeoutMs, 30_000, 1),
      retry: {
        maxRetries,
        baseDelayMs: option('baseDelayMs', options.baseDelayMs, 250, 0),
        maxDelayMs: option('maxDelayMs', options.maxDelayMs, 5000, 0),
      },
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    });
  }

  /** Closes the connections; later calls fail. */
  close(): Promise<void> {
    return this.client.close();
  }

  async getProfile(request: unknown = {}): Promise<User> {
    const { rest } = splitPathIds(request, [], GetProfileRequest);
    return (await this.client.send({ method: 'GET', path: '/me', query: rest }, successBody(UserSchema)))
      .data;
  }

  async listBrands(request: unknown = {}): Promise<Page<Brand>> {
    const { rest } = splitPathIds(request, [], ListBrandsRequest);
    return page(
      await this.client.send({ method: 'GET', path: '/brands', query: rest }, successList(BrandSchema)),
    );
  }

  async listChannels(request: unknown): Promise<Page<Channel>> {
    const { ids, rest } = splitPathIds(request, ['brandId'], BrandPageRequest);
    const call = { method: 'GET', path: `/brands/${ids.brandId}/channels`, query: rest } as const;
    return page(await this.client.send(call, successList(ChannelSchema)));
  }

  async getChannel(request: unknown): Promise<ChannelDetail> {
    const { ids, rest } = splitPathIds(request, ['brandId', 'channelId'], ChannelRequest);
    const call = {
      method: 'GET',
      path: `/brands/${ids.brandId}/channels/${ids.channelId}`,
      query: rest,
    } as const;
    return (await this.client.send(call, successBody(ChannelDetailSchema))).data;
  }

  async listCollections(request: unknown): Promise<Page<Collection>> {
    const { ids, rest } = splitPathIds(request, ['brandId'], BrandPageRequest);
    const call = { method: 'GET', path: `/brands/${ids.brandId}/collections`, query: rest } as const;
    return page(await this.client.send(call, successList(CollectionSchema)));
  }

  /**
   * A local path is checked here as local mode checks it (same sentences) and streamed as the one
   * multipart field `media` under its own name. A url is downloaded here (with local mode's safety
   * rules) and base64 decoded here, into a temporary file that is then streamed the same way: the REST
   * API takes files only. The server detects the type from the bytes.
   */
  async uploadMedia(request: unknown, transfer: TransferOptions = {}): Promise<Media> {
    const input = validatePathOnly(request, UploadMediaRequest);
    const source = await openMediaSource(
      { downloader: this.downloader, allowLocalPaths: true },
      input,
      transfer.signal,
    );
    const spooled = await spoolToTempFile(source.body, { ...transfer, total: source.total });
    try {
      const form = new FormData();
      // A file-backed Blob: read in chunks while it is sent, never held whole in memory.
      form.append('media', await openAsBlob(spooled.path), source.filename);
      const call = { method: 'POST', path: `/brands/${input.brandId}/media`, form } as const;
      return (await this.client.send(call, successBody(MediaSchema))).data;
    } finally {
      await spooled.remove();
    }
  }

  async createPost(request: unknown): Promise<CreatedPost> {
    const { ids, rest } = splitPathIds(request, ['brandId', 'collectionId'], CreatePostRequest);
    const path = `/brands/${ids.brandId}/collections/${ids.collectionId}/posts`;
    return (await this.client.send({ method: 'POST', path, json: rest }, successBody(CreatedPostSchema)))
      .data;
  }

  async listPosts(request: unknown): Promise<Page<Post>> {
    const { ids, rest } = splitPathIds(request, ['brandId'], ListPostsRequest);
    const call = { method: 'GET', path: `/brands/${ids.brandId}/posts`, query: rest } as const;
    return page(await this.client.send(call, successList(PostSchema)));
  }

  async getPost(request: unknown): Promise<Post> {
    const { ids, rest } = splitPathIds(request, ['brandId', 'postId'], PostRequest);
    const call = { method: 'GET', path: `/brands/${ids.brandId}/posts/${ids.postId}`, query: rest } as const;
    return (await this.client.send(call, successBody(PostSchema))).data;
  }

  async updatePost(request: unknown): Promise<Post> {
    // Local mode checks the ids before the fields: an unknown post is a 404 whatever the fields say.
    const idsOnly = UpdatePostRequest.pick({ brandId: true, postId: true }).loose();
    const { ids, rest } = splitPathIds(request, ['brandId', 'postId'], idsOnly);
    const call = { method: 'PATCH', path: `/brands/${ids.brandId}/posts/${ids.postId}`, json: rest } as const;
    return (await this.client.send(call, successBody(PostSchema))).data;
  }

  async deletePost(request: unknown): Promise<DeletedPost> {
    const { brandId, postId } = validatePathOnly(request, PostRequest);
    const call = { method: 'DELETE', path: `/brands/${brandId}/posts/${postId}` } as const;
    return (await this.client.send(call, successBody(DeletedPostSchema))).data;
  }

  async publishPost(request: unknown): Promise<Post> {
    const { brandId, postId } = validatePathOnly(request, PostRequest);
    const call = { method: 'POST', path: `/brands/${brandId}/posts/${postId}/publish` } as const;
    return (await this.client.send(call, successBody(PostSchema))).data;
  }

  async getQueue(request: unknown): Promise<Queue> {
    const { ids, rest } = splitPathIds(request, ['brandId'], QueueRequest);
    const call = { method: 'GET', path: `/brands/${ids.brandId}/queue`, query: rest } as const;
    return (await this.client.send(call, successBody(QueueSchema))).data;
  }

  async startConnection(request: unknown): Promise<StartedConnection> {
    const { ids, rest } = splitPathIds(request, ['brandId'], ConnectionRequest);
    const call = { method: 'POST', path: `/brands/${ids.brandId}/connections`, json: rest } as const;
    return (await this.client.send(call, successBody(StartedConnectionSchema))).data;
  }
}

const StartedConnectionSchema = z.object({ authorizationUrl: z.string(), expiresAt: z.string() });
