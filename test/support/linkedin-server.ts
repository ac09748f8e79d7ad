/**
 * A LinkedIn stand-in on 127.0.0.1 for connector tests, on the fake-platform kit, answering as
 * learn.microsoft.com's LinkedIn pages say (Authorization Code Flow, Programmatic refresh tokens,
 * userinfo, Organization Access Control, Posts, Images, Videos, Documents, Comments APIs) with
 * LinkedIn's error bodies (`{ status, serviceErrorCode, code?, message }`). One server plays both
 * origins: the sign-in pages (www.linkedin.com) and the API (api.linkedin.com), and the upload URLs it
 * hands out point back at it.
 *
 * It records what was created (posts, uploads with their byte counts, comments) so tests count sends
 * where they land; the kit (`kit`) logs every request and scripts the trouble.
 */
import { randomBytes } from 'node:crypto';
import { type FakeAnswer, type FakeRequest, type FakeRoute, startFakePlatform } from './fake-platform/kit.js';

export interface LinkedInServerOptions {
  /** The app's credentials, checked by the token endpoint. */
  clientId?: string;
  clientSecret?: string;
  /** The app is approved for programmatic refresh tokens: the token endpoint gives one. */
  refreshTokens?: boolean;
  /** How long an authorization code may be exchanged (LinkedIn: 30 minutes). */
  codeLifetimeMs?: number;
  /** How long (by `now`) an uploaded video processes before it is AVAILABLE. Default 0. */
  videoProcessingMs?: number;
  /** The oldest LinkedIn-Version still served (older: 426 NONEXISTENT_VERSION). Default 202504. */
  oldestVersion?: string;
  /** The pages the member administers. */
  pages?: { id: string; name: string }[];
  now?: () => number;
}

export interface LinkedInPost {
  urn: string;
  body: Record<string, unknown>;
}
export interface LinkedInUpload {
  urn: string;
  kind: 'image' | 'video' | 'document';
  owner: string;
  bytes: number;
  /** The byte count of each part PUT (a video's parts). */
  parts: number[];
  status: 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE';
  readyAtMs: number;
}

const MEMBER_ID = 'abc123XYZ';
export const MEMBER_URN = `urn:li:person:${MEMBER_ID}`;
/** LinkedIn's video parts: 4 MiB each (the last one shorter). */
export const VIDEO_PART_BYTES = 4 * 1024 * 1024;

const bearerOf = (request: FakeRequest) =>
  /^Bearer\s+(.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1]?.trim();
const error = (status: number, message: string, extra: Record<string, unknown> = {}): FakeAnswer => ({
  status,
  body: { status, message, ...extra },
});

