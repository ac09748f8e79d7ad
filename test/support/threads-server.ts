/**
 * A stand-in for Meta's Threads API on 127.0.0.1, on the fake-platform kit, answering as
 * developers.facebook.com/documentation/threads says (and, where it is silent, as integrators report):
 *
 * - Threads Login: the authorization page `/oauth/authorize` (approved at once, redirecting with
 *   `code` and `state` to a registered redirect URI: Meta's dashboard takes https ones only, the tests
 *   register the loopback one they listen on), `POST /oauth/access_token` (form; a code works once, for
 *   10 minutes, with its redirect URI: a short-lived token of an hour), `GET /access_token?grant_type=
 *   th_exchange_token` (a long-lived token of 60 days), `GET /refresh_access_token?grant_type=
 *   th_refresh_token` (a long-lived token at least 24 hours old and not expired: a new one);
 * - `GET /{version}/me?fields=id,username`;
 * - `POST /{version}/me/threads`: a container (TEXT with `poll_attachment`, IMAGE with `image_url`,
 *   VIDEO with `video_url`, carousel items with `is_carousel_item`, CAROUSEL with 2–20 `children`,
 *   `reply_to_id`). The stand-in **downloads** the address it is given, as Meta's crawler does: a file it
 *   cannot fetch makes the container ERROR (`FAILED_DOWNLOADING_VIDEO` for a video, `UNKNOWN` for an
 *   image: Meta's documented list has no image message). A media container processes for
 *   `processingMs`; `GET /{container}?fields=status,error_message` says IN_PROGRESS, FINISHED, ERROR,
 *   EXPIRED (24 hours unpublished) or PUBLISHED;
 * - `POST /{version}/me/threads_publish` with `creation_id`: refused while the container is not
 *   FINISHED (24/4279009 "Media Not Found", as reported), refused for a container published already;
 *   `GET /{post}?fields=permalink`; at most `publishQuota` posts (replies aside) in 24 hours (Meta's
 *   250), refused past it with code 4, and `GET /{version}/me/threads_publishing_limit` telling
 *   `quota_usage` and `config: { quota_total, quota_duration }`;
 * - a text over 500 characters counted as Threads counts them (an emoji its UTF-8 bytes) refused;
 * - errors in Meta's envelope: 190 for a token revoked or expired, 100 for a bad parameter, 4 (app
 *   limit) with `X-App-Usage` at 100 when the kit's counters are spent, 368 scripted with `graphError`;
 *   `X-App-Usage` (percent of the kit's per-token counters) on every API answer.
 *
 * The kit scripts the rest: 5xx, hangs, a post published whose answer is lost, a dropped connection.
 */
import { randomBytes } from 'node:crypto';
import { type FakeAnswer, type FakeRequest, startFakePlatform } from './fake-platform/kit.js';

export const THREADS_USER_ID = '17841400000000001';

/** The engine tests' Threads channel (support/oauth-engine.ts), on the stand-in at `url`. */
export const threadsChannel = (url: string) => ({
  name: 'Acme on Threads',
  type: 'Threads' as const,
  connector: 'threads' as const,
  account: '@acme',
  accountId: THREADS_USER_ID,
  instance: url,
});
export const LONG_LIVED_SECONDS = 5_183_944;
const CODE_LIFETIME_MS = 10 * 60_000;
const CONTAINER_LIFETIME_MS = 24 * 3_600_000;

export interface ThreadsServerOptions {
  now?: () => number;
  /** How long (by `now`) a media container processes. Default 0. */
  processingMs?: number;
  /** The profile's username. Default 'acme'. */
  username?: string;
  /** Requests per token before its app limit is spent. Default 1,000. */
  callLimit?: number;
  /** Posts a profile may publish in 24 hours. Default 250. */
  publishQuota?: number;
}

/** Threads' count, written apart from the connector's: each emoji part its UTF-8 bytes. */
function threadsCount(text: string): number {
  let count = 0;
  for (const char of text) {
    const emoji = /\p{Extended_Pictographic}|\u200d|\ufe0f|\p{Emoji_Modifier}/u.test(char);
    count += emoji ? Buffer.byteLength(char) : 1;
  }
  return count;
}

