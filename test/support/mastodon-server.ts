/**
 * A Mastodon instance stand-in on 127.0.0.1 for connector tests, on the fake-platform kit: the
 * endpoints the connector and the sign-in flow (mastodon-sign-in.ts) use, answering as
 * docs.joinmastodon.org (methods/statuses, media, apps, oauth, instance; api/rate-limits; entities/Error)
 * and Mastodon's own validators say, with Mastodon's error wording. It records what was created, so
 * tests count sends where they land; the kit (`kit`) logs every request and scripts the failures a real
 * instance shows: rate limits, 5xx, requests that hang, a status created whose answer never comes.
 */
import { type FakeAnswer, type FakeRequest, nestedFields, startFakePlatform } from './fake-platform/kit.js';
import { escapeHtml, signInRoutes } from './mastodon-sign-in.js';
import {
  type CreatedStatus,
  instanceEntity,
  MIME_TYPES,
  statusMaker,
  type UploadedMedia,
} from './mastodon-statuses.js';

export type MastodonPath =
  | '/api/v1/statuses'
  | '/api/v2/media'
  | '/api/v1/media/:id'
  | '/api/v2/instance'
  | '/api/v1/accounts/verify_credentials'
  | '/api/v1/apps'
  | '/oauth/authorize'
  | '/oauth/token';

export interface MastodonServerOptions {
  /** configuration.statuses.max_characters. Default 500. */
  maxCharacters?: number;
  /** GETs of an uploaded video answered 206 (still processing) before it is ready. Default 1. */
  videoProcessingPolls?: number;
  /**
   * Instead of a number of GETs: how long (by `now`) an uploaded video processes. While it does, a GET
   * of it is 206 and a status with it is refused, as Mastodon does.
   */
  videoProcessingMs?: number;
  /** The account's username. Default 'publisher'. */
  username?: string;
  /** Wall clock of the X-RateLimit-Reset header. Default Date.now. */
  now?: () => number;
  /**
   * Uploaded files are kept up to this many bytes (the rest is read and dropped): for a test that
   * measures the memory of the process the stand-in runs in.
   */
  fileSizeLimit?: number;
  /** Send the account's X-RateLimit-* counters on every answer (api/rate-limits). Off by default. */
  rateLimit?: { limit?: number; windowSeconds?: number };
}

export type MastodonServer = Awaited<ReturnType<typeof startMastodonServer>>;
export type { CreatedStatus, UploadedMedia } from './mastodon-statuses.js';

type Json = Record<string, unknown>;

const ACCOUNT_ID = '109000000000000001';

const bearerOf = (request: FakeRequest) =>
  /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim();

