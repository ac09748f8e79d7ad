/**
 * A stand-in for Google Business Profile's APIs on 127.0.0.1, on the fake-platform kit, answering as
 * developers.google.com/my-business documents them, every API on the one origin (as `--api-root` puts
 * them):
 *
 * - Google's OAuth (google-sign-in.ts): `/o/oauth2/v2/auth`, `/token`;
 * - `GET /v1/accounts` (Account Management: `accounts[]`, `nextPageToken`, `pageSize`);
 * - `GET /v1/accounts/{a}/locations` (Business Information: `readMask` required, else 400
 *   INVALID_ARGUMENT; `locations[]` with `name`, `title`, `metadata.mapsUri`; paged);
 * - `POST /v4/accounts/{a}/locations/{l}/localPosts`: a LocalPost checked as the API says (summary of
 *   at most 1,500 characters, topicType, a call to action's type and URL, media with `sourceUrl`),
 *   whose photo the stand-in **downloads** as Google does (a photo it cannot fetch is refused); answered
 *   with the post, `state` PROCESSING for `reviewMs` then LIVE (or REJECTED, scripted with
 *   `rejectNext`, in a 200 as Google answers it), `searchUrl` and `createTime`;
 * - `GET …/localPosts` (paged) and `GET …/localPosts/{id}`;
 * - errors in Google's shape `{ error: { code, message, status, details: [ErrorInfo] } }`: 401
 *   UNAUTHENTICATED for a token unknown, revoked or expired, 403 PERMISSION_DENIED with
 *   ACCESS_TOKEN_SCOPE_INSUFFICIENT without business.manage, 429 RESOURCE_EXHAUSTED for a rate limit,
 *   and, with `approved: false`, every API call refused with a quota of 0 (RATE_LIMIT_EXCEEDED,
 *   `quota_limit_value: "0"`) as for a project Google has not approved.
 */
import { type FakeAnswer, type FakeRequest, startFakePlatform } from './fake-platform/kit.js';
import { GoogleSignIn } from './google-sign-in.js';

export const BUSINESS_SCOPE = 'https://www.googleapis.com/auth/business.manage';

export interface BusinessLocationFake {
  account: string;
  id: string;
  title: string;
}

export interface GoogleBusinessOptions {
  now?: () => number;
  /** The locations the signed-in person manages. Default one, under one account. */
  locations?: BusinessLocationFake[];
  /** How long (by `now`) a new post stays PROCESSING. Default 0 (LIVE at once). */
  reviewMs?: number;
  /** Whether Google approved the project's access (false: every API call has a quota of 0). */
  approved?: boolean;
  /** The largest page a list answers, whatever `pageSize` asks. Default 100, as Google's. */
  maxPageSize?: number;
}

export interface LocalPostFake {
  id: string;
  name: string;
  location: string;
  body: Record<string, unknown>;
  /** Bytes of the photo downloaded, or null. */
  downloaded: number | null;
  createdAtMs: number;
  liveAtMs: number;
  rejected: boolean;
}

/** An error in Google's shape. */
export function googleError(
  status: number,
  code: string,
  message: string,
  info?: { reason: string; metadata?: Record<string, string> },
): FakeAnswer {
  return {
    status,
    body: {
      error: {
        code: status,
        message,
        status: code,
        ...(info
          ? {
              details: [
                {
                  '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                  reason: info.reason,
                  domain: 'googleapis.com',
                  metadata: info.metadata ?? {},
                },
              ],
            }
          : {}),
      },
    },
  };
}

const invalid = (message: string) => googleError(400, 'INVALID_ARGUMENT', message);

async function download(url: string): Promise<number | null> {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    if (!answer.ok) return null;
    const type = answer.headers.get('content-type') ?? '';
    const bytes = (await answer.arrayBuffer()).byteLength;
    return bytes > 0 && /^image\/(jpeg|png)/.test(type) ? bytes : null;
  } catch {
    return null;
  }
}