export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';

export interface ThreadsContainer {
  id: string;
  mediaType: string;
  text: string;
  mediaUrl: string | null;
  /** Bytes downloaded from `mediaUrl`, or null when the download failed. */
  downloaded: number | null;
  children: string[];
  carouselItem: boolean;
  replyTo: string | null;
  poll: Record<string, string> | null;
  altText: string | null;
  readyAtMs: number;
  createdAtMs: number;
  errorMessage: string | null;
  publishedAs: string | null;
}

export interface ThreadsPost {
  id: string;
  containerId: string;
  mediaType: string;
  text: string;
  replyTo: string | null;
  permalink: string;
  publishedAtMs: number;
}

export type ThreadsServer = Awaited<ReturnType<typeof startThreadsServer>>;

/** An answer in Meta's error envelope (Threads uses `THApiException` beside `OAuthException`). */
export function graphError(
  code: number,
  message: string,
  extra: { status?: number; subcode?: number; userMessage?: string; headers?: Record<string, string> } = {},
): FakeAnswer {
  return {
    status: extra.status ?? (code === 1 || code === 2 ? 500 : 400),
    ...(extra.headers ? { headers: extra.headers } : {}),
    body: {
      error: {
        message,
        type: code === 190 ? 'OAuthException' : 'THApiException',
        code,
        ...(extra.subcode === undefined ? {} : { error_subcode: extra.subcode }),
        ...(extra.userMessage ? { error_user_title: 'Error', error_user_msg: extra.userMessage } : {}),
        is_transient: code === 1 || code === 2,
        fbtrace_id: randomBytes(8).toString('base64url'),
      },
    },
  };
}

const invalid = (message: string) => graphError(100, `(#100) ${message}`);

/** Downloads `url` as Meta's crawler would: the bytes, or null when it cannot. */
async function download(url: string, video: boolean): Promise<number | null> {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    if (!answer.ok) return null;
    const type = answer.headers.get('content-type') ?? '';
    const bytes = (await answer.arrayBuffer()).byteLength;
    if (bytes === 0 || !type.startsWith(video ? 'video/' : 'image/')) return null;
    return bytes;
  } catch {
    return null;
  }
}

