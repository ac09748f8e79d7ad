/**
 * A Mastodon instance stand-in on 127.0.0.1 for connector tests: the endpoints the connector and the
 * sign-in flow use, answering as docs.joinmastodon.org (methods/statuses, media, apps, oauth, instance;
 * api/rate-limits; entities/Error) and Mastodon's own validators say, with Mastodon's error wording. It
 * records what was created, so tests count sends where they land, and has knobs for the failures a real
 * instance shows: rate limits, 5xx, requests that hang, a status created whose answer never comes.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';

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
  /** The account's username. Default 'publisher'. */
  username?: string;
  /** Wall clock of the X-RateLimit-Reset header. Default Date.now. */
  now?: () => number;
}

export interface CreatedStatus {
  id: string;
  text: string;
  mediaIds: string[];
  /** Each attached media's description (alt text), null when it had none. */
  descriptions: (string | null)[];
  poll: { options: string[]; expiresIn: number; multiple: boolean } | null;
  inReplyToId: string | null;
  idempotencyKey: string | null;
  visibility: string;
}

export interface UploadedMedia {
  id: string;
  type: 'image' | 'video';
  mimeType: string;
  fileName: string;
  size: number;
  description: string | null;
  /** GETs still to answer 206. */
  processingPolls: number;
  statusId: string | null;
}

export interface MastodonServer {
  url: string;
  /** A token with the read and write scopes. */
  token: string;
  statuses: CreatedStatus[];
  media: Map<string, UploadedMedia>;
  /** Every request that reached the stand-in, in order. */
  requests: { method: string; path: MastodonPath | string; idempotencyKey: string | null }[];
  /** A new token of the account with these scopes (space separated). */
  issueToken(scopes?: string): string;
  revoke(token: string): void;
  /** The account is suspended: its tokens get 403 "Your login is currently disabled". */
  suspend(): void;
  /** The next `count` requests on `path` get 429 with Mastodon's X-RateLimit-* headers (and Retry-After if given). */
  rateLimitNext(
    path: MastodonPath,
    count?: number,
    wait?: { retryAfterSeconds?: number; resetInSeconds?: number },
  ): void;
  /** The next `count` requests on `path` get this status (500, 503…). */
  failNext(path: MastodonPath, count?: number, status?: number): void;
  /** The next `count` requests on `path` are never answered. */
  hangNext(path: MastodonPath, count?: number): void;
  /** The next `count` statuses are created, and then no answer comes. */
  hangAfterCreatingNext(count?: number): void;
  close(): Promise<void>;
}

type Trouble = { status: number; headers: Record<string, string>; body: string } | 'hang';
type Json = Record<string, unknown>;
interface Token {
  scopes: string[];
  revoked: boolean;
}
interface App {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  scopes: string[];
}

const OOB = 'urn:ietf:wg:oauth:2.0:oob';
const MIME_TYPES: Record<string, 'image' | 'video'> = {
  'image/jpeg': 'image',
  'image/png': 'image',
  'image/gif': 'image',
  'image/webp': 'image',
  'video/mp4': 'video',
  'video/quicktime': 'video',
  'video/webm': 'video',
};
const ACCOUNT_ID = '109000000000000001';
const MAX_MEDIA = 4;
const POLL_LIMITS = { options: 4, characters: 50, min: 300, max: 2_629_746 };

