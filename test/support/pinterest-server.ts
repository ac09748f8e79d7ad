/**
 * A stand-in for Pinterest's API v5 on 127.0.0.1, on the fake-platform kit, answering as
 * developers.pinterest.com's reference says (and, where it is silent, as integrators report). One
 * server plays every origin: the sign-in page (www.pinterest.com), the API (api.pinterest.com) and the
 * Amazon S3 address video uploads go to.
 *
 * - OAuth: `GET /oauth/` (approved at once: back to a registered redirect URI with `code` and `state`),
 *   `POST /v5/oauth/token` with the app's id and secret as HTTP Basic (form: `authorization_code` with a
 *   code that works once, for 10 minutes, with its redirect URI; or `refresh_token`): an access token of
 *   30 days and a continuous refresh token of 60 days, **spent by its refresh** (the answer carries the
 *   new one);
 * - `GET /v5/user_account`; `GET /v5/boards` and `GET /v5/boards/{board_id}/pins` (`page_size` ≤
 *   250, default 25, the next page by `bookmark`; a board's pins newest first, as a board shows them:
 *   the reference does not say in what order the API lists them);
 * - `POST /v5/pins`: PinCreate checked (board_id a numeric id of a board of the account, title ≤ 100,
 *   description ≤ 800, link ≤ 2048, alt_text ≤ 500) with each media source: `image_url` and
 *   `multiple_image_urls` are downloaded as Pinterest's crawler does, `image_base64` and
 *   `multiple_image_base64` decoded (JPEG or PNG), 2–5 images for a carousel, `video_id` of a video
 *   that `succeeded` with a cover (a URL, base64 data or a key frame time). 201 with the pin;
 * - `POST /v5/media` (`media_type: video`) registers a video: 201 with `upload_url` (this server's
 *   `/pinterest-media-upload`) and `upload_parameters`; that address takes S3's presigned POST (the
 *   parameters as fields, the file as `file`; 204, or S3's XML error); `GET /v5/media/{id}` says
 *   `registered` until the file came, `processing` for `videoProcessingMs`, then `succeeded` (or
 *   `failed` for an empty file, or when `failVideos` is set);
 * - errors as `{ code, message }`: 401 code 2 "Authentication failed.", 429 code 8 with
 *   `X-RateLimit-*` headers (the kit's counters per token), `failNext` in the same shape.
 */
import { randomBytes } from 'node:crypto';
import { type FakeAnswer, type FakeRequest, startFakePlatform } from './fake-platform/kit.js';
import { type PinterestPin, type PinterestVideo, pinJson, pinOf, pinterestError } from './pinterest-pins.js';

export type { PinterestPin, PinterestVideo } from './pinterest-pins.js';

const CODE_LIFETIME_MS = 10 * 60_000;
export const ACCESS_SECONDS = 2_592_000;
export const REFRESH_SECONDS = 5_184_000;
const UPLOAD_PATH = '/pinterest-media-upload';

export interface PinterestServerOptions {
  now?: () => number;
  /** The account's boards. Default: one, "Recipes". */
  boards?: { id: string; name: string }[];
  username?: string;
  /** How long (by `now`) an uploaded video processes. Default 0. */
  videoProcessingMs?: number;
  /** Requests per token per minute before a 429. Default 1,000. */
  callLimit?: number;
}

export type PinterestServer = Awaited<ReturnType<typeof startPinterestServer>>;

const invalid = (message: string) => pinterestError(400, 1, `Invalid request: ${message}`);

export { pinterestError };

