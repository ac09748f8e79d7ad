/**
 * A stand-in for TikTok's Login Kit and Content Posting API on 127.0.0.1, on the fake-platform kit,
 * answering as developers.tiktok.com documents them:
 *
 * - `GET /v2/auth/authorize/` (`client_key`, a registered redirect URI, scopes comma separated, PKCE
 *   S256), approved at once; `POST /v2/oauth/token/` (form with `client_key`): a code works once, for
 *   10 minutes, with its redirect URI and verifier; tokens of 24 hours and refresh tokens of 365 days,
 *   a refresh answering a new refresh token and spending the old one; flat `{error, error_description}`;
 * - `GET /v2/user/info/`, `POST /v2/post/publish/creator_info/query/` (20 a minute per token);
 * - `POST /v2/post/publish/video/init/` and `/inbox/video/init/` (6 a minute): FILE_UPLOAD with the
 *   chunk rules (refused `invalid_params` otherwise), the privacy level among the creator's options
 *   (`privacy_level_option_mismatch`), an unaudited app posting only SELF_ONLY to a private account;
 *   then `PUT /upload/?upload_id&upload_token` chunk by chunk, in order, with Content-Range (206, the
 *   last 201); `POST /v2/post/publish/content/init/` for photos by PULL_FROM_URL, from a verified prefix
 *   only (`url_ownership_unverified`), **downloaded** as TikTok does;
 * - `POST /v2/post/publish/status/fetch/` (30 a minute): PROCESSING_UPLOAD, PROCESSING_DOWNLOAD for
 *   `processingMs`, then FAILED with a scripted `fail_reason`, SEND_TO_USER_INBOX, or PUBLISH_COMPLETE
 *   with `publicaly_available_post_id` (a 19-digit int64, written as JSON numbers as TikTok does) after
 *   `moderationMs` more;
 * - every answer in the envelope `{data, error: {code, message, log_id}}`; a daily post cap per creator
 *   (`spam_risk_too_many_posts`).
 * The kit scripts the rest: 5xx, 429s, hangs, a chunk carried out whose answer is lost, a cut connection.
 */
import { randomBytes } from 'node:crypto';
import { type FakeAnswer, type FakeRequest, startFakePlatform } from './fake-platform/kit.js';
import { TIKTOK_OPEN_ID, tiktokSignIn } from './tiktok-sign-in.js';
import {
  chunkRuleBroken,
  download,
  invalid,
  ok,
  statusOf,
  type TikTokPublish,
  tiktokError,
  uploadChunk,
} from './tiktok-transfer.js';

export { chunkRuleBroken, TIKTOK_OPEN_ID, type TikTokPublish, tiktokError };

const DAY_S = 86_400;

export interface TikTokServerOptions {
  now?: () => number;
  /** How long (by `now`) TikTok processes a post once it has it all. Default 0. */
  processingMs?: number;
  /** How long after PUBLISH_COMPLETE the public id is withheld. Default 0. */
  moderationMs?: number;
  username?: string;
  privacyLevels?: string[];
  maxVideoSeconds?: number;
  /** The app passed TikTok's audit. Default false: SELF_ONLY to a private account only. */
  audited?: boolean;
  /** The creator's account is private. Default true. */
  privateAccount?: boolean;
  /** Posts a creator may make a day. Default 15. */
  dailyPosts?: number;
}

export type TikTokServer = Awaited<ReturnType<typeof startTikTokServer>>;

