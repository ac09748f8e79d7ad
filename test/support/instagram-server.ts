/**
 * A stand-in for Meta's Instagram Platform on 127.0.0.1, on the fake-platform kit: one server for both
 * hosts (graph.facebook.com with Facebook Login, graph.instagram.com and api.instagram.com with
 * Instagram Login: the paths do not overlap), answering as developers.facebook.com/documentation/
 * instagram-platform says (and, where it is silent, as integrators report). Its sign-ins are in
 * instagram-sign-in.ts.
 *
 * - `GET /{v}/{ig-user}?fields=id,username`; `GET /{v}/me?fields=user_id,username` (Instagram Login);
 * - `POST /{v}/{ig-user}/media`: a container (image `image_url`; `REELS`/`VIDEO` `video_url`;
 *   `STORIES`; carousel items with `is_carousel_item`; `CAROUSEL` with 2–10 FINISHED `children`; `caption`,
 *   `location_id`, `collaborators` (a JSON array, not on Stories), `alt_text` (images only),
 *   `share_to_feed` and `trial_params` (Reels only)). The stand-in **downloads** the address it is given, as Meta does: an image it
 *   cannot fetch refuses the container (9004/2207052, "Media download has failed"), a video it cannot
 *   fetch makes the container ERROR with that reason. A container processes for `processingMs`;
 *   `GET /{container}?fields=status_code,status` says IN_PROGRESS, FINISHED, ERROR, EXPIRED (24 hours
 *   unpublished) or PUBLISHED;
 * - `POST /{v}/{ig-user}/media_publish` with `creation_id`: refused while the container is not
 *   FINISHED (9007 "Media ID is not available"), for a container published already, and once the
 *   account's quota is spent (9/2207042); `GET /{media}?fields=permalink`;
 * - `GET /{v}/{ig-user}/content_publishing_limit`: `{ data: [{ quota_usage, config: { quota_total,
 *   quota_duration } }] }` over the last 24 hours;
 * - `POST /{v}/{media}/comments` with `message`;
 * - errors in Meta's envelope; `X-Business-Use-Case-Usage` (the kit's per-token counters, in percent,
 *   keyed by the account) on every API answer, and 80002 with `estimated_time_to_regain_access` when
 *   they are spent.
 */
import { randomBytes } from 'node:crypto';
import { type FakeAnswer, type FakeRequest, startFakePlatform } from './fake-platform/kit.js';
import { DOWNLOAD_FAILED, graphError, INSTAGRAM_ERRORS, invalid } from './instagram-errors.js';
import { instagramSignIn } from './instagram-sign-in.js';
import { download } from './served-media.js';

export { graphError };
export const LONG_LIVED_SECONDS = 5_183_944;
const CONTAINER_LIFETIME_MS = 24 * 3_600_000;
const DAY_MS = 24 * 3_600_000;

/** An Instagram professional account, and the Facebook Page it is linked to. */
export interface InstagramAccount {
  id: string;
  username: string;
  pageId: string;
  pageName: string;
}

export const ACME_INSTAGRAM: InstagramAccount = {
  id: '17841400000000101',
  username: 'acme.coffee',
  pageId: '100000000000001',
  pageName: 'Acme Coffee',
};

export interface InstagramServerOptions {
  now?: () => number;
  /** How long (by `now`) a media container processes. Default 0. */
  processingMs?: number;
  /** The accounts (linked to Pages); the first is Instagram Login's. Default: ACME_INSTAGRAM. */
  accounts?: InstagramAccount[];
  /** Posts per 24 hours (content_publishing_limit's quota_total). Default 50. */
  quotaTotal?: number;
  /** Requests per token before its business-use-case limit is spent. Default 1,000. */
  callLimit?: number;
}

export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';

export interface InstagramContainer {
  id: string;
  owner: string;
  mediaType: string;
  fields: Record<string, string>;
  mediaUrl: string | null;
  /** Bytes downloaded from `mediaUrl`, or null when the download failed. */
  downloaded: number | null;
  children: string[];
  carouselItem: boolean;
  readyAtMs: number;
  createdAtMs: number;
  error: string | null;
  publishedAs: string | null;
}