export async function startThreadsServer(options: ThreadsServerOptions = {}) {
  const now = options.now ?? Date.now;
  const username = options.username ?? 'acme';
  const app = {
    clientId: String(2_000_000_000 + Math.floor(Math.random() * 1e9)),
    clientSecret: randomBytes(16).toString('hex'),
    redirectUris: ['https://example.com/threads-callback'],
  };
  const codes = new Map<string, { redirectUri: string; scopes: string[]; atMs: number; used: boolean }>();
  const tokens = new Map<
    string,
    { long: boolean; issuedAtMs: number; expiresAtMs: number; scopes: string[] }
  >();
  const containers = new Map<string, ThreadsContainer>();
  const posts: ThreadsPost[] = [];
  let nextId = 18_000_000_000_000_000n;
  const newId = () => String(++nextId);
  let kit: Awaited<ReturnType<typeof startFakePlatform>>;

  const field = (request: FakeRequest, name: string) =>
    new Map(request.body.fields).get(name) ?? request.query.get(name) ?? undefined;
  const tokenOf = (request: FakeRequest): string | undefined =>
    /^(?:Bearer|OAuth)\s+(.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1]?.trim() ??
    request.query.get('access_token') ??
    new Map(request.body.fields).get('access_token');

  const issue = (long: boolean, scopes: string[]) => {
    const token = kit.credentials.issue();
    const seconds = long ? LONG_LIVED_SECONDS : 3_600;
    tokens.set(token, { long, issuedAtMs: now(), expiresAtMs: now() + seconds * 1000, scopes });
    return { token, seconds };
  };

  /** An API route: a token of this stand-in, not expired; `X-App-Usage` on the answer. */
  const asUser =
    (work: (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer>) =>
    async (request: FakeRequest): Promise<FakeAnswer> => {
      const user = tokens.get(tokenOf(request) ?? '');
      if (!user) return graphError(190, 'Invalid OAuth access token - Cannot parse access token');
      if (user.expiresAtMs <= now()) {
        return graphError(190, 'Error validating access token: Session has expired.', { subcode: 463 });
      }
      const answer = await work(request);
      const { limit = 1, remaining = 1 } = request.rateLimit ?? {};
      const used = Math.round(((limit - remaining) / Math.max(1, limit)) * 100);
      const usage = JSON.stringify({ call_count: used, total_cputime: 1, total_time: 1 });
      return { ...answer, headers: { ...answer.headers, 'x-app-usage': usage } };
    };

  function statusOf(container: ThreadsContainer): ContainerStatus {
    if (container.publishedAs) return 'PUBLISHED';
    if (container.errorMessage) return 'ERROR';
    if (now() - container.createdAtMs > CONTAINER_LIFETIME_MS) return 'EXPIRED';
    const children = container.children.map((id) => containers.get(id)!);
    if (children.some((child) => statusOf(child) === 'ERROR')) return 'ERROR';
    if (now() < container.readyAtMs || children.some((child) => statusOf(child) === 'IN_PROGRESS')) {
      return 'IN_PROGRESS';
    }
    return 'FINISHED';
  }

  async function createContainer(request: FakeRequest): Promise<FakeAnswer> {
    const type = (field(request, 'media_type') ?? '').toUpperCase();
    const text = field(request, 'text') ?? '';
    if (!['TEXT', 'IMAGE', 'VIDEO', 'CAROUSEL'].includes(type))
      return invalid('Param media_type is invalid.');
    if (threadsCount(text) > 500) return invalid('Param text must be at most 500 characters long.');
    const carouselItem = field(request, 'is_carousel_item') === 'true';
    const container: ThreadsContainer = {
      id: newId(),
      mediaType: type,
      text,
      mediaUrl: null,
      downloaded: null,
      children: [],
      carouselItem,
      replyTo: null,
      poll: null,
      altText: field(request, 'alt_text') ?? null,
      readyAtMs: now(),
      createdAtMs: now(),
      errorMessage: null,
      publishedAs: null,
    };
    const replyTo = field(request, 'reply_to_id');
    if (replyTo) {
      if (!posts.some((post) => post.id === replyTo))
        return invalid(`The reply_to_id ${replyTo} does not exist.`);
      container.replyTo = replyTo;
    }
    if (type === 'TEXT') {
      if (!text) return invalid('Param text is required for a TEXT post.');
      const poll = field(request, 'poll_attachment');
      if (poll) {
        let options: Record<string, string>;
        try {
          options = JSON.parse(poll) as Record<string, string>;
        } catch {
          return invalid('Param poll_attachment must be a JSON object.');
        }
        const values = Object.values(options);
        if (values.length < 2 || values.length > 4 || values.some((o) => !o || [...o].length > 25)) {
          return invalid('A poll has 2 to 4 options of 1 to 25 characters.');
        }
        container.poll = options;
      }
    } else if (type === 'CAROUSEL') {
      const ids = (field(request, 'children') ?? '').split(',').filter(Boolean);
      if (ids.length < 2 || ids.length > 20) return invalid('A carousel has 2 to 20 children.');
      for (const id of ids) {
        if (!containers.get(id)?.carouselItem) return invalid(`The child ${id} is not a carousel item.`);
      }
      container.children = ids;
    } else {
      const video = type === 'VIDEO';
      const url = field(request, video ? 'video_url' : 'image_url');
      if (!url) return invalid(`Param ${video ? 'video_url' : 'image_url'} is required.`);
      container.mediaUrl = url;
      container.downloaded = await download(url, video);
      if (container.downloaded === null)
        container.errorMessage = video ? 'FAILED_DOWNLOADING_VIDEO' : 'UNKNOWN';
      container.readyAtMs = now() + (options.processingMs ?? 0);
    }
    containers.set(container.id, container);
    return { status: 200, body: { id: container.id } };
  }

  function publish(request: FakeRequest): FakeAnswer {
    const container = containers.get(field(request, 'creation_id') ?? '');
    if (!container || container.carouselItem) return invalid('Param creation_id is not a media container.');
    const status = statusOf(container);
    if (status === 'PUBLISHED') {
      return invalid('The media container has been published already.');
    }
    if (status === 'IN_PROGRESS') {
      return graphError(24, 'The requested resource does not exist', {
        subcode: 4_279_009,
        userMessage: 'Media Not Found',
      });
    }
    if (status !== 'FINISHED') return invalid(`The media container cannot be published (${status}).`);
    if (!container.replyTo && publishedToday() >= (options.publishQuota ?? 250)) {
      return graphError(4, '(#4) Application request limit reached', {
        userMessage: 'This profile has published the most posts it may in 24 hours.',
      });
    }
    const id = newId();
    const code = randomBytes(8).toString('base64url');
    container.publishedAs = id;
    posts.push({
      id,
      containerId: container.id,
      mediaType: container.mediaType,
      text: container.text,
      replyTo: container.replyTo,
      permalink: `https://www.threads.net/@${username}/post/${code}`,
      publishedAtMs: now(),
    });
    return { status: 200, body: { id } };
  }

  /** Posts (replies aside) published in the last 24 hours. */
  const publishedToday = () =>
    posts.filter((post) => !post.replyTo && post.publishedAtMs > now() - 86_400_000).length;

  function publishingLimit(): FakeAnswer {
    const config = { quota_total: options.publishQuota ?? 250, quota_duration: 86_400 };
    return { status: 200, body: { data: [{ quota_usage: publishedToday(), config }] } };
  }

  function readNode(request: FakeRequest): FakeAnswer {
    const id = request.params.id!;
    const container = containers.get(id);
    if (container) {
      const status = statusOf(container);
      return {
        status: 200,
        body: {
          id,
          status,
          ...(status === 'ERROR' ? { error_message: container.errorMessage ?? 'UNKNOWN' } : {}),
        },
      };
    }
    const post = posts.find((candidate) => candidate.id === id);
    if (post) return { status: 200, body: { id, permalink: post.permalink } };
    return graphError(100, `(#100) Object with ID '${id}' does not exist`, { subcode: 33 });
  }

  function authorize(request: FakeRequest): FakeAnswer {
    const q = request.query;
    const page = (message: string): FakeAnswer => ({
      status: 400,
      headers: { 'content-type': 'text/html' },
      body: `<html><body><p>${message}</p></body></html>`,
    });
    if (q.get('client_id') !== app.clientId) return page('Invalid App ID.');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!app.redirectUris.includes(redirectUri)) return page('Invalid redirect_uri: it is not registered.');
    if (q.get('response_type') !== 'code') return page('Unsupported response_type.');
    const code = randomBytes(24).toString('base64url');
    codes.set(code, { redirectUri, scopes: (q.get('scope') ?? '').split(','), atMs: now(), used: false });
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    target.searchParams.set('state', q.get('state') ?? '');
    return { status: 302, headers: { location: `${target.href}#_` } };
  }

  const badClient = () => graphError(101, 'Error validating client secret.', { status: 400 });

  function codeExchange(request: FakeRequest): FakeAnswer {
    if (
      field(request, 'client_id') !== app.clientId ||
      field(request, 'client_secret') !== app.clientSecret
    ) {
      return badClient();
    }
    if (field(request, 'grant_type') !== 'authorization_code') return invalid('Unsupported grant_type.');
    const code = codes.get(field(request, 'code') ?? '');
    if (!code || code.used || now() - code.atMs > CODE_LIFETIME_MS) {
      return graphError(100, 'Invalid authorization code.', { subcode: 36009 });
    }
    code.used = true;
    if (field(request, 'redirect_uri') !== code.redirectUri) {
      return graphError(100, 'Error validating verification code: redirect_uri does not match.', {
        subcode: 36008,
      });
    }
    const { token } = issue(false, code.scopes);
    return { status: 200, body: { access_token: token, user_id: Number(THREADS_USER_ID) } };
  }

  function longLived(request: FakeRequest): FakeAnswer {
    if (request.query.get('client_secret') !== app.clientSecret) return badClient();
    if (request.query.get('grant_type') !== 'th_exchange_token') return invalid('Unsupported grant_type.');
    const short = tokens.get(request.query.get('access_token') ?? '');
    if (!short || short.long || short.expiresAtMs <= now()) {
      return graphError(190, 'Error validating access token: Session has expired.', { subcode: 463 });
    }
    const { token, seconds } = issue(true, short.scopes);
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: seconds } };
  }

  function refresh(request: FakeRequest): FakeAnswer {
    if (request.query.get('grant_type') !== 'th_refresh_token') return invalid('Unsupported grant_type.');
    const old = tokens.get(request.query.get('access_token') ?? '');
    if (!old?.long || old.expiresAtMs <= now()) {
      return graphError(190, 'Error validating access token: Session has expired.', { subcode: 463 });
    }
    if (now() - old.issuedAtMs < 24 * 3_600_000) {
      return invalid('The access token must be at least 24 hours old to be refreshed.');
    }
    const { token, seconds } = issue(true, old.scopes);
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: seconds } };
  }

  const v = '/:version';
  kit = await startFakePlatform({
    now,
    tokenOf,
    rateLimit: {
      limit: options.callLimit ?? 1_000,
      windowMs: 3_600_000,
      headers: (state) => {
        const percent = Math.round(((state.limit - state.remaining) / Math.max(1, state.limit)) * 100);
        return { 'x-app-usage': JSON.stringify({ call_count: percent, total_cputime: 1, total_time: 1 }) };
      },
    },
    routes: [
      { method: 'GET', path: '/oauth/authorize', handle: authorize },
      { method: 'POST', path: '/oauth/access_token', handle: codeExchange },
      { method: 'GET', path: '/access_token', handle: longLived },
      { method: 'GET', path: '/refresh_access_token', handle: refresh },
      {
        method: 'GET',
        path: `${v}/me`,
        auth: true,
        handle: asUser(() => ({ status: 200, body: { id: THREADS_USER_ID, username } })),
      },
      { method: 'POST', path: `${v}/me/threads`, auth: true, handle: asUser(createContainer) },
      { method: 'POST', path: `${v}/me/threads_publish`, auth: true, handle: asUser(publish) },
      {
        method: 'GET',
        path: `${v}/me/threads_publishing_limit`,
        auth: true,
        handle: asUser(publishingLimit),
      },
      { method: 'GET', path: `${v}/:id`, auth: true, handle: asUser(readNode) },
    ],
    errors: {
      failure: (status, said) =>
        graphError(
          status >= 500 ? 2 : 100,
          said ?? 'An unexpected error has occurred. Please retry your request later.',
          {
            status,
          },
        ),
      rateLimited: ({ retryAfterSeconds }) =>
        graphError(4, 'Application request limit reached', {
          headers: {
            'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 100, total_time: 100 }),
            ...(retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) }),
          },
        }),
      unauthorized: (problem) =>
        problem === 'revoked'
          ? graphError(190, 'Error validating access token: The user has not authorized application.', {
              subcode: 458,
            })
          : graphError(190, 'Invalid OAuth access token - Cannot parse access token'),
      notFound: (request) => graphError(100, `(#100) Unknown path components: ${request.path}`),
    },
  });

  return {
    kit,
    url: kit.url,
    app,
    codes,
    tokens,
    containers,
    posts,
    statusOf,
    /** A long-lived token with the connector's scopes (a test that starts signed in). */
    userToken(ageMs = 0): string {
      const { token } = issue(true, ['threads_basic', 'threads_content_publish', 'threads_manage_replies']);
      const entry = tokens.get(token)!;
      entry.issuedAtMs -= ageMs;
      return token;
    },
    /** Every secret: tokens, codes, the app secret. */
    secrets: () => [...kit.credentials.all(), ...codes.keys(), app.clientSecret],
    close: () => kit.close(),
  };
}