export async function startGoogleBusinessServer(options: GoogleBusinessOptions = {}) {
  const now = options.now ?? Date.now;
  const locations = options.locations ?? [{ account: '1001', id: '2002', title: 'Acme Coffee' }];
  const posts: LocalPostFake[] = [];
  let approved = options.approved ?? true;
  let rejectNext = 0;
  let nextId = 100;
  let signIn: GoogleSignIn;

  const bearerOf = (request: FakeRequest) =>
    /^Bearer\s+(.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1]?.trim();

  /** The checks every API call passes first: the project's approval, the token's expiry and scope. */
  function gate(request: FakeRequest): FakeAnswer | undefined {
    if (!approved) {
      return googleError(
        429,
        'RESOURCE_EXHAUSTED',
        "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service 'mybusinessbusinessinformation.googleapis.com' for consumer 'project_number:123456'.",
        {
          reason: 'RATE_LIMIT_EXCEEDED',
          metadata: { quota_limit_value: '0', service: 'mybusinessbusinessinformation.googleapis.com' },
        },
      );
    }
    const token = bearerOf(request) ?? '';
    if (signIn.expired(token)) return unauthenticated();
    if (!(signIn.scopesOf.get(token) ?? []).includes(BUSINESS_SCOPE)) {
      return googleError(403, 'PERMISSION_DENIED', 'Request had insufficient authentication scopes.', {
        reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
      });
    }
    return undefined;
  }
  const unauthenticated = () =>
    googleError(
      401,
      'UNAUTHENTICATED',
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      { reason: 'ACCESS_TOKEN_EXPIRED' },
    );

  /** One page of `items` by `pageSize` and `pageToken` (an offset, as an opaque string). */
  function page<T>(request: FakeRequest, items: T[], key: string, defaultSize: number): FakeAnswer {
    const size = Math.min(
      Number(request.query.get('pageSize') ?? defaultSize) || defaultSize,
      options.maxPageSize ?? 100,
    );
    const start = Number(Buffer.from(request.query.get('pageToken') ?? '', 'base64url').toString() || '0');
    const slice = items.slice(start, start + size);
    const next =
      start + size < items.length ? Buffer.from(String(start + size)).toString('base64url') : undefined;
    return { status: 200, body: { [key]: slice, ...(next ? { nextPageToken: next } : {}) } };
  }

  const present = (post: LocalPostFake) => ({
    ...post.body,
    name: post.name,
    state: post.rejected ? 'REJECTED' : now() >= post.liveAtMs ? 'LIVE' : 'PROCESSING',
    createTime: new Date(post.createdAtMs).toISOString(),
    updateTime: new Date(post.createdAtMs).toISOString(),
    ...(post.rejected
      ? {}
      : { searchUrl: `https://local.google.com/place?id=${post.location}&use=posts&lpsid=${post.id}` }),
  });

  const locationOf = (request: FakeRequest) =>
    locations.find(
      (candidate) => candidate.account === request.params.a && candidate.id === request.params.l,
    );

  async function createPost(request: FakeRequest): Promise<FakeAnswer> {
    const location = locationOf(request);
    if (!location) return googleError(404, 'NOT_FOUND', 'Requested entity was not found.');
    const body = request.body.json as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object') return invalid('Invalid JSON payload received.');
    const summary = body.summary;
    if (typeof summary !== 'string' || summary.length === 0)
      return invalid('Request contains an invalid argument.');
    if ([...summary].length > 1500) return invalid('Request contains an invalid argument.');
    if (body.topicType !== 'STANDARD' && body.topicType !== undefined) return invalid('Invalid topicType.');
    const action = body.callToAction as { actionType?: unknown; url?: unknown } | undefined;
    if (
      action &&
      (action.actionType !== 'LEARN_MORE' ||
        typeof action.url !== 'string' ||
        !/^https?:\/\//.test(action.url))
    ) {
      return invalid('Request contains an invalid argument.');
    }
    let downloaded: number | null = null;
    const media = body.media as { mediaFormat?: unknown; sourceUrl?: unknown }[] | undefined;
    if (media !== undefined) {
      if (!Array.isArray(media) || media.length !== 1)
        return invalid('Request contains an invalid argument.');
      const [item] = media as [{ mediaFormat?: unknown; sourceUrl?: unknown }];
      if (item.mediaFormat !== 'PHOTO' || typeof item.sourceUrl !== 'string')
        return invalid('Invalid media.');
      downloaded = await download(item.sourceUrl);
      if (downloaded === null)
        return invalid(
          'Request contains an invalid argument: the photo could not be fetched from sourceUrl.',
        );
    }
    const id = String(++nextId);
    const post: LocalPostFake = {
      id,
      name: `accounts/${location.account}/locations/${location.id}/localPosts/${id}`,
      location: location.id,
      body,
      downloaded,
      createdAtMs: now(),
      liveAtMs: now() + (options.reviewMs ?? 0),
      rejected: rejectNext > 0,
    };
    if (rejectNext > 0) rejectNext--;
    posts.push(post);
    return { status: 200, body: present(post) };
  }

  const kit = await startFakePlatform({
    now,
    tokenOf: bearerOf,
    routes: [
      { method: 'GET', path: '/o/oauth2/v2/auth', handle: (request) => signIn.authorize(request) },
      { method: 'POST', path: '/token', handle: (request) => signIn.token(request) },
      {
        method: 'GET',
        path: '/v1/accounts',
        auth: true,
        handle: (request) => {
          const accounts = [...new Set(locations.map((location) => location.account))].map((id) => ({
            name: `accounts/${id}`,
            accountName: `Account ${id}`,
            type: 'PERSONAL',
          }));
          return gate(request) ?? page(request, accounts, 'accounts', 20);
        },
      },
      {
        method: 'GET',
        path: '/v1/accounts/:a/locations',
        auth: true,
        handle: (request) => {
          const refused = gate(request);
          if (refused) return refused;
          if (!request.query.get('readMask'))
            return invalid("Request contains an invalid argument: 'read_mask' is required.");
          const list = locations
            .filter((location) => location.account === request.params.a)
            .map((location) => ({
              name: `locations/${location.id}`,
              title: location.title,
              metadata: { mapsUri: `https://maps.google.com/maps?cid=${location.id}` },
            }));
          return page(request, list, 'locations', 10);
        },
      },
      {
        method: 'POST',
        path: '/v4/accounts/:a/locations/:l/localPosts',
        auth: true,
        handle: (request) => gate(request) ?? createPost(request),
      },
      {
        method: 'GET',
        path: '/v4/accounts/:a/locations/:l/localPosts',
        auth: true,
        handle: (request) => {
          const location = locationOf(request);
          if (!location) return googleError(404, 'NOT_FOUND', 'Requested entity was not found.');
          const mine = posts
            .filter((post) => post.location === location.id)
            .reverse()
            .map(present);
          return gate(request) ?? page(request, mine, 'localPosts', 10);
        },
      },
      {
        method: 'GET',
        path: '/v4/accounts/:a/locations/:l/localPosts/:id',
        auth: true,
        handle: (request) => {
          const post = posts.find(
            (candidate) => candidate.id === request.params.id && candidate.location === request.params.l,
          );
          return (
            gate(request) ??
            (post
              ? { status: 200, body: present(post) }
              : googleError(404, 'NOT_FOUND', 'Requested entity was not found.'))
          );
        },
      },
    ],
    errors: {
      failure: (status, said) =>
        googleError(
          status,
          status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT',
          said ?? 'Internal error encountered.',
        ),
      rateLimited: ({ retryAfterSeconds }) => ({
        ...googleError(
          429,
          'RESOURCE_EXHAUSTED',
          "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute'.",
          {
            reason: 'RATE_LIMIT_EXCEEDED',
            metadata: { quota_limit_value: '300' },
          },
        ),
        ...(retryAfterSeconds === undefined ? {} : { headers: { 'retry-after': String(retryAfterSeconds) } }),
      }),
      unauthorized: () => unauthenticated(),
      notFound: () => ({
        status: 404,
        headers: { 'content-type': 'text/html; charset=UTF-8' },
        body: '<!DOCTYPE html><html lang=en><title>Error 404 (Not Found)!!1</title><p>The requested URL was not found on this server.</p></html>',
      }),
    },
  });
  signIn = new GoogleSignIn(kit.credentials, now);

  return {
    ...kit,
    url: kit.url,
    posts,
    get signIn() {
      return signIn;
    },
    /** Tokens of a sign-in with business.manage (for tests that start signed in). */
    tokens: () => signIn.issue([BUSINESS_SCOPE]),
    /** The next posts are answered 200 with state REJECTED. */
    rejectNext(count = 1) {
      rejectNext += count;
    },
    /** Whether Google approved the project (false: quota 0 on every API call). */
    setApproved(value: boolean) {
      approved = value;
    },
    secrets: () => [...kit.credentials.all(), ...signIn.issuedRefreshTokens, signIn.app.clientSecret],
  };
}

export type GoogleBusinessServer = Awaited<ReturnType<typeof startGoogleBusinessServer>>;