export interface InstagramPost {
  id: string;
  owner: string;
  containerId: string;
  mediaType: string;
  caption: string;
  fields: Record<string, string>;
  permalink: string;
  publishedAtMs: number;
  comments: string[];
}

export type InstagramServer = Awaited<ReturnType<typeof startInstagramServer>>;

export async function startInstagramServer(options: InstagramServerOptions = {}) {
  const now = options.now ?? Date.now;
  const accounts = options.accounts ?? [ACME_INSTAGRAM];
  const containers = new Map<string, InstagramContainer>();
  const posts: InstagramPost[] = [];
  let nextId = 18_000_000_000_000_000n;
  const newId = () => String(++nextId);
  const quotaTotal = options.quotaTotal ?? 50;
  let kit: Awaited<ReturnType<typeof startFakePlatform>>;
  const signIn = instagramSignIn({ now, accounts, issue: () => kit.credentials.issue() });
  const { field, tokens } = signIn;

  /** An API route for `owner` (the account in the path): a live token that may act for it. */
  const asAccount =
    (work: (request: FakeRequest, owner: string) => FakeAnswer | Promise<FakeAnswer>) =>
    async (request: FakeRequest): Promise<FakeAnswer> => {
      const grant = tokens.get(signIn.tokenOf(request) ?? '');
      if (!grant) return graphError(190, 'Invalid OAuth access token - Cannot parse access token');
      if (grant.expiresAtMs <= now()) {
        return graphError(190, 'Error validating access token: Session has expired.', { subcode: 463 });
      }
      const id = request.params.id ?? '';
      const owner = id === 'me' ? (grant.account ?? '') : ownerOf(id);
      if (grant.account && owner && grant.account !== owner) {
        return graphError(10, '(#10) The user does not have permission to act for this account.');
      }
      const answer = await work(request, owner || grant.account || '');
      const { limit = 1, remaining = 1 } = request.rateLimit ?? {};
      const used = Math.round(((limit - remaining) / Math.max(1, limit)) * 100);
      const usage = {
        type: 'instagram',
        call_count: used,
        total_cputime: 1,
        total_time: 1,
        estimated_time_to_regain_access: 0,
      };
      const header = JSON.stringify({ [owner || 'app']: [usage] });
      return { ...answer, headers: { ...answer.headers, 'x-business-use-case-usage': header } };
    };

  /** The account a node belongs to (an account, a container, a post), or '' when unknown. */
  function ownerOf(id: string): string {
    if (accounts.some((account) => account.id === id)) return id;
    return containers.get(id)?.owner ?? posts.find((post) => post.id === id)?.owner ?? '';
  }

  function statusOf(container: InstagramContainer): ContainerStatus {
    if (container.publishedAs) return 'PUBLISHED';
    if (container.error) return 'ERROR';
    if (now() - container.createdAtMs > CONTAINER_LIFETIME_MS) return 'EXPIRED';
    const children = container.children.map((id) => containers.get(id)!);
    if (children.some((child) => statusOf(child) === 'ERROR')) return 'ERROR';
    if (now() < container.readyAtMs || children.some((child) => statusOf(child) === 'IN_PROGRESS')) {
      return 'IN_PROGRESS';
    }
    return 'FINISHED';
  }

  const usedQuota = (owner: string) =>
    posts.filter((post) => post.owner === owner && now() - post.publishedAtMs < DAY_MS).length;

  async function createContainer(request: FakeRequest, owner: string): Promise<FakeAnswer> {
    const fields = Object.fromEntries([...request.query, ...request.body.fields]) as Record<string, string>;
    delete fields.access_token;
    const carouselItem = fields.is_carousel_item === 'true';
    const type = (fields.media_type ?? (fields.image_url ? 'IMAGE' : '')).toUpperCase();
    if (!['IMAGE', 'VIDEO', 'REELS', 'STORIES', 'CAROUSEL'].includes(type)) {
      return invalid('The parameter media_type is invalid or missing.');
    }
    if (type === 'VIDEO' && !carouselItem) {
      return invalid('The VIDEO media type is only for carousel items: publish a lone video as REELS.');
    }
    if ([...(fields.caption ?? '')].length > 2_200) return invalid('The caption is too long.', 2_207_010);
    if (fields.collaborators !== undefined) {
      let names: unknown;
      try {
        names = JSON.parse(fields.collaborators);
      } catch {
        names = undefined;
      }
      if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) {
        return invalid('Param collaborators must be an array of usernames.');
      }
      if (type === 'STORIES') return invalid('Param collaborators is not allowed on stories.');
    }
    if ((fields.share_to_feed !== undefined || fields.trial_params !== undefined) && type !== 'REELS') {
      return invalid('Params share_to_feed and trial_params are for Reels only.');
    }
    if (fields.alt_text !== undefined && type !== 'IMAGE')
      return invalid('Param alt_text is for images only.');
    if (fields.location_id !== undefined && !/^\d+$/.test(fields.location_id)) {
      return invalid('Param location_id must be a valid location ID.');
    }
    const container: InstagramContainer = {
      id: newId(),
      owner,
      mediaType: type,
      fields,
      mediaUrl: null,
      downloaded: null,
      children: [],
      carouselItem,
      readyAtMs: now(),
      createdAtMs: now(),
      error: null,
      publishedAs: null,
    };
    if (type === 'CAROUSEL') {
      const ids = (fields.children ?? '').split(',').filter(Boolean);
      if (ids.length < 2 || ids.length > 10) return invalid('A carousel has 2 to 10 children.', 2_207_034);
      for (const id of ids) {
        const child = containers.get(id);
        if (!child?.carouselItem) return invalid(`The child ${id} is not a carousel item.`);
        // As integrators report: items still processing (a video) are not valid children yet.
        if (statusOf(child) !== 'FINISHED')
          return invalid(`The child ${id} is not ready (${statusOf(child)}).`);
      }
      container.children = ids;
    } else {
      const video = type !== 'IMAGE' && !(type === 'STORIES' && fields.image_url);
      const url = fields[video ? 'video_url' : 'image_url'];
      if (!url) return invalid(`Param ${video ? 'video_url' : 'image_url'} is required.`);
      container.mediaUrl = url;
      container.downloaded = await download(url, video);
      if (container.downloaded === null) {
        if (!video) {
          return graphError(9004, 'Only photo or video can be accepted as media type.', {
            subcode: 2_207_052,
            userMessage: 'The media could not be fetched from this URI. Please check that the URI is public.',
          });
        }
        container.error = `Error: ${DOWNLOAD_FAILED}`;
      }
      container.readyAtMs = now() + (options.processingMs ?? 0);
    }
    containers.set(container.id, container);
    return { status: 200, body: { id: container.id } };
  }

  function publish(request: FakeRequest, owner: string): FakeAnswer {
    const container = containers.get(field(request, 'creation_id') ?? '');
    if (!container || container.carouselItem || container.owner !== owner) {
      return invalid('Param creation_id is not a media container of this account.');
    }
    const status = statusOf(container);
    if (status === 'PUBLISHED') return invalid('The media container has been published already.', 2_207_006);
    if (status === 'IN_PROGRESS') {
      return graphError(9007, 'Media ID is not available', {
        subcode: 2_207_027,
        userMessage: 'The media is not ready for publishing, please wait for a moment',
      });
    }
    if (status !== 'FINISHED') return invalid(`The media container cannot be published (${status}).`);
    if (usedQuota(owner) >= quotaTotal) {
      return graphError(9, 'Application request limit reached', {
        subcode: 2_207_042,
        userMessage: 'You have reached the maximum number of posts allowed in 24 hours.',
      });
    }
    const id = newId();
    const kind =
      container.mediaType === 'REELS' ? 'reel' : container.mediaType === 'STORIES' ? 'stories' : 'p';
    container.publishedAs = id;
    const code = randomBytes(8).toString('base64url');
    const username = accounts.find((account) => account.id === owner)?.username ?? owner;
    posts.push({
      id,
      owner,
      containerId: container.id,
      mediaType: container.mediaType,
      caption: container.fields.caption ?? '',
      fields: container.fields,
      permalink:
        kind === 'stories'
          ? `https://www.instagram.com/stories/${username}/${id}/`
          : `https://www.instagram.com/${kind}/${code}/`,
      publishedAtMs: now(),
      comments: [],
    });
    return { status: 200, body: { id } };
  }

  function readNode(request: FakeRequest): FakeAnswer {
    const id = request.params.id!;
    const account = accounts.find((candidate) => candidate.id === id);
    if (account) return { status: 200, body: { id, username: account.username } };
    const container = containers.get(id);
    if (container) {
      const status = statusOf(container);
      const said: Record<ContainerStatus, string> = {
        IN_PROGRESS: 'In Progress: Media is still being processed.',
        FINISHED: 'Finished: Media has been uploaded and it is ready to be published.',
        PUBLISHED: 'Published: Media has been successfully published.',
        EXPIRED: 'Expired: The container was not published within 24 hours and has expired.',
        ERROR: container.error ?? 'Error: A child of the carousel failed.',
      };
      return { status: 200, body: { id, status_code: status, status: said[status] } };
    }
    const post = posts.find((candidate) => candidate.id === id);
    if (post) return { status: 200, body: { id, permalink: post.permalink } };
    return graphError(100, `(#100) Object with ID '${id}' does not exist`, { subcode: 33 });
  }

  function comment(request: FakeRequest): FakeAnswer {
    const post = posts.find((candidate) => candidate.id === request.params.id);
    if (!post) return invalid(`The media ${request.params.id} does not exist.`, 33);
    if (post.mediaType === 'STORIES') return invalid('Comments are not allowed on stories.');
    const message = field(request, 'message') ?? '';
    if (!message) return invalid('Param message is required.');
    post.comments.push(message);
    return { status: 200, body: { id: newId() } };
  }

  /** The account's media, newest first (`GET /{ig-user}/media?fields=id,caption,permalink,timestamp`). */
  const media = (_request: FakeRequest, owner: string): FakeAnswer => ({
    status: 200,
    body: {
      data: posts
        .filter((post) => post.owner === owner)
        .reverse()
        .map((post) => ({
          id: post.id,
          caption: post.caption,
          permalink: post.permalink,
          timestamp: new Date(post.publishedAtMs).toISOString().replace(/\.\d{3}Z$/, '+0000'),
        })),
    },
  });

  const quota = (_request: FakeRequest, owner: string): FakeAnswer => ({
    status: 200,
    body: {
      data: [{ quota_usage: usedQuota(owner), config: { quota_total: quotaTotal, quota_duration: 86_400 } }],
    },
  });

  const v = '/:version';
  kit = await startFakePlatform({
    now,
    tokenOf: signIn.tokenOf,
    rateLimit: {
      limit: options.callLimit ?? 1_000,
      windowMs: 3_600_000,
      headers: (state) => {
        const percent = Math.round(((state.limit - state.remaining) / Math.max(1, state.limit)) * 100);
        const usage = { type: 'instagram', call_count: percent, total_cputime: 1, total_time: 1 };
        return { 'x-business-use-case-usage': JSON.stringify({ app: [usage] }) };
      },
    },
    routes: [
      ...signIn.routes(asAccount),
      { method: 'GET', path: `${v}/:id/content_publishing_limit`, auth: true, handle: asAccount(quota) },
      { method: 'POST', path: `${v}/:id/media`, auth: true, handle: asAccount(createContainer) },
      { method: 'GET', path: `${v}/:id/media`, auth: true, handle: asAccount(media) },
      { method: 'POST', path: `${v}/:id/media_publish`, auth: true, handle: asAccount(publish) },
      { method: 'POST', path: `${v}/:id/comments`, auth: true, handle: asAccount(comment) },
      { method: 'GET', path: `${v}/:id`, auth: true, handle: asAccount(readNode) },
    ],
    errors: INSTAGRAM_ERRORS,
  });

  return {
    kit,
    url: kit.url,
    accounts,
    signIn,
    apps: signIn.apps,
    codes: signIn.codes,
    tokens,
    containers,
    posts,
    statusOf,
    /** A Page token of the account (Facebook Login), or its 60-day token (Instagram Login). */
    pageToken: (account = accounts[0]!) => signIn.grant('page', account.id),
    instagramToken: (ageMs = 0, account = accounts[0]!) => signIn.grant('ig-long', account.id, ageMs),
    /** Every secret: tokens, codes, the apps' secrets. */
    secrets: () => [
      ...kit.credentials.all(),
      ...signIn.codes.keys(),
      signIn.apps.facebook.clientSecret,
      signIn.apps.instagram.clientSecret,
    ],
    close: () => kit.close(),
  };
}