export async function startTikTokServer(options: TikTokServerOptions = {}) {
  const now = options.now ?? Date.now;
  const settings = {
    username: options.username ?? 'acme.roasters',
    privacyLevels: options.privacyLevels ?? ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
    maxVideoSeconds: options.maxVideoSeconds ?? 600,
    audited: options.audited ?? false,
    privateAccount: options.privateAccount ?? true,
    processingMs: options.processingMs ?? 0,
    moderationMs: options.moderationMs ?? 0,
    dailyPosts: options.dailyPosts ?? 15,
    verifiedPrefixes: [] as string[],
  };
  const publishes = new Map<string, TikTokPublish>();
  const windows = new Map<string, { startMs: number; count: number }>();
  const failNextPublish: string[] = [];
  let nextPostId = 7_300_000_000_000_000_000n;
  let kit: Awaited<ReturnType<typeof startFakePlatform>>;
  const signIn = tiktokSignIn(now, () => kit.credentials);
  const { app, codes, tokens, tokenOf, issue, authorize, token } = signIn;

  /** An API route: a live token with `scope`, within the endpoint's per-minute limit. */
  const asUser =
    (
      scope: string | null,
      perMinute: number,
      work: (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer>,
    ) =>
    async (request: FakeRequest): Promise<FakeAnswer> => {
      const token = tokenOf(request) ?? '';
      const user = tokens.get(token);
      if (!user || user.expiresAtMs <= now()) {
        return tiktokError(
          401,
          'access_token_invalid',
          'The access token is invalid or not found in the request.',
        );
      }
      if (scope && !user.scopes.includes(scope)) {
        return tiktokError(
          401,
          'scope_not_authorized',
          `The user did not authorize the scope required for completing this request.`,
        );
      }
      const key = `${token} ${request.route}`;
      const window = windows.get(key);
      const current = window && now() - window.startMs < 60_000 ? window : { startMs: now(), count: 0 };
      current.count += 1;
      windows.set(key, current);
      if (current.count > perMinute) {
        return tiktokError(
          429,
          'rate_limit_exceeded',
          'API rate limit was exceeded, please try again later.',
        );
      }
      return work(request);
    };

  function postsToday(): number {
    const since = now() - DAY_S * 1000;
    return [...publishes.values()].filter((p) => p.mode === 'DIRECT_POST' && p.createdAtMs > since).length;
  }

  function directPostRefusal(postInfo: Record<string, unknown>): FakeAnswer | undefined {
    const level = postInfo.privacy_level;
    if (typeof level !== 'string' || !settings.privacyLevels.includes(level)) {
      return tiktokError(
        400,
        'privacy_level_option_mismatch',
        'privacy_level is not one of the privacy_level_options of the creator.',
      );
    }
    if (!settings.audited && (level !== 'SELF_ONLY' || !settings.privateAccount)) {
      return tiktokError(
        403,
        'unaudited_client_can_only_post_to_private_accounts',
        'Please review our integration guidelines at https://developers.tiktok.com/doc/content-sharing-guidelines/',
      );
    }
    if (postsToday() >= settings.dailyPosts) {
      return tiktokError(
        403,
        'spam_risk_too_many_posts',
        'The daily post cap from the API is reached for the current user.',
      );
    }
    return undefined;
  }

  function newPublish(
    kind: TikTokPublish['kind'],
    mode: TikTokPublish['mode'],
    postInfo: Record<string, unknown>,
  ): TikTokPublish {
    const publish: TikTokPublish = {
      publishId: `v_pub_file~v2-1.${randomBytes(8).toString('hex')}`,
      kind,
      mode,
      postInfo,
      size: 0,
      chunkSize: 0,
      chunkCount: 0,
      received: 0,
      chunks: [],
      photoUrls: [],
      downloaded: [],
      completeAtMs: null,
      failReason: null,
      postId: null,
      uploadToken: randomBytes(16).toString('hex'),
      createdAtMs: now(),
    };
    publishes.set(publish.publishId, publish);
    return publish;
  }

  /** All of it is with TikTok: processing starts. */
  function received(publish: TikTokPublish): void {
    publish.completeAtMs = now() + settings.processingMs;
    publish.failReason = failNextPublish.shift() ?? null;
    if (!publish.failReason && publish.mode === 'DIRECT_POST') publish.postId = String(++nextPostId);
  }

  function videoInit(inbox: boolean) {
    return (request: FakeRequest): FakeAnswer => {
      const body = (request.body.json ?? {}) as {
        post_info?: Record<string, unknown>;
        source_info?: Record<string, unknown>;
      };
      const source = body.source_info ?? {};
      const postInfo = body.post_info ?? {};
      if (!inbox) {
        if (typeof postInfo.title === 'string' && postInfo.title.length > 2200)
          return invalid('title is longer than 2200 runes.');
        const refused = directPostRefusal(postInfo);
        if (refused) return refused;
      }
      if (source.source !== 'FILE_UPLOAD')
        return invalid('source must be FILE_UPLOAD or PULL_FROM_URL from a verified domain.');
      const [size, chunkSize, count] = [source.video_size, source.chunk_size, source.total_chunk_count].map(
        Number,
      ) as [number, number, number];
      const broken = chunkRuleBroken(size, chunkSize, count);
      if (broken) return invalid(broken);
      const publish = newPublish('video', inbox ? 'MEDIA_UPLOAD' : 'DIRECT_POST', postInfo);
      Object.assign(publish, { size, chunkSize, chunkCount: count });
      const uploadUrl = `${kit.url}/upload/?upload_id=${publish.publishId}&upload_token=${publish.uploadToken}`;
      return ok({ publish_id: publish.publishId, upload_url: uploadUrl });
    };
  }

  async function photoInit(request: FakeRequest): Promise<FakeAnswer> {
    const body = (request.body.json ?? {}) as Record<string, Record<string, unknown> | string | undefined>;
    const postInfo = (body.post_info ?? {}) as Record<string, unknown>;
    const source = (body.source_info ?? {}) as Record<string, unknown>;
    const mode = body.post_mode === 'MEDIA_UPLOAD' ? 'MEDIA_UPLOAD' : 'DIRECT_POST';
    if (body.media_type !== 'PHOTO') return invalid('media_type must be PHOTO.');
    if (typeof postInfo.title === 'string' && postInfo.title.length > 90)
      return invalid('title is longer than 90 runes.');
    if (typeof postInfo.description === 'string' && postInfo.description.length > 4000)
      return invalid('description is longer than 4000 runes.');
    if (mode === 'DIRECT_POST') {
      const refused = directPostRefusal(postInfo);
      if (refused) return refused;
    }
    const urls = Array.isArray(source.photo_images) ? (source.photo_images as string[]) : [];
    if (source.source !== 'PULL_FROM_URL') return invalid('Photos are posted by PULL_FROM_URL only.');
    if (urls.length < 1 || urls.length > 35) return invalid('photo_images holds 1 to 35 URLs.');
    if (urls.some((url) => !settings.verifiedPrefixes.some((prefix) => url.startsWith(prefix)))) {
      return tiktokError(
        403,
        'url_ownership_unverified',
        'Please review our URL ownership verification rules.',
      );
    }
    const publish = newPublish('photo', mode, postInfo);
    publish.photoUrls = urls;
    publish.downloaded = (await Promise.all(urls.map(download))).map((bytes) => bytes ?? -1);
    received(publish);
    if (publish.downloaded.includes(-1))
      Object.assign(publish, { failReason: 'photo_pull_failed', postId: null });
    return ok({ publish_id: publish.publishId });
  }

  kit = await startFakePlatform({
    now,
    tokenOf,
    routes: [
      { method: 'GET', path: '/v2/auth/authorize/', handle: authorize },
      { method: 'POST', path: '/v2/oauth/token/', handle: token },
      {
        method: 'GET',
        path: '/v2/user/info/',
        auth: true,
        handle: asUser('user.info.basic', 600, () =>
          ok({ user: { open_id: TIKTOK_OPEN_ID, display_name: 'Acme Roasters' } }),
        ),
      },
      {
        method: 'POST',
        path: '/v2/post/publish/creator_info/query/',
        auth: true,
        handle: asUser('video.publish', 20, () =>
          ok({
            creator_avatar_url: 'https://p16.tiktokcdn.example/avatar.jpeg',
            creator_username: settings.username,
            creator_nickname: 'Acme Roasters',
            privacy_level_options: settings.privacyLevels,
            comment_disabled: false,
            duet_disabled: false,
            stitch_disabled: true,
            max_video_post_duration_sec: settings.maxVideoSeconds,
          }),
        ),
      },
      {
        method: 'POST',
        path: '/v2/post/publish/video/init/',
        auth: true,
        handle: asUser('video.publish', 6, videoInit(false)),
      },
      {
        method: 'POST',
        path: '/v2/post/publish/inbox/video/init/',
        auth: true,
        handle: asUser('video.upload', 6, videoInit(true)),
      },
      {
        method: 'POST',
        path: '/v2/post/publish/content/init/',
        auth: true,
        handle: asUser(null, 6, photoInit),
      },
      {
        method: 'PUT',
        path: '/upload/',
        handle: (request) =>
          uploadChunk(publishes.get(request.query.get('upload_id') ?? ''), request, received),
      },
      {
        method: 'POST',
        path: '/v2/post/publish/status/fetch/',
        auth: true,
        handle: asUser(null, 30, (request) =>
          statusOf(
            publishes.get(
              String((request.body.json as { publish_id?: unknown } | undefined)?.publish_id ?? ''),
            ),
            now(),
            settings.moderationMs,
          ),
        ),
      },
    ],
    errors: {
      failure: (status, said) =>
        tiktokError(
          status,
          status === 401
            ? 'access_token_invalid'
            : status === 429
              ? 'rate_limit_exceeded'
              : status >= 500
                ? 'internal_error'
                : 'invalid_params',
          said ?? 'Something went wrong. Please try again later.',
        ),
      rateLimited: ({ retryAfterSeconds }) =>
        tiktokError(
          429,
          'rate_limit_exceeded',
          'API rate limit was exceeded, please try again later.',
          retryAfterSeconds === undefined ? undefined : { 'retry-after': String(retryAfterSeconds) },
        ),
      unauthorized: () =>
        tiktokError(401, 'access_token_invalid', 'The access token is invalid or not found in the request.'),
      notFound: (request) => tiktokError(404, 'invalid_params', `Unknown path ${request.path}.`),
    },
  });

  return {
    kit,
    url: kit.url,
    app,
    settings,
    codes,
    tokens,
    publishes,
    /** The public ids of the posts TikTok has made public. */
    published: () =>
      [...publishes.values()]
        .filter((p) => p.postId && p.completeAtMs !== null && now() >= p.completeAtMs)
        .map((p) => p.postId!),
    /** The next publish that TikTok has in full fails with this reason. */
    failNextPublish: (reason: string) => failNextPublish.push(reason),
    /** A signed-in creator's tokens, with every scope of the connector. */
    userTokens(): { accessToken: string; refreshToken: string } {
      const { body } = issue(['user.info.basic', 'video.publish', 'video.upload']);
      return { accessToken: body.access_token, refreshToken: body.refresh_token };
    },
    /** Every secret: tokens, codes, upload tokens, the app secret. */
    secrets: () => [
      ...kit.credentials.all(),
      ...codes.keys(),
      ...[...publishes.values()].map((p) => p.uploadToken),
      app.clientSecret,
    ],
    close: () => kit.close(),
  };
}