export async function startMastodonServer(options: MastodonServerOptions = {}): Promise<MastodonServer> {
  const maxCharacters = options.maxCharacters ?? 500;
  const username = options.username ?? 'publisher';
  const now = options.now ?? Date.now;
  const tokens = new Map<string, Token>();
  const apps = new Map<string, App>();
  const codes = new Map<string, { clientId: string; redirectUri: string; scopes: string[] }>();
  const idempotency = new Map<string, string>();
  const troubles = new Map<string, Trouble[]>();
  const statuses: CreatedStatus[] = [];
  const media = new Map<string, UploadedMedia>();
  const requests: MastodonServer['requests'] = [];
  let hangsAfterCreating = 0;
  let suspended = false;
  let nextId = 110_000_000_000_000_000n;
  let origin = '';

  const newId = () => String(++nextId);
  const secret = () => randomBytes(24).toString('base64url');
  const issueToken = (scopes = 'read write') => {
    const token = secret();
    tokens.set(token, { scopes: scopes.split(/\s+/).filter(Boolean), revoked: false });
    return token;
  };
  const queue = (path: MastodonPath, count: number, trouble: Trouble) => {
    troubles.set(path, [...(troubles.get(path) ?? []), ...Array<Trouble>(count).fill(trouble)]);
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
    url: item.processingPolls > 0 ? null : `${origin}/system/media/${item.id}/original`,
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

  /** Doorkeeper's token check, then Mastodon's require_user!. */
  function authorize(req: IncomingMessage, scope: string): { status: number; body: Json } | undefined {
    const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
    const token = given === undefined ? undefined : tokens.get(given);
    if (!token) return { status: 401, body: { error: 'The access token is invalid' } };
    if (token.revoked) return { status: 401, body: { error: 'The access token was revoked' } };
    const broad = scope.split(':')[0]!;
    if (!token.scopes.includes(scope) && !token.scopes.includes(broad)) {
      return { status: 403, body: { error: 'This action is outside the authorized scopes' } };
    }
    if (suspended) return { status: 403, body: { error: 'Your login is currently disabled' } };
    return undefined;
  }

  function createStatus(params: Json, key: string | null): { status: number; body: Json } {
    const inReplyToId = stringOr(params.in_reply_to_id);
    if (inReplyToId && !statuses.some((status) => status.id === inReplyToId)) {
      return {
        status: 404,
        body: { error: 'The post you are trying to reply to does not appear to exist.' },
      };
    }
    const earlier = key === null ? undefined : idempotency.get(`${ACCOUNT_ID}:${key}`);
    if (earlier)
      return { status: 200, body: statusEntity(statuses.find((status) => status.id === earlier)!) };
    const text = stringOr(params.status) ?? '';
    const mediaIds = Array.isArray(params.media_ids) ? params.media_ids.map(String) : [];
    const poll = params.poll as Json | undefined;
    const invalid = (error: string) => ({ status: 422, body: { error } });
    if (mediaIds.length > 0) {
      // PostStatusService#validate_media!: a poll with media is refused with the "too many" wording.
      if (mediaIds.length > MAX_MEDIA || poll) return invalid(`Cannot attach more than ${MAX_MEDIA} files`);
      const missing = mediaIds.filter((id) => media.get(id)?.statusId !== null);
      if (missing.length > 0) {
        return invalid(`Media ${missing.join(', ')} not found or already attached to another post`);
      }
      const attached = mediaIds.map((id) => media.get(id)!);
      if (attached.length > 1 && attached.some((item) => item.type === 'video')) {
        return invalid('Cannot attach a video to a post that already contains images');
      }
      if (attached.some((item) => item.processingPolls > 0)) {
        return invalid('Cannot attach files that have not finished processing. Try again in a moment!');
      }
    }
    if (text.trim() === '' && mediaIds.length === 0) return invalid("Validation failed: Text can't be blank");
    if (countableLength(text) > maxCharacters) {
      return invalid(`Validation failed: Text character limit of ${maxCharacters} exceeded`);
    }
    let parsedPoll: CreatedStatus['poll'] = null;
    if (poll) {
      const pollOptions = Array.isArray(poll.options) ? poll.options.map(String) : [];
      const expiresIn = Number(poll.expires_in);
      if (pollOptions.length < 2)
        return invalid('Validation failed: Poll options must have more than one item');
      if (pollOptions.length > POLL_LIMITS.options) {
        return invalid(
          `Validation failed: Poll options can't contain more than ${POLL_LIMITS.options} items`,
        );
      }
      if (pollOptions.some((option) => graphemes(option) > POLL_LIMITS.characters)) {
        return invalid(
          `Validation failed: Poll options cannot be longer than ${POLL_LIMITS.characters} characters each`,
        );
      }
      if (!Number.isFinite(expiresIn) || expiresIn < POLL_LIMITS.min) {
        return invalid('Validation failed: Poll expires at is too soon');
      }
      if (expiresIn > POLL_LIMITS.max)
        return invalid('Validation failed: Poll expires at is too far into the future');
      parsedPoll = {
        options: pollOptions,
        expiresIn,
        multiple: poll.multiple === true || poll.multiple === 'true',
      };
    }
    const status: CreatedStatus = {
      id: newId(),
      text,
      mediaIds,
      descriptions: mediaIds.map((id) => media.get(id)!.description),
      poll: parsedPoll,
      inReplyToId: inReplyToId ?? null,
      idempotencyKey: key,
      visibility: stringOr(params.visibility) ?? 'public',
    };
    statuses.push(status);
    for (const id of mediaIds) media.get(id)!.statusId = status.id;
    if (key !== null) idempotency.set(`${ACCOUNT_ID}:${key}`, status.id);
    return { status: 200, body: statusEntity(status) };
  }

  async function uploadMedia(req: IncomingMessage): Promise<{ status: number; body: Json }> {
    const parts = await readMultipart(req);
    if (!parts.file) return { status: 400, body: { error: 'param is missing or the value is empty: file' } };
    const type = MIME_TYPES[parts.file.mimeType];
    if (!type)
      return {
        status: 422,
        body: { error: 'Validation failed: File content type is invalid, File is invalid' },
      };
    const description = parts.fields.description ?? null;
    if (description !== null && description.length > 1500) {
      return {
        status: 422,
        body: { error: 'Validation failed: Description is too long (maximum is 1500 characters)' },
      };
    }
    const item: UploadedMedia = {
      id: newId(),
      type,
      mimeType: parts.file.mimeType,
      fileName: parts.file.fileName,
      size: parts.file.size,
      description,
      processingPolls: type === 'video' ? (options.videoProcessingPolls ?? 1) : 0,
      statusId: null,
    };
    media.set(item.id, item);
    // Since 4.0 images are processed at once (200); video is processed in the background (202).
    return { status: type === 'video' ? 202 : 200, body: mediaEntity(item) };
  }

  function showMedia(id: string): { status: number; body: Json } {
    const item = media.get(id);
    if (!item || item.statusId !== null) return { status: 404, body: { error: 'Record not found' } };
    if (item.processingPolls > 0) {
      item.processingPolls--;
      return { status: 206, body: { ...mediaEntity(item), url: null } };
    }
    return { status: 200, body: mediaEntity(item) };
  }

  function registerApp(params: Json): { status: number; body: Json } {
    const name = stringOr(params.client_name);
    if (!name?.trim())
      return { status: 422, body: { error: "Validation failed: Application name can't be blank" } };
    const given = params.redirect_uris ?? params.redirect_uri;
    const redirectUris = (Array.isArray(given) ? given.map(String) : String(given ?? '').split(/\s+/)).filter(
      Boolean,
    );
    if (redirectUris.length === 0 || !redirectUris.every((uri) => uri === OOB || isAbsoluteUri(uri))) {
      return { status: 422, body: { error: 'Validation failed: Redirect URI must be an absolute URI.' } };
    }
    const app: App = {
      clientId: secret(),
      clientSecret: secret(),
      redirectUris,
      scopes: (stringOr(params.scopes) ?? 'read').split(/\s+/).filter(Boolean),
    };
    apps.set(app.clientId, app);
    return {
      status: 200,
      body: {
        id: newId(),
        name,
        website: stringOr(params.website) ?? null,
        scopes: app.scopes,
        redirect_uri: redirectUris.join('\n'),
        redirect_uris: redirectUris,
        client_id: app.clientId,
        client_secret: app.clientSecret,
        client_secret_expires_at: 0,
      },
    };
  }

  /** The authorization page, approved at once by the signed-in user. */
  function authorizePage(query: URLSearchParams, res: ServerResponse): void {
    const app = apps.get(query.get('client_id') ?? '');
    const redirectUri = query.get('redirect_uri') ?? '';
    const scopes = (query.get('scope') ?? 'read').split(/[\s+]+/).filter(Boolean);
    const problem =
      query.get('response_type') !== 'code'
        ? 'The authorization server does not support this response type.'
        : !app
          ? 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.'
          : !app.redirectUris.includes(redirectUri)
            ? 'The requested redirect uri is malformed or doesn\u2019t match client redirect URI.'
            : !scopes.every((scope) => app.scopes.includes(scope))
              ? 'The requested scope is invalid, unknown, or malformed.'
              : undefined;
    if (problem || !app) {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<html><body><div class="form-container"><p>${escapeHtml(problem ?? '')}</p></div></body></html>`,
      );
      return;
    }
    const code = secret();
    codes.set(code, { clientId: app.clientId, redirectUri, scopes });
    if (redirectUri === OOB) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<html><body><input class="oauth-code" readonly type="text" value="${code}"></body></html>`);
      return;
    }
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    const state = query.get('state');
    if (state !== null) target.searchParams.set('state', state);
    res.writeHead(302, { location: target.href });
    res.end();
  }

  function issueAccessToken(params: Json): { status: number; body: Json } {
    if (params.grant_type !== 'authorization_code') {
      return {
        status: 400,
        body: {
          error: 'unsupported_grant_type',
          error_description: 'The authorization grant type is not supported by the authorization server.',
        },
      };
    }
    const app = apps.get(stringOr(params.client_id) ?? '');
    if (!app || app.clientSecret !== params.client_secret) {
      return {
        status: 401,
        body: {
          error: 'invalid_client',
          error_description:
            'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
        },
      };
    }
    const code = codes.get(stringOr(params.code) ?? '');
    if (!code || code.clientId !== app.clientId || code.redirectUri !== params.redirect_uri) {
      return {
        status: 400,
        body: {
          error: 'invalid_grant',
          error_description:
            'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
        },
      };
    }
    codes.delete(stringOr(params.code)!);
    const scope = code.scopes.join(' ');
    const accessToken = issueToken(scope);
    return {
      status: 200,
      body: { access_token: accessToken, token_type: 'Bearer', scope, created_at: Math.floor(now() / 1000) },
    };
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const path = url.pathname.startsWith('/api/v1/media/') ? '/api/v1/media/:id' : url.pathname;
    const method = req.method ?? 'GET';
    const key = headerOf(req, 'idempotency-key');
    requests.push({ method, path, idempotencyKey: key });
    const trouble = troubles.get(path)?.shift();
    if (trouble === 'hang') {
      req.resume();
      return;
    }
    if (trouble) {
      req.resume();
      res.writeHead(trouble.status, trouble.headers);
      res.end(trouble.body);
      return;
    }
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    const guarded = async (
      scope: string,
      work: () => Promise<{ status: number; body: Json }> | { status: number; body: Json },
    ) => {
      const refusal = authorize(req, scope);
      if (refusal) {
        req.resume();
        const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
        if (refusal.status === 401) {
          headers['www-authenticate'] =
            `Bearer realm="Doorkeeper", error="invalid_token", error_description="${refusal.body.error}"`;
        }
        res.writeHead(refusal.status, headers);
        res.end(JSON.stringify(refusal.body));
        return;
      }
      const answer = await work();
      json(answer.status, answer.body);
    };

    if (method === 'GET' && path === '/api/v2/instance')
      return json(200, instanceEntity(url.host, maxCharacters));
    if (method === 'GET' && path === '/api/v1/accounts/verify_credentials') {
      return guarded('read:accounts', () => ({ status: 200, body: account() }));
    }
    if (method === 'POST' && path === '/api/v1/apps') {
      const answer = registerApp(await readParams(req));
      return json(answer.status, answer.body);
    }
    if (method === 'GET' && path === '/oauth/authorize') return authorizePage(url.searchParams, res);
    if (method === 'POST' && path === '/oauth/token') {
      const answer = issueAccessToken(await readParams(req));
      return json(answer.status, answer.body);
    }
    if (method === 'POST' && path === '/api/v2/media') return guarded('write:media', () => uploadMedia(req));
    if (method === 'GET' && path === '/api/v1/media/:id') {
      return guarded('write:media', () =>
        showMedia(decodeURIComponent(url.pathname.slice('/api/v1/media/'.length))),
      );
    }
    if (method === 'POST' && path === '/api/v1/statuses') {
      return guarded('write:statuses', async () => {
        const answer = createStatus(await readParams(req), key);
        if (answer.status === 200 && hangsAfterCreating > 0) {
          hangsAfterCreating--;
          return new Promise(() => {});
        }
        return answer;
      });
    }
    req.resume();
    json(404, { error: 'Record not found' });
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: origin,
    token: issueToken('read write'),
    statuses,
    media,
    requests,
    issueToken,
    revoke: (token) => {
      const known = tokens.get(token);
      if (known) known.revoked = true;
    },
    suspend: () => {
      suspended = true;
    },
    rateLimitNext: (path, count = 1, wait = {}) => {
      const reset = new Date(now() + (wait.resetInSeconds ?? 60) * 1000).toISOString();
      const headers: Record<string, string> = {
        'content-type': 'application/json; charset=utf-8',
        'x-ratelimit-limit': '300',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': reset,
      };
      if (wait.retryAfterSeconds !== undefined) headers['retry-after'] = String(wait.retryAfterSeconds);
      queue(path, count, { status: 429, headers, body: JSON.stringify({ error: 'Too many requests' }) });
    },
    failNext: (path, count = 1, status = 503) => {
      const body =
        status === 500
          ? JSON.stringify({ error: 'We are sorry, but something went wrong on our end.' })
          : `<html><body><h1>${status}</h1><p>The server is temporarily unavailable.</p></body></html>`;
      const type = status === 500 ? 'application/json; charset=utf-8' : 'text/html';
      queue(path, count, { status, headers: { 'content-type': type }, body });
    },
    hangNext: (path, count = 1) => queue(path, count, 'hang'),
    hangAfterCreatingNext: (count = 1) => {
      hangsAfterCreating += count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function instanceEntity(host: string, maxCharacters: number): Json {
  return {
    domain: host.split(':')[0],
    title: 'Stand-in',
    version: '4.4.0',
    configuration: {
      statuses: {
        max_characters: maxCharacters,
        max_media_attachments: MAX_MEDIA,
        characters_reserved_per_url: 23,
      },
      media_attachments: {
        supported_mime_types: Object.keys(MIME_TYPES),
        description_limit: 1500,
        image_size_limit: 16_777_216,
        video_size_limit: 103_809_024,
      },
      polls: {
        max_options: POLL_LIMITS.options,
        max_characters_per_option: POLL_LIMITS.characters,
        min_expiration: POLL_LIMITS.min,
        max_expiration: POLL_LIMITS.max,
      },
    },
  };
}

/** StatusLengthValidator: grapheme clusters, a URL as 23, a mention without its domain. */
function countableLength(text: string): number {
  return graphemes(
    text
      .replace(/https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]']/g, 'x'.repeat(23))
      .replace(/@(\w+)@[\w.-]+\w/g, '@$1'),
  );
}

function graphemes(text: string): number {
  return [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].length;
}

/** A JSON or form-encoded body (`media_ids[]`, `poll[options][]`, `poll[expires_in]`) as Rails sees it. */
async function readParams(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if ((req.headers['content-type'] ?? '').includes('application/json')) {
    try {
      const parsed: unknown = JSON.parse(text || '{}');
      return typeof parsed === 'object' && parsed !== null ? (parsed as Json) : {};
    } catch {
      return {};
    }
  }
  const params: Json = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const keys = [...name.matchAll(/^[^[]+|\[([^\]]*)\]/g)].map((match) => match[1] ?? match[0]);
    assign(params, keys, value);
  }
  return params;
}

function assign(target: Json, keys: readonly string[], value: string): void {
  const [key, ...rest] = keys;
  if (key === undefined) return;
  const current = target[key];
  if (rest.length === 0) target[key] = value;
  else if (rest[0] === '') target[key] = [...(Array.isArray(current) ? current : []), value];
  else {
    const child = typeof current === 'object' && current !== null && !Array.isArray(current) ? current : {};
    target[key] = child;
    assign(child as Json, rest, value);
  }
}

async function readMultipart(
  req: IncomingMessage,
): Promise<{ file?: { mimeType: string; fileName: string; size: number }; fields: Record<string, string> }> {
  const fields: Record<string, string> = {};
  let file: { mimeType: string; fileName: string; size: number } | undefined;
  if (!(req.headers['content-type'] ?? '').startsWith('multipart/form-data')) {
    req.resume();
    return { fields };
  }
  await new Promise<void>((resolve, reject) => {
    const parser = busboy({ headers: req.headers });
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
      });
      stream.on('end', () => {
        if (name === 'file') file = { mimeType: info.mimeType, fileName: info.filename ?? '', size };
      });
    });
    parser.on('close', resolve);
    parser.on('error', reject);
    req.pipe(parser);
  });
  return file ? { file, fields } : { fields };
}

function headerOf(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

function isAbsoluteUri(text: string): boolean {
  try {
    return new URL(text).protocol !== '';
  } catch {
    return false;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
