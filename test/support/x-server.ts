/**
 * An X stand-in on 127.0.0.1 for connector tests, on the fake-platform kit, answering as docs.x.com and
 * the API's OpenAPI spec say: OAuth 2.0 (x-sign-in.ts), `GET /2/users/me`, `GET /2/users/:id/tweets`,
 * `POST /2/tweets` (201 `{data:{id,text}}`, no unknown member, media or a poll, replies, 403 for
 * duplicate content), and the media upload endpoints (one-shot for images; initialize, append, finalize
 * for video, then STATUS pending → in_progress → succeeded or failed, with `check_after_secs`). Errors
 * read as X's: problem JSON (`{title, detail, type, status}`), `errors[].message` for invalid requests,
 * `x-rate-limit-*` headers on every answer when `rateLimit` is set. The kit scripts the rest: 5xx, 429,
 * hangs, a post created whose answer is lost.
 */
import { type FakeAnswer, type FakeRequest, startFakePlatform } from './fake-platform/kit.js';
import { registerMedia, type XMediaStore } from './x-media-routes.js';
import { XSignIn } from './x-sign-in.js';

export interface XServerOptions {
  username?: string;
  /** The stand-in's clock (codes, token expiry, processing, rate limits). Default Date.now. */
  now?: () => number;
  /** How long (by `now`) an uploaded video processes. Default 2,000 ms. */
  videoProcessingMs?: number;
  /** Videos fail processing (X's `processing_info.error`). */
  videoProcessingFails?: boolean;
  /** Replies are refused, as for self-serve apps not "summoned" by the author (since 2026-02-23). */
  refuseReplies?: boolean;
  /** `x-rate-limit-*` counters per user on every answer. */
  rateLimit?: { limit?: number; windowSeconds?: number };
  fileSizeLimit?: number;
}

export interface XPost {
  id: string;
  text: string;
  mediaIds: string[];
  poll: { options: string[]; duration_minutes: number } | null;
  replyTo: string | null;
  createdAtMs: number;
}

export type XServer = Awaited<ReturnType<typeof startXServer>>;

export const X_USER_ID = '1460000000000000001';
const POST_MEMBERS = new Set([
  'text',
  'media',
  'poll',
  'reply',
  'quote_tweet_id',
  'reply_settings',
  'made_with_ai',
  'paid_partnership',
  'community_id',
  'share_with_followers',
  'for_super_followers_only',
  'nullcast',
  'geo',
  'card_uri',
  'direct_message_deep_link',
  'edit_options',
]);

const bearerOf = (request: FakeRequest) =>
  /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim();

/** X's weighted length (twitter-text v3), written apart from ours: ranges of weight 1, URL 23. */
export function xWeight(text: string): number {
  const light = (p: number) =>
    p <= 4351 || (p >= 8192 && p <= 8205) || (p >= 8208 && p <= 8223) || (p >= 8242 && p <= 8247);
  let urls = 0;
  const rest = text.normalize('NFC').replace(/https?:\/\/\S+/g, () => {
    urls++;
    return '';
  });
  const segments = [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(rest)];
  return (
    urls * 23 +
    segments.reduce((sum, { segment }) => {
      if (/\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(segment)) return sum + 2;
      return sum + [...segment].reduce((n, ch) => n + (light(ch.codePointAt(0)!) ? 1 : 2), 0);
    }, 0)
  );
}