export async function startLinkedInServer(options: LinkedInServerOptions = {}) {
  const now = options.now ?? Date.now;
  const clientId = options.clientId ?? 'linkedin-client-id';
  const clientSecret = options.clientSecret ?? 'linkedin-client-secret-0123';
  const pages = options.pages ?? [{ id: '2414183', name: 'Acme Corp' }];
  const codes = new Map<string, { redirectUri: string; scope: string; expiresAtMs: number; used: boolean }>();
  const refreshTokens = new Map<string, { scope: string; expiresAtMs: number }>();
  const scopesOf = new Map<string, string[]>();
  const posts: LinkedInPost[] = [];
  const uploads = new Map<string, LinkedInUpload>();
  const comments: { post: string; body: Record<string, unknown> }[] = [];
  let nextId = 7_141_138_937_766_391_000n;
  const newId = () => String(++nextId);
  let origin = '';

  const issueToken = (
    scope = 'openid profile w_member_social w_organization_social r_organization_social rw_organization_admin',
  ) => {
    const token = kit.credentials.issue(`AQ${randomBytes(18).toString('base64url')}`);
    scopesOf.set(token, scope.split(/[\s,]+/).filter(Boolean));
    return token;
  };
  const has = (request: FakeRequest, scope: string) =>
    (scopesOf.get(bearerOf(request) ?? '') ?? []).includes(scope);

  /** `/rest` calls: the version headers first, as LinkedIn checks them. */
  const rest =
    (work: (request: FakeRequest) => FakeAnswer) =>
    (request: FakeRequest): FakeAnswer => {
      const version = String(request.headers['linkedin-version'] ?? '');
      if (!version) {
        return error(
          400,
          'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
          {
            code: 'VERSION_MISSING',
          },
        );
      }
      if (!/^\d{6}$/.test(version) || version < (options.oldestVersion ?? '202504')) {
        return error(426, `Requested version ${version} is not active`, { code: 'NONEXISTENT_VERSION' });
      }
      if (request.headers['x-restli-protocol-version'] !== '2.0.0') {
        return error(400, 'Restli protocol version 2.0.0 is required', { code: 'ILLEGAL_ARGUMENT' });
      }
      return work(request);
    };
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are read as LinkedIn reads them, loosely
  const json = (request: FakeRequest) => (request.body.json ?? {}) as Record<string, any>;
  const forbidden = (what: string) =>
    error(403, `Not enough permissions to access: ${what}`, { serviceErrorCode: 100, code: 'ACCESS_DENIED' });
  /** May this token act as `author`? (member: w_member_social; page: w_organization_social and admin). */
  const mayAct = (request: FakeRequest, author: unknown) => {
    if (author === MEMBER_URN) return has(request, 'w_member_social');
    return (
      typeof author === 'string' &&
      has(request, 'w_organization_social') &&
      pages.some((page) => `urn:li:organization:${page.id}` === author)
    );
  };

  function authorize(request: FakeRequest): FakeAnswer {
    const q = request.query;
    if (q.get('response_type') !== 'code' || q.get('client_id') !== clientId || !q.get('redirect_uri')) {
      return { status: 400, body: 'invalid_request: response_type, client_id and redirect_uri are required' };
    }
    const code = `AQT${randomBytes(12).toString('base64url')}`;
    const redirectUri = q.get('redirect_uri')!;
    codes.set(code, {
      redirectUri,
      scope: q.get('scope') ?? '',
      expiresAtMs: now() + (options.codeLifetimeMs ?? 30 * 60_000),
      used: false,
    });
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    if (q.get('state') !== null) target.searchParams.set('state', q.get('state')!);
    return { status: 302, headers: { location: target.href } };
  }

  function token(request: FakeRequest): FakeAnswer {
    const form = Object.fromEntries(request.body.fields);
    const oauthError = (status: number, code: string, description: string): FakeAnswer => ({
      status,
      body: { error: code, error_description: description },
    });
    if (form.client_id !== clientId || form.client_secret !== clientSecret) {
      return oauthError(401, 'invalid_client', 'Client authentication failed');
    }
    let scope: string;
    if (form.grant_type === 'authorization_code') {
      const code = codes.get(form.code ?? '');
      if (!code || code.used || now() > code.expiresAtMs) {
        return oauthError(
          400,
          'invalid_request',
          'Unable to retrieve access token: authorization code not found',
        );
      }
      if (code.redirectUri !== form.redirect_uri) {
        return oauthError(
          400,
          'invalid_redirect_uri',
          'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code',
        );
      }
      code.used = true;
      scope = code.scope;
    } else if (form.grant_type === 'refresh_token') {
      const refresh = refreshTokens.get(form.refresh_token ?? '');
      if (!refresh || now() > refresh.expiresAtMs) {
        return oauthError(
          400,
          'invalid_request',
          'The provided authorization grant or refresh token is invalid, expired or revoked',
        );
      }
      scope = refresh.scope;
    } else {
      return oauthError(400, 'unsupported_grant_type', 'Unsupported grant type');
    }
    const access = issueToken(scope);
    const body: Record<string, unknown> = {
      access_token: access,
      expires_in: 5_184_000,
      scope: scope.replaceAll(' ', ','),
    };
    if (options.refreshTokens) {
      // The same refresh token comes back, its lifetime counting down from the first sign-in.
      const refresh =
        form.grant_type === 'refresh_token'
          ? form.refresh_token!
          : `AQX${randomBytes(18).toString('base64url')}`;
      const kept = refreshTokens.get(refresh) ?? { scope, expiresAtMs: now() + 31_536_000_000 };
      refreshTokens.set(refresh, kept);
      kit.credentials.issue(refresh); // listed among the secrets; never accepted as a bearer token
      kit.credentials.revoke(refresh);
      body.refresh_token = refresh;
      body.refresh_token_expires_in = Math.round((kept.expiresAtMs - now()) / 1000);
    }
    return { status: 200, body };
  }

  function initializeUpload(kind: LinkedInUpload['kind']) {
    return rest((request) => {
      const action = request.query.get('action');
      if (kind === 'video' && action === 'finalizeUpload') return finalizeVideo(request);
      if (action !== 'initializeUpload') return error(400, `Unknown action ${action}`);
      const init = json(request).initializeUploadRequest ?? {};
      if (!mayAct(request, init.owner)) return forbidden(`/${kind}s`);
      const urn = `urn:li:${kind}:D4D${newId()}`;
      const upload: LinkedInUpload = {
        urn,
        kind,
        owner: init.owner,
        bytes: 0,
        parts: [],
        status: 'WAITING_UPLOAD',
        readyAtMs: 0,
      };
      uploads.set(urn, upload);
      const expires = now() + 86_400_000;
      if (kind !== 'video') {
        return {
          status: 200,
          body: {
            value: {
              uploadUrlExpiresAt: expires,
              uploadUrl: `${origin}/upload/${encodeURIComponent(urn)}/0`,
              [kind]: urn,
            },
          },
        };
      }
      const size = Number(init.fileSizeBytes);
      if (!Number.isInteger(size) || size <= 0)
        return error(400, 'fileSizeBytes is required', { code: 'ILLEGAL_ARGUMENT' });
      const uploadInstructions = [];
      for (let first = 0, part = 0; first < size; first += VIDEO_PART_BYTES, part++) {
        const last = Math.min(first + VIDEO_PART_BYTES, size) - 1;
        uploadInstructions.push({
          uploadUrl: `${origin}/upload/${encodeURIComponent(urn)}/${part}`,
          firstByte: first,
          lastByte: last,
        });
      }
      return {
        status: 200,
        body: {
          value: { uploadUrlsExpireAt: expires, video: urn, uploadInstructions, uploadToken: `token-${urn}` },
        },
      };
    });
  }

  function putUpload(request: FakeRequest): FakeAnswer {
    const upload = uploads.get(request.params.urn ?? '');
    if (!upload) return { status: 404, body: '' };
    const bytes = request.body.bytes.length;
    upload.bytes += bytes;
    upload.parts.push(bytes);
    if (upload.kind !== 'video') upload.status = 'AVAILABLE';
    return {
      status: upload.kind === 'video' ? 200 : 201,
      headers: { etag: `"etag-${request.params.part}-${bytes}"` },
    };
  }

  function finalizeVideo(request: FakeRequest): FakeAnswer {
    const done = json(request).finalizeUploadRequest ?? {};
    const upload = uploads.get(done.video);
    if (!upload || done.uploadToken !== `token-${upload.urn}`)
      return error(400, 'Invalid upload token', { code: 'ILLEGAL_ARGUMENT' });
    if (!Array.isArray(done.uploadedPartIds) || done.uploadedPartIds.length !== upload.parts.length) {
      return error(400, 'uploadedPartIds do not match the parts uploaded', { code: 'ILLEGAL_ARGUMENT' });
    }
    upload.status = 'PROCESSING';
    upload.readyAtMs = now() + (options.videoProcessingMs ?? 0);
    return { status: 200, body: {} };
  }

  const statusOf = (upload: LinkedInUpload) =>
    upload.status === 'PROCESSING' && now() >= upload.readyAtMs ? 'AVAILABLE' : upload.status;

  function createPost(request: FakeRequest): FakeAnswer {
    const body = json(request);
    if (!mayAct(request, body.author)) return forbidden('/posts');
    if (typeof body.commentary !== 'string' || body.lifecycleState !== 'PUBLISHED') {
      return error(
        422,
        'Field Value validation failed in REQUEST_BODY: Data Processing Exception while processing fields [/commentary]',
      );
    }
    if (body.commentary.length > 3000) {
      return error(
        422,
        'Field Value validation failed in REQUEST_BODY: Data Processing Exception while processing fields [/commentary]: length exceeds 3000',
      );
    }
    const ids = [
      body.content?.media?.id,
      ...(body.content?.multiImage?.images ?? []).map((image: { id?: unknown }) => image.id),
    ];
    for (const id of ids.filter((value) => value !== undefined)) {
      const upload = uploads.get(id);
      if (!upload || statusOf(upload) !== 'AVAILABLE') {
        return error(400, `Media ${id} is not available: it is still processing or was never uploaded`, {
          code: 'INVALID_CONTENT',
        });
      }
    }
    const duplicate = posts.find(
      (post) =>
        post.body.author === body.author &&
        post.body.commentary === body.commentary &&
        body.commentary !== '',
    );
    if (duplicate) {
      return {
        status: 422,
        body: {
          errorDetailType: 'com.linkedin.common.error.BadRequest',
          message: `ERROR :: /commentary :: Content is a duplicate of ${duplicate.urn}`,
          errorDetails: {
            inputErrors: [{ description: 'Duplicate post is detected', input: {}, code: 'DUPLICATE_POST' }],
          },
          status: 422,
        },
      };
    }
    const urn = `urn:li:share:${newId()}`;
    posts.push({ urn, body });
    return { status: 201, headers: { 'x-restli-id': urn } };
  }

  function createComment(request: FakeRequest): FakeAnswer {
    const post = request.params.urn ?? '';
    const body = json(request);
    if (!posts.some((candidate) => candidate.urn === post)) return error(404, `Post ${post} not found`);
    if (!mayAct(request, body.actor)) return forbidden('/socialActions');
    comments.push({ post, body });
    const id = newId();
    return {
      status: 201,
      headers: { 'x-restli-id': id },
      body: { id, object: post, actor: body.actor, message: body.message },
    };
  }

  const routes: FakeRoute[] = [
    { method: 'GET', path: '/oauth/v2/authorization', handle: authorize },
    { method: 'POST', path: '/oauth/v2/accessToken', handle: token },
    {
      method: 'GET',
      path: '/v2/userinfo',
      auth: true,
      handle: (request) =>
        has(request, 'openid')
          ? {
              status: 200,
              body: {
                sub: MEMBER_ID,
                name: 'Ada Lovelace',
                given_name: 'Ada',
                family_name: 'Lovelace',
                locale: { country: 'GB', language: 'en' },
              },
            }
          : forbidden('/userinfo'),
    },
    {
      method: 'GET',
      path: '/rest/organizationAcls',
      auth: true,
      handle: rest((request) => {
        if (!has(request, 'rw_organization_admin')) return forbidden('/organizationAcls');
        const q = request.query;
        if (q.get('q') !== 'roleAssignee') return error(400, 'Unknown finder');
        const elements = pages.map((page) => ({
          roleAssignee: MEMBER_URN,
          state: 'APPROVED',
          role: 'ADMINISTRATOR',
          organization: `urn:li:organization:${page.id}`,
        }));
        return { status: 200, body: { paging: { count: 10, start: 0, total: elements.length }, elements } };
      }),
    },
    {
      method: 'GET',
      path: '/rest/organizations/:id',
      auth: true,
      handle: rest((request) => {
        const page = pages.find((candidate) => candidate.id === request.params.id);
        return page
          ? {
              status: 200,
              body: {
                id: Number(page.id),
                localizedName: page.name,
                vanityName: page.name.toLowerCase().replaceAll(' ', '-'),
              },
            }
          : error(404, 'Organization not found');
      }),
    },
    { method: 'POST', path: '/rest/images', auth: true, handle: initializeUpload('image') },
    { method: 'POST', path: '/rest/videos', auth: true, handle: initializeUpload('video') },
    { method: 'POST', path: '/rest/documents', auth: true, handle: initializeUpload('document') },
    { method: 'PUT', path: '/upload/:urn/:part', auth: true, handle: putUpload },
    {
      method: 'GET',
      path: '/rest/videos/:urn',
      auth: true,
      handle: rest((request) => {
        const upload = uploads.get(request.params.urn ?? '');
        return upload
          ? { status: 200, body: { id: upload.urn, owner: upload.owner, status: statusOf(upload) } }
          : error(404, 'Video not found');
      }),
    },
    { method: 'POST', path: '/rest/posts', auth: true, handle: rest(createPost) },
    { method: 'POST', path: '/rest/socialActions/:urn/comments', auth: true, handle: rest(createComment) },
  ];

  const kit = await startFakePlatform({
    now,
    tokenOf: bearerOf,
    routes,
    errors: {
      failure: (status, said) =>
        error(status, said ?? (status >= 500 ? 'Internal Server Error' : `HTTP ${status}`)),
      rateLimited: ({ retryAfterSeconds }) => ({
        status: 429,
        ...(retryAfterSeconds === undefined ? {} : { headers: { 'retry-after': String(retryAfterSeconds) } }),
        body: {
          status: 429,
          serviceErrorCode: 101,
          message: 'Resource level throttle limit for calls to this resource is reached.',
        },
      }),
      unauthorized: (problem) =>
        problem === 'revoked'
          ? error(401, 'The token used in the request has been revoked by the user', {
              serviceErrorCode: 65601,
              code: 'REVOKED_ACCESS_TOKEN',
            })
          : error(401, 'Invalid access token', { serviceErrorCode: 65600, code: 'INVALID_ACCESS_TOKEN' }),
      notFound: (request) =>
        error(404, `No virtual resource found for ${request.path}`, {
          serviceErrorCode: 0,
          code: 'NOT_FOUND',
        }),
    },
  });
  origin = kit.url;

  return {
    url: origin,
    kit,
    clientId,
    clientSecret,
    /** A token of the member with every scope (the member's and the pages'). */
    token: issueToken(),
    issueToken,
    posts,
    uploads,
    comments,
    /**
     * Follows an authorization URL as a browser would once the member approves: the code and state the
     * page sent to the redirect URI.
     */
    async approve(
      authorizationUrl: string,
    ): Promise<{ code: string; state: string | null; redirectedTo: string }> {
      const response = await fetch(authorizationUrl, { redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status !== 302 || !location)
        throw new Error(`The authorization page answered ${response.status}`);
      const target = new URL(location);
      return {
        code: target.searchParams.get('code') ?? '',
        state: target.searchParams.get('state'),
        redirectedTo: location,
      };
    },
    close: () => kit.close(),
  };
}

export type LinkedInServer = Awaited<ReturnType<typeof startLinkedInServer>>;
