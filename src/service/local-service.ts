/**
 * The service on the embedded store, acting as one user. The brands, profile and lists of channels and
 * collections are here; every other operation's module (with its schemas) is loaded on its first use,
 * so that a server starts without loading what it has not been asked for.
 */

import { NotFoundError, ValidationError } from '../domain/errors.js';
import type { CreatedPost, DeletedPost, Post, Queue } from '../domain/post-schemas.js';
import {
  type Brand,
  BrandPageRequest,
  type Channel,
  type Collection,
  GetProfileRequest,
  ListBrandsRequest,
  type Media,
  type User,
} from '../domain/schemas.js';
import { validateOrThrow } from '../domain/validation.js';
import type { ServerSignIns, StartedConnection } from '../oauth/server-sign-in.js';
import type {
  BrandRecord,
  Clock,
  MediaDownloader,
  MediaStore,
  Store,
  TransferOptions,
  UserRecord,
} from '../ports.js';
import type { ChannelDetail } from '../publish/connectors/schemas.js';
import { readPage } from './pagination.js';
import type { MediaThumbnail, Page, StagedUpload, StreamingPublishingService } from './publishing-service.js';
import { presentBrand, presentChannel, presentCollection, presentUser } from './resources.js';

/**
 * A module loaded on first use, then kept: `import()` of a loaded module is cheap in the built program,
 * but each one still goes through the loader's resolution where a loader hook runs (tsx: the tests and
 * the in-process benchmarks), a quarter of a millisecond a call. A failed load is tried again next time.
 */
function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

const postLifecycle = onFirstUse(() => import('./post-lifecycle.js'));
const createPostModule = onFirstUse(() => import('./create-post.js'));
/** The images a browser shows as they are: a preview's `data:` thumbnails. */
const THUMBNAIL_TYPES = new Set(['image/png', 'image/jpeg']);

const uploadModule = onFirstUse(() => import('./upload-media.js'));
const queueView = onFirstUse(() => import('./queue-view.js'));
const channelDetail = onFirstUse(() =>
  Promise.all([import('../domain/channel-detail.js'), import('./connections.js')]),
);

export interface LocalServiceDeps {
  store: Store;
  /** Who publishes to channels without a connection of their own. Default: the sandbox. */
  defaultConnector?: 'sandbox' | 'webhook';
  media: MediaStore;
  clock: Clock;
  /** Told when a post is planned or starts publishing: the scheduler re-plans its sleep at once. */
  onPlanChanged?: (() => void) | undefined;
  /** Fetches media given by url. */
  downloader?: MediaDownloader | undefined;
  /** Whether upload paths name files on this machine (stdio: yes; HTTP sessions: no). */
  allowLocalPaths?: boolean | undefined;
  /** This server hands out public addresses of uploaded media (pre-flight of platforms that fetch them). */
  publicMedia?: boolean | undefined;
  /** Sign-ins the server completes; absent: say what to configure (SOCIAL_PUBLISHER_PUBLIC_URL). */
  signIns?: (() => Promise<ServerSignIns>) | undefined;
}

export class LocalPublishingService implements StreamingPublishingService {
  /** The sign-ins, made ready on the first one (`deps.signIns`). */
  private signIns: Promise<ServerSignIns> | undefined;

  constructor(
    private readonly deps: LocalServiceDeps,
    readonly user: UserRecord,
  ) {}

  async startConnection(request: unknown): Promise<StartedConnection> {
    // The request's mistakes first (an unknown field, a platform): they hold wherever it is sent.
    const { ConnectionRequest } = await import('../oauth/server-sign-in.js');
    validateOrThrow(ConnectionRequest, request);
    const signIns = await this.signInsReady();
    if (!signIns) {
      throw ValidationError.single(
        'platform',
        'This server cannot complete a sign-in: set SOCIAL_PUBLISHER_PUBLIC_URL to its public address (and register <that address>/oauth/callback with the platform app), or connect the account on the server with social-publisher-mcp connect.',
      );
    }
    const { state: _state, ...started } = await signIns.start(this.user.id, request);
    return started;
  }

  async connectionCompleted(authorizationUrl: string): Promise<ChannelDetail> {
    const state = new URL(authorizationUrl).searchParams.get('state') ?? '';
    const signIns = await this.signInsReady();
    if (!signIns) throw new Error('No sign-in was begun by this server.');
    return signIns.waitFor(state);
  }

  private signInsReady(): Promise<ServerSignIns> | undefined {
    const load = this.deps.signIns;
    if (!load) return undefined;
    this.signIns ??= load().catch((error: unknown) => {
      this.signIns = undefined;
      throw error;
    });
    return this.signIns;
  }