const problem = (status: number, title: string, detail: string, type = 'about:blank'): FakeAnswer => ({
  status,
  body: { title, detail, type, status },
});
const invalid = (message: string): FakeAnswer => ({
  status: 400,
  body: {
    errors: [{ message }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: 'https://api.x.com/2/problems/invalid-request',
  },
});

export async function startXServer(options: XServerOptions = {}) {
  const username = options.username ?? 'acme';
  const now = options.now ?? Date.now;
  const posts: XPost[] = [];
  let nextId = 1_860_000_000_000_000_000n;
  const newId = () => String(++nextId);
  let signIn: XSignIn;
  const media: XMediaStore = new Map();

  /** The token's expiry and scopes, after the kit's check that it is known and not revoked. */
  const guarded =
    (scopes: string[], work: (request: FakeRequest) => FakeAnswer) =>
    (request: FakeRequest): FakeAnswer => {
      const token = bearerOf(request) ?? '';
      if (signIn.expired(token)) return problem(401, 'Unauthorized', 'Unauthorized');
      const granted = signIn.scopesOf.get(token) ?? [];
      if (!scopes.every((scope) => granted.includes(scope))) {
        return problem(
          403,
          'Forbidden',
          'You are not permitted to perform this action.',
          'https://api.x.com/2/problems/client-forbidden',
        );
      }
      return work(request);
    };

  const shownText = (post: XPost) => {
    const escaped = post.text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
    const linked = escaped.replace(/https?:\/\/\S+/g, () => `https://t.co/${newId().slice(-10)}`);
    return post.mediaIds.length > 0 ? `${linked} https://t.co/${post.id.slice(-10)}` : linked;
  };

  function createPost(request: FakeRequest): FakeAnswer {
    const body = request.body.json as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object') return invalid('The request body is not valid JSON.');
    const unknown = Object.keys(body).find((key) => !POST_MEMBERS.has(key));
    if (unknown) {
      return invalid(
        `[$.${unknown}: is not defined in the schema and the schema does not allow additional properties]`,
      );
    }
    const text = typeof body.text === 'string' ? body.text : '';
    const mediaIds = ((body.media as { media_ids?: unknown } | undefined)?.media_ids ?? []) as string[];
    const poll = (body.poll ?? null) as XPost['poll'];
    const replyTo = ((body.reply as { in_reply_to_tweet_id?: unknown } | undefined)?.in_reply_to_tweet_id ??
      null) as string | null;
    if (!text && mediaIds.length === 0) return invalid('Text or media is required.');
    if (xWeight(text) > 280) return invalid('Your Tweet text is too long.');
    if (poll && mediaIds.length > 0) return invalid('media and poll are mutually exclusive.');
    if (mediaIds.length > 4)
      return invalid('[$.media.media_ids: there must be a maximum of 4 items in the array]');
    for (const id of mediaIds) {
      const item = media.get(id);
      if (!item?.ready(now()) || item.expiresAtMs < now()) return invalid('Your media IDs are invalid.');
      if (item.category !== 'tweet_image' && mediaIds.length > 1)
        return invalid('Your media IDs are invalid.');
    }
    if (poll) {
      const { options: choices, duration_minutes: minutes } = poll;
      if (!Array.isArray(choices) || choices.length < 2 || choices.length > 4) {
        return invalid('[$.poll.options: there must be a minimum of 2 and a maximum of 4 items]');
      }
      if (
        choices.some(
          (choice) => typeof choice !== 'string' || [...choice].length < 1 || [...choice].length > 25,
        )
      ) {
        return invalid('[$.poll.options: each option must be 1 to 25 characters]');
      }
      if (!Number.isInteger(minutes) || minutes < 5 || minutes > 10_080) {
        return invalid('[$.poll.duration_minutes: must be between 5 and 10080]');
      }
    }
    if (replyTo !== null) {
      if (!posts.some((post) => post.id === replyTo))
        return invalid('The post you are replying to does not exist.');
      if (options.refuseReplies) {
        return problem(
          403,
          'Forbidden',
          'Reply to this conversation is not allowed because you have not been mentioned or otherwise engaged by the author of the post you are replying to.',
        );
      }
    }
    if (posts.some((post) => post.text === text && post.replyTo === replyTo && text !== '')) {
      return problem(403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.');
    }
    const post: XPost = { id: newId(), text, mediaIds, poll, replyTo, createdAtMs: now() };
    posts.push(post);
    return {
      status: 201,
      body: { data: { id: post.id, text: shownText(post), edit_history_post_ids: [post.id] } },
    };
  }

  function timeline(request: FakeRequest): FakeAnswer {
    if (request.params.id !== X_USER_ID) return problem(404, 'Not Found Error', 'Could not find user.');
    const max = Number(request.query.get('max_results') ?? 10);
    if (!Number.isInteger(max) || max < 5 || max > 100)
      return invalid('max_results must be between 5 and 100.');
    const start = request.query.get('start_time');
    const since = start ? Date.parse(start) : 0;
    const found = posts
      .filter((post) => post.createdAtMs >= since)
      .reverse()
      .slice(0, max);
    if (found.length === 0) return { status: 200, body: { meta: { result_count: 0 } } };
    const data = found.map((post) => ({
      id: post.id,
      text: shownText(post),
      edit_history_tweet_ids: [post.id],
      created_at: new Date(post.createdAtMs).toISOString(),
      ...(post.mediaIds.length > 0
        ? { attachments: { media_keys: post.mediaIds.map((id) => media.get(id)?.key ?? id) } }
        : {}),
      ...(post.replyTo ? { referenced_tweets: [{ type: 'replied_to', id: post.replyTo }] } : {}),
    }));
    return { status: 200, body: { data, meta: { result_count: data.length } } };
  }

  const limitHeaders = (limit: number, remaining: number, resetAtMs: number) => ({
    'x-rate-limit-limit': String(limit),
    'x-rate-limit-remaining': String(remaining),
    'x-rate-limit-reset': String(Math.ceil(resetAtMs / 1000)),
  });
  const kit = await startFakePlatform({
    now,
    fileSizeLimit: options.fileSizeLimit,
    tokenOf: bearerOf,
    accountOf: (request) => (bearerOf(request) ? X_USER_ID : undefined),
    ...(options.rateLimit && {
      rateLimit: {
        limit: options.rateLimit.limit ?? 100,
        windowMs: (options.rateLimit.windowSeconds ?? 900) * 1000,
        headers: (state) => limitHeaders(state.limit, state.remaining, state.resetAtMs),
      },
    }),
    routes: [
      // Through `signIn`, made once the kit (whose credentials it issues) exists.
      { method: 'GET', path: '/i/oauth2/authorize', handle: (request) => signIn.authorize(request) },
      { method: 'POST', path: '/2/oauth2/token', handle: (request) => signIn.token(request) },
      {
        method: 'GET',
        path: '/2/users/me',
        auth: true,
        handle: guarded(['users.read', 'tweet.read'], () => ({
          status: 200,
          body: { data: { id: X_USER_ID, name: 'Acme', username } },
        })),
      },
      {
        method: 'GET',
        path: '/2/users/:id/tweets',
        auth: true,
        handle: guarded(['tweet.read', 'users.read'], timeline),
      },
      {
        method: 'POST',
        path: '/2/tweets',
        auth: true,
        handle: guarded(['tweet.read', 'tweet.write', 'users.read'], createPost),
      },
      ...registerMedia({
        media,
        now,
        newId,
        processingMs: options.videoProcessingMs ?? 2_000,
        fails: options.videoProcessingFails ?? false,
      }).map((route) => ({ ...route, auth: true, handle: guarded(['media.write'], route.handle) })),
    ],
    errors: {
      failure: (status, said) => {
        const titles: Record<number, string> = {
          400: 'Invalid Request',
          403: 'Forbidden',
          404: 'Not Found Error',
          408: 'Request Timeout',
          500: 'Internal Server Error',
          502: 'Bad Gateway',
          503: 'Service Unavailable',
        };
        const title = titles[status] ?? `HTTP ${status}`;
        return problem(status, title, said ?? title);
      },
      rateLimited: ({ retryAfterSeconds, resetAtMs }) => ({
        status: 429,
        headers: {
          ...limitHeaders(options.rateLimit?.limit ?? 100, 0, resetAtMs),
          ...(retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) }),
        },
        body: { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
      }),
      unauthorized: () => problem(401, 'Unauthorized', 'Unauthorized'),
      notFound: () => ({
        status: 404,
        body: { errors: [{ message: 'Sorry, that page does not exist', code: 34 }] },
      }),
    },
  });
  signIn = new XSignIn(kit.credentials, now);

  return {
    url: kit.url,
    kit,
    posts,
    media,
    username,
    userId: X_USER_ID,
    /** The app registered on the stand-in, its sign-in state, and a shortcut to signed-in tokens. */
    get signIn() {
      return signIn;
    },
    tokens: (scopes?: string) => signIn.issue(scopes),
    /** Every secret in play: access tokens, refresh tokens, the app's secret. */
    secrets: () => [...kit.credentials.all(), ...signIn.issuedRefreshTokens, signIn.app.clientSecret],
    close: () => kit.close(),
  };
}