export async function startMastodonServer(options: MastodonServerOptions = {}) {
  const maxCharacters = options.maxCharacters ?? 500;
  const username = options.username ?? 'publisher';
  const now = options.now ?? Date.now;
  const scopesOf = new Map<string, string[]>();
  const statuses: CreatedStatus[] = [];
  const media = new Map<string, UploadedMedia>();
  const processing = (item: UploadedMedia) => item.processingPolls > 0 || now() < item.readyAtMs;
  let suspended = false;
  let nextId = 110_000_000_000_000_000n;
  let origin = '';

  const newId = () => String(++nextId);
  const issueToken = (scopes = 'read write') => {
    const token = kit.credentials.issue();
    scopesOf.set(token, scopes.split(/\s+/).filter(Boolean));
    return token;
  };

  const account = () => ({
    id: ACCOUNT_ID,
    username,
    acct: username,
    display_name: 'Publisher',
    url: `${origin}/@${username}`,
    created_at: '2024-01-01T00:00:00.000Z',
    source: { privacy: 'public', sensitive: false, note: '' },
  });
  const mediaEntity = (item: UploadedMedia) => ({
    id: item.id,
    type: item.type,
    url: processing(item) ? null : `${origin}/system/media/${item.id}/original`,
    preview_url: `${origin}/system/media/${item.id}/small`,
    description: item.description,
  });
  const statusEntity = (status: CreatedStatus) => ({
    id: status.id,
    created_at: new Date(now()).toISOString(),
    in_reply_to_id: status.inReplyToId,
    visibility: status.visibility,
    uri: `${origin}/users/${username}/statuses/${status.id}`,
    url: `${origin}/@${username}/${status.id}`,
    content: `<p>${escapeHtml(status.text).replaceAll('\n\n', '</p><p>').replaceAll('\n', '<br />')}</p>`,
    account: account(),
    media_attachments: status.mediaIds.map((id) => mediaEntity(media.get(id)!)),
    poll: status.poll && {
      id: status.id,
      expires_at: new Date(now() + status.poll.expiresIn * 1000).toISOString(),
      multiple: status.poll.multiple,
      options: status.poll.options.map((title) => ({ title, votes_count: 0 })),
    },
  });

  const createStatus = statusMaker({
    statuses,
    media,
    maxCharacters,
    newId,
    entityOf: statusEntity,
    processing,
  });

  /** After Doorkeeper's token check (the kit's, `auth`): the token's scope, then require_user!. */
  const guarded =
    (scope: string, work: (request: FakeRequest) => FakeAnswer) =>
    (request: FakeRequest): FakeAnswer => {
      const scopes = scopesOf.get(bearerOf(request) ?? '') ?? [];
      if (!scopes.includes(scope) && !scopes.includes(scope.split(':')[0]!)) {
        return { status: 403, body: { error: 'This action is outside the authorized scopes' } };
      }
      if (suspended) return { status: 403, body: { error: 'Your login is currently disabled' } };
      return work(request);
    };

  function uploadMedia(request: FakeRequest): FakeAnswer {
    const file = request.body.files.find((part) => part.field === 'file');
    if (!file) return { status: 400, body: { error: 'param is missing or the value is empty: file' } };
    const type = MIME_TYPES[file.type];
    if (!type) {
      return {
        status: 422,
        body: { error: 'Validation failed: File content type is invalid, File is invalid' },
      };
    }
    const description = paramsOf(request).description;
    if (typeof description === 'string' && description.length > 1500) {
      return {
        status: 422,
        body: { error: 'Validation failed: Description is too long (maximum is 1500 characters)' },
      };
    }
    const item: UploadedMedia = {
      id: newId(),
      type,
      mimeType: file.type,
      fileName: file.name,
      size: file.size,
      description: typeof description === 'string' ? description : null,
      processingPolls:
        type === 'video' && options.videoProcessingMs === undefined ? (options.videoProcessingPolls ?? 1) : 0,
      readyAtMs:
        type === 'video' && options.videoProcessingMs !== undefined ? now() + options.videoProcessingMs : 0,
      statusId: null,
    };
    media.set(item.id, item);
    // Since 4.0 images are processed at once (200); video is processed in the background (202).
    return { status: type === 'video' ? 202 : 200, body: mediaEntity(item) };
  }

  function showMedia(id: string): FakeAnswer {
    const item = media.get(id);
    if (!item || item.statusId !== null) return { status: 404, body: { error: 'Record not found' } };
    if (processing(item)) {
      if (item.processingPolls > 0) item.processingPolls--;
      return { status: 206, body: { ...mediaEntity(item), url: null } };
    }
    return { status: 200, body: mediaEntity(item) };
  }

  const rateLimitHeaders = (limit: number, remaining: number, resetAtMs: number) => ({
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': new Date(resetAtMs).toISOString(),
  });
  const kit = await startFakePlatform({
    fileSizeLimit: options.fileSizeLimit,
    now,
    tokenOf: bearerOf,
    accountOf: (request) => (bearerOf(request) ? ACCOUNT_ID : undefined),
    ...(options.rateLimit && {
      rateLimit: {
        limit: options.rateLimit.limit ?? 300,
        windowMs: (options.rateLimit.windowSeconds ?? 300) * 1000,
        headers: (state) => rateLimitHeaders(state.limit, state.remaining, state.resetAtMs),
      },
    }),
    routes: [
      {
        method: 'GET',
        path: '/api/v2/instance',
        handle: () => ({ status: 200, body: instanceEntity(new URL(origin).host, maxCharacters) }),
      },
      {
        method: 'GET',
        path: '/api/v1/accounts/verify_credentials',
        auth: true,
        handle: guarded('read:accounts', () => ({ status: 200, body: account() })),
      },
      ...signInRoutes({ issueToken, now, newId, paramsOf }),
      { method: 'POST', path: '/api/v2/media', auth: true, handle: guarded('write:media', uploadMedia) },
      {
        method: 'GET',
        path: '/api/v1/media/:id',
        auth: true,
        handle: guarded('write:media', (request) => showMedia(request.params.id ?? '')),
      },
      {
        method: 'POST',
        path: '/api/v1/statuses',
        auth: true,
        handle: guarded('write:statuses', (request) =>
          createStatus(paramsOf(request), headerOf(request, 'idempotency-key')),
        ),
      },
    ],
    errors: {
      failure: (status, said) => {
        if (said !== undefined) return { status, body: { error: said } };
        if (status === 500) {
          return { status, body: { error: 'We are sorry, but something went wrong on our end.' } };
        }
        const page = `<html><body><h1>${status}</h1><p>The server is temporarily unavailable.</p></body></html>`;
        return { status, headers: { 'content-type': 'text/html' }, body: page };
      },
      rateLimited: ({ retryAfterSeconds, resetAtMs }) => ({
        status: 429,
        headers: {
          ...rateLimitHeaders(300, 0, resetAtMs),
          ...(retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) }),
        },
        body: { error: 'Too many requests' },
      }),
      unauthorized: (problem) => {
        const error = problem === 'revoked' ? 'The access token was revoked' : 'The access token is invalid';
        const challenge = `Bearer realm="Doorkeeper", error="invalid_token", error_description="${error}"`;
        return { status: 401, headers: { 'www-authenticate': challenge }, body: { error } };
      },
      notFound: () => ({ status: 404, body: { error: 'Record not found' } }),
    },
  });
  origin = kit.url;

  return {
    url: origin,
    /** A token with the read and write scopes. */
    token: issueToken('read write'),
    statuses,
    media,
    /** Every request that reached the stand-in, in order (a view of `kit.log`). */
    get requests(): { method: string; path: MastodonPath | string; idempotencyKey: string | null }[] {
      return kit.log.map((request) => ({
        method: request.method,
        path: request.route ?? request.path,
        idempotencyKey: headerOf(request, 'idempotency-key'),
      }));
    },
    /** The kit underneath: its request log and every kind of scripted trouble. */
    kit,
    /** A new token of the account with these scopes (space separated). */
    issueToken,
    revoke: (token: string) => kit.revoke(token),
    /** The account is suspended: its tokens get 403 "Your login is currently disabled". */
    suspend: () => {
      suspended = true;
    },
    /** The next `count` requests on `path` get Mastodon's 429, X-RateLimit-* (and Retry-After if given). */
    rateLimitNext: (
      path: MastodonPath,
      count = 1,
      wait: { retryAfterSeconds?: number; resetInSeconds?: number } = {},
    ) => kit.rateLimitNext(wait, { route: path, count }),
    /** The next `count` requests on `path` get this status (500, 503…). */
    failNext: (path: MastodonPath, count = 1, status = 503) =>
      kit.failNext(status, undefined, { route: path, count }),
    /** The next `count` requests on `path` are never answered. */
    hangNext: (path: MastodonPath, count = 1) => kit.hang('forever', { route: path, count }),
    /** The next `count` statuses are created, and then no answer comes. */
    hangAfterCreatingNext: (count = 1) => kit.hangAfterCreating({ route: '/api/v1/statuses', count }),
    close: () => kit.close(),
  };
}

/** A JSON or form body (`media_ids[]`, `poll[options][]`, `poll[expires_in]`) as Rails sees it. */
function paramsOf(request: FakeRequest): Json {
  const { body } = request;
  if (body.type === 'application/json') {
    return typeof body.json === 'object' && body.json !== null ? (body.json as Json) : {};
  }
  // Rails reads any other body as a form, whatever its content-type says.
  return nestedFields(
    body.type === 'multipart/form-data' ? body.fields : new URLSearchParams(body.bytes.toString()),
  );
}

function headerOf(request: FakeRequest, name: string): string | null {
  const value = request.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}