  async requireBrand(brandId: number): Promise<void> {
    await this.brandOfUser(brandId);
  }

  /** The brand, when the acting user may use it; else the 404 of a brand that does not exist. */
  private async brandOfUser(brandId: number): Promise<BrandRecord> {
    const brand = await this.deps.store.findBrandOfUser(this.user.id, brandId);
    if (!brand) throw NotFoundError.brand();
    return brand;
  }

  async getProfile(request: unknown = {}): Promise<User> {
    validateOrThrow(GetProfileRequest, request);
    // Re-read: a workspace import may have renamed the user since the session started.
    return presentUser((await this.deps.store.getUser(this.user.id)) ?? this.user);
  }

  async listBrands(request: unknown = {}): Promise<Page<Brand>> {
    const query = validateOrThrow(ListBrandsRequest, request);
    const { store } = this.deps;
    return readPage(
      query,
      () => store.countBrandsOfUser(this.user.id),
      (window) => store.listBrandsOfUser(this.user.id, window),
      presentBrand,
    );
  }

  async listChannels(request: unknown): Promise<Page<Channel>> {
    const query = validateOrThrow(BrandPageRequest, request);
    const brand = await this.brandOfUser(query.brandId);
    const { store } = this.deps;
    return readPage(
      query,
      () => store.countChannels(brand.id),
      (window) => store.listChannels(brand.id, window),
      presentChannel,
    );
  }

  async getChannel(request: unknown): Promise<ChannelDetail> {
    const [{ ChannelRequest }, { presentChannelDetail }] = await channelDetail();
    const { brandId, channelId } = validateOrThrow(ChannelRequest, request);
    const brand = await this.brandOfUser(brandId);
    const channel = await this.deps.store.findChannel(brand.id, channelId);
    if (!channel) throw NotFoundError.channel();
    return presentChannelDetail(this.deps.store, channel, this.deps.defaultConnector ?? 'sandbox');
  }

  async listCollections(request: unknown): Promise<Page<Collection>> {
    const query = validateOrThrow(BrandPageRequest, request);
    const brand = await this.brandOfUser(query.brandId);
    const { store } = this.deps;
    return readPage(
      query,
      () => store.countCollections(brand.id),
      (window) => store.listCollections(brand.id, window),
      presentCollection,
    );
  }

  async uploadMedia(request: unknown, transfer?: TransferOptions): Promise<Media> {
    const { uploadMedia } = await uploadModule();
    return uploadMedia(this.deps, this.user, request, transfer);
  }

  async mediaThumbnail(
    brandId: number,
    mediaId: string,
    maxBytes: number,
  ): Promise<MediaThumbnail | undefined> {
    const brand = await this.brandOfUser(brandId);
    const [record] = await this.deps.store.findMedia(brand.id, [mediaId]);
    if (!record) return undefined;
    const { type, size } = record;
    if (!THUMBNAIL_TYPES.has(type) || size > maxBytes) return { type, size };
    const opened = await this.deps.media.open(brand.id, mediaId, type);
    try {
      return { type, size, bytes: new Uint8Array(await opened.blob.arrayBuffer()) };
    } finally {
      await opened.release();
    }
  }

  async stageMediaUpload(brandId: number, source: AsyncIterable<Uint8Array>): Promise<StagedUpload> {
    const brand = await this.brandOfUser(brandId);
    const { stageMedia } = await uploadModule();
    return stageMedia(this.deps, brand.id, source);
  }

  private get context() {
    return {
      store: this.deps.store,
      clock: this.deps.clock,
      user: this.user,
      onPlanChanged: this.deps.onPlanChanged,
      defaultConnector: this.deps.defaultConnector ?? 'sandbox',
      publicMedia: this.deps.publicMedia ?? false,
    };
  }

  async createPost(request: unknown): Promise<CreatedPost> {
    const { createPost } = await createPostModule();
    return createPost(this.context, request);
  }

  async listPosts(request: unknown): Promise<Page<Post>> {
    return (await postLifecycle()).listPosts(this.context, request);
  }

  async getPost(request: unknown): Promise<Post> {
    return (await postLifecycle()).getPost(this.context, request);
  }

  async updatePost(request: unknown): Promise<Post> {
    return (await postLifecycle()).updatePost(this.context, request);
  }

  async deletePost(request: unknown): Promise<DeletedPost> {
    return (await postLifecycle()).deletePost(this.context, request);
  }

  async publishPost(request: unknown): Promise<Post> {
    return (await postLifecycle()).publishPost(this.context, request);
  }

  async getQueue(request: unknown): Promise<Queue> {
    const { getQueue } = await queueView();
    return getQueue(this.context, request);
  }
}