export async function startPinterestServer(options: PinterestServerOptions = {}) {
  const now = options.now ?? Date.now;
  const username = options.username ?? 'acmekitchen';
  const boards = options.boards ?? [{ id: '549755885175', name: 'Recipes' }];
  const app = {
    clientId: String(1_500_000 + Math.floor(Math.random() * 1e5)),
    clientSecret: randomBytes(20).toString('hex'),
    redirectUris: [] as string[],
  };
  const codes = new Map<string, { redirectUri: string; scopes: string; atMs: number; used: boolean }>();
  const accessTokens = new Map<string, { expiresAtMs: number; scopes: string }>();
  const refreshTokens = new Map<string, { expiresAtMs: number; spent: boolean; scopes: string }>();
  const pins: PinterestPin[] = [];
  const videos = new Map<string, PinterestVideo>();
  const state = { failVideos: false };
  let nextId = 1_099_511_627_776n;
  const newId = () => String(++nextId);
  let kit: Awaited<ReturnType<typeof startFakePlatform>>;

  const bearerOf = (request: FakeRequest) =>
    /^Bearer\s+(.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1]?.trim();

  function issue(scopes: string) {
    const access = kit.credentials.issue();
    const refresh = randomBytes(24).toString('base64url');
    accessTokens.set(access, { expiresAtMs: now() + ACCESS_SECONDS * 1000, scopes });
    refreshTokens.set(refresh, { expiresAtMs: now() + REFRESH_SECONDS * 1000, spent: false, scopes });
    return {
      status: 200,
      body: {
        access_token: access,
        refresh_token: refresh,
        response_type: 'authorization_code',
        token_type: 'bearer',
        expires_in: ACCESS_SECONDS,
        refresh_token_expires_in: REFRESH_SECONDS,
        refresh_token_expires_at: Math.floor(now() / 1000) + REFRESH_SECONDS,
        scope: scopes,
      },
    };
  }

  /** An API route: a token of this stand-in, not expired. */
  const asUser =
    (work: (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer>) =>
    async (request: FakeRequest): Promise<FakeAnswer> => {
      const token = accessTokens.get(bearerOf(request) ?? '');
      if (!token || token.expiresAtMs <= now()) return pinterestError(401, 2, 'Authentication failed.');
      return work(request);
    };

  function authorize(request: FakeRequest): FakeAnswer {
    const q = request.query;
    const page = (message: string): FakeAnswer => ({
      status: 400,
      headers: { 'content-type': 'text/html' },
      body: `<html><body><p>${message}</p></body></html>`,
    });
    if (q.get('client_id') !== app.clientId) return page('Invalid client_id.');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!app.redirectUris.includes(redirectUri)) return page('redirect_uri is not registered for the app.');
    if (q.get('response_type') !== 'code') return page('Unsupported response_type.');
    const code = randomBytes(20).toString('base64url');
    codes.set(code, { redirectUri, scopes: q.get('scope') ?? '', atMs: now(), used: false });
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    target.searchParams.set('state', q.get('state') ?? '');
    return { status: 302, headers: { location: target.href } };
  }

  function token(request: FakeRequest): FakeAnswer {
    const basic = /^Basic\s+(.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1] ?? '';
    const [id, secret] = Buffer.from(basic, 'base64').toString().split(':');
    if (id !== app.clientId || secret !== app.clientSecret) {
      return pinterestError(401, 2, 'Authentication failed.');
    }
    const form = new Map(request.body.fields);
    if (form.get('grant_type') === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      if (!code || code.used || now() - code.atMs > CODE_LIFETIME_MS) {
        return pinterestError(400, 1, 'Invalid authorization code.');
      }
      code.used = true;
      if (form.get('redirect_uri') !== code.redirectUri) {
        return pinterestError(400, 1, 'Invalid redirect_uri: it does not match the authorization request.');
      }
      return issue(code.scopes);
    }
    if (form.get('grant_type') === 'refresh_token') {
      const old = refreshTokens.get(form.get('refresh_token') ?? '');
      if (!old || old.spent || old.expiresAtMs <= now()) {
        return pinterestError(400, 1, 'Invalid refresh token.');
      }
      old.spent = true;
      const renewed = issue(old.scopes);
      return { ...renewed, body: { ...renewed.body, response_type: 'refresh_token' } };
    }
    return pinterestError(400, 1, 'Invalid grant_type.');
  }

  /** One page of `list` by `page_size` and `bookmark` (here, the index of the page's first item). */
  function paged<T>(request: FakeRequest, list: readonly T[]): FakeAnswer {
    const size = Number(request.query.get('page_size') ?? 25);
    if (!Number.isInteger(size) || size < 1 || size > 250) return invalid('page_size must be 1 to 250.');
    const from = Number(request.query.get('bookmark') ?? 0);
    const next = from + size < list.length ? String(from + size) : null;
    return { status: 200, body: { items: list.slice(from, from + size), bookmark: next } };
  }

  const listBoards = (request: FakeRequest) =>
    paged(
      request,
      boards.map((board) => ({ id: board.id, name: board.name, privacy: 'PUBLIC', owner: { username } })),
    );

  function listPins(request: FakeRequest): FakeAnswer {
    const boardId = request.params.board_id ?? '';
    if (!boards.some((board) => board.id === boardId)) return pinterestError(404, 40, 'Board not found.');
    const onBoard = pins.filter((pin) => pin.boardId === boardId).reverse();
    return paged(request, onBoard.map(pinJson));
  }

  const createPin = (request: FakeRequest) =>
    pinOf(request, { boards, videos, statusOf, newId, now }).then((made) => {
      if ('status' in made) return made;
      pins.push(made.pin);
      return made.answer;
    });

  function statusOf(video: PinterestVideo): 'registered' | 'processing' | 'succeeded' | 'failed' {
    if (video.uploadedAtMs === null) return 'registered';
    if (video.failed) return 'failed';
    return now() < video.uploadedAtMs + (options.videoProcessingMs ?? 0) ? 'processing' : 'succeeded';
  }

  function register(request: FakeRequest): FakeAnswer {
    if ((request.body.json as { media_type?: unknown } | undefined)?.media_type !== 'video') {
      return invalid("media_type must be 'video'.");
    }
    const video: PinterestVideo = {
      id: newId(),
      key: `uploads/${randomBytes(4).toString('hex')}/video:${nextId}`,
      policy: randomBytes(16).toString('base64'),
      bytes: null,
      uploadedAtMs: null,
      failed: false,
    };
    videos.set(video.id, video);
    return {
      status: 201,
      body: {
        media_id: video.id,
        media_type: 'video',
        upload_url: `${kit.url}${UPLOAD_PATH}`,
        upload_parameters: {
          'x-amz-date': '20261126T073000Z',
          'x-amz-signature': randomBytes(16).toString('hex'),
          'x-amz-security-token': randomBytes(12).toString('base64'),
          'x-amz-algorithm': 'AWS4-HMAC-SHA256',
          key: video.key,
          policy: video.policy,
          'x-amz-credential': 'ASIAEXAMPLE/20261126/us-east-1/s3/aws4_request',
          'Content-Type': 'multipart/form-data',
        },
      },
    };
  }

  const s3Error = (status: number, code: string, message: string): FakeAnswer => ({
    status,
    headers: { 'content-type': 'application/xml' },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  });

  function upload(request: FakeRequest): FakeAnswer {
    const fields = new Map(request.body.fields);
    const video = [...videos.values()].find((candidate) => candidate.key === fields.get('key'));
    if (!video || fields.get('policy') !== video.policy) {
      return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed');
    }
    const file = request.body.files.find((candidate) => candidate.field === 'file');
    if (!file) return s3Error(400, 'InvalidArgument', 'POST requires exactly one file upload per request.');
    video.bytes = file.size;
    video.uploadedAtMs = now();
    video.failed = state.failVideos || file.size === 0;
    return { status: 204 };
  }

  function readMedia(request: FakeRequest): FakeAnswer {
    const video = videos.get(request.params.id ?? '');
    if (!video) return pinterestError(404, 3, 'Media not found.');
    return { status: 200, body: { media_id: video.id, media_type: 'video', status: statusOf(video) } };
  }

  kit = await startFakePlatform({
    now,
    tokenOf: bearerOf,
    rateLimit: {
      limit: options.callLimit ?? 1_000,
      windowMs: 60_000,
      headers: (limit) => ({
        'x-ratelimit-limit': String(limit.limit),
        'x-ratelimit-remaining': String(limit.remaining),
        'x-ratelimit-reset': String(Math.max(0, Math.ceil((limit.resetAtMs - now()) / 1000))),
      }),
    },
    routes: [
      { method: 'GET', path: '/oauth/', handle: authorize },
      { method: 'POST', path: '/v5/oauth/token', handle: token },
      {
        method: 'GET',
        path: '/v5/user_account',
        auth: true,
        handle: asUser(() => ({
          status: 200,
          body: { id: '9876543210', username, account_type: 'BUSINESS', business_name: 'Acme Kitchen' },
        })),
      },
      { method: 'GET', path: '/v5/boards', auth: true, handle: asUser(listBoards) },
      { method: 'GET', path: '/v5/boards/:board_id/pins', auth: true, handle: asUser(listPins) },
      { method: 'POST', path: '/v5/pins', auth: true, handle: asUser(createPin) },
      { method: 'POST', path: '/v5/media', auth: true, handle: asUser(register) },
      { method: 'GET', path: '/v5/media/:id', auth: true, handle: asUser(readMedia) },
      { method: 'POST', path: UPLOAD_PATH, handle: upload },
    ],
    errors: {
      failure: (status, said) =>
        pinterestError(
          status,
          status >= 500 ? 5 : 1,
          said ?? (status >= 500 ? 'Internal error.' : 'Invalid request.'),
        ),
      rateLimited: ({ retryAfterSeconds }) =>
        pinterestError(429, 8, 'You have exceeded your rate limit. Try again later.', {
          ...(retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) }),
        }),
      unauthorized: () => pinterestError(401, 2, 'Authentication failed.'),
      notFound: (request) => pinterestError(404, 404, `Not found: ${request.path}`),
    },
  });

  return {
    kit,
    url: kit.url,
    app,
    boards,
    pins,
    videos,
    codes,
    refreshTokens,
    state,
    /** The tokens of a sign-in already made (a test that starts signed in). */
    signedIn(scopes = 'boards:read,boards:write,pins:read,pins:write,user_accounts:read') {
      const { body } = issue(scopes);
      return { accessToken: body.access_token, refreshToken: body.refresh_token };
    },
    /** Every secret: tokens, refresh tokens, codes, the app secret. */
    secrets: () => [...kit.credentials.all(), ...refreshTokens.keys(), ...codes.keys(), app.clientSecret],
    close: () => kit.close(),
  };
}
