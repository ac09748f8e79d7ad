/**
 * The Instagram stand-in's sign-ins (instagram-server.ts), as Meta documents them:
 *
 * - Facebook Login, with the FACEBOOK app: the dialog `GET /{v}/dialog/oauth` (approved at once,
 *   redirecting with `code` and `state` to a registered redirect URI), `GET /{v}/oauth/access_token`
 *   (the code, with its redirect URI, for a user token of an hour; `grant_type=fb_exchange_token` for
 *   one of 60 days), `GET /{v}/me/accounts` (the Pages, each with its token and its
 *   `instagram_business_account`), `GET /{v}/me/businesses` (none);
 * - Instagram Login, with the INSTAGRAM app: `GET /oauth/authorize` (redirecting with `code=…#_`),
 *   `POST /oauth/access_token` (form: a token of an hour with `user_id` and `permissions`),
 *   `GET /access_token?grant_type=ig_exchange_token` (60 days), `GET /refresh_access_token?grant_type=
 *   ig_refresh_token` (a long-lived token at least 24 hours old and not expired: a new one),
 *   `GET /{v}/me?fields=user_id,username`.
 */
import { randomBytes } from 'node:crypto';
import type { FakeAnswer, FakeRequest, FakeRoute } from './fake-platform/kit.js';
import { graphError } from './instagram-errors.js';
import type { InstagramAccount } from './instagram-server.js';

const CODE_LIFETIME_MS = 10 * 60_000;
const LONG_LIVED_SECONDS = 5_183_944;

export type GrantKind = 'fb-short' | 'fb-user' | 'page' | 'ig-short' | 'ig-long';

export interface Grant {
  kind: GrantKind;
  /** The Instagram account a Page token or an Instagram Login token acts for. */
  account?: string;
  issuedAtMs: number;
  expiresAtMs: number;
}

const invalid = (message: string) => graphError(100, `(#100) ${message}`);
const badClient = () => graphError(101, 'Error validating client secret.', { status: 400 });
const expired = () =>
  graphError(190, 'Error validating access token: Session has expired.', { subcode: 463 });

const newApp = () => ({
  clientId: String(2_000_000_000 + Math.floor(Math.random() * 1e9)),
  clientSecret: randomBytes(16).toString('hex'),
  redirectUris: ['https://example.com/instagram-callback'],
});

type AsAccount = (
  work: (request: FakeRequest, owner: string) => FakeAnswer | Promise<FakeAnswer>,
) => (request: FakeRequest) => Promise<FakeAnswer>;

export function instagramSignIn(world: {
  now: () => number;
  accounts: InstagramAccount[];
  issue: () => string;
}) {
  const { now, accounts } = world;
  const apps = { facebook: newApp(), instagram: newApp() };
  const codes = new Map<
    string,
    { app: 'facebook' | 'instagram'; redirectUri: string; atMs: number; used: boolean }
  >();
  const tokens = new Map<string, Grant>();

  const field = (request: FakeRequest, name: string) =>
    new Map(request.body.fields).get(name) ?? request.query.get(name) ?? undefined;
  const tokenOf = (request: FakeRequest): string | undefined =>
    /^(?:Bearer|OAuth)\s+(.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1]?.trim() ??
    request.query.get('access_token') ??
    new Map(request.body.fields).get('access_token');

  function grant(kind: GrantKind, account?: string, ageMs = 0): string {
    const token = world.issue();
    const seconds = kind === 'page' ? 0 : kind.endsWith('short') ? 3_600 : LONG_LIVED_SECONDS;
    tokens.set(token, {
      kind,
      ...(account ? { account } : {}),
      issuedAtMs: now() - ageMs,
      expiresAtMs: seconds === 0 ? Number.MAX_SAFE_INTEGER : now() - ageMs + seconds * 1000,
    });
    return token;
  }
  const tokenBody = (token: string) => {
    const { expiresAtMs } = tokens.get(token)!;
    return {
      access_token: token,
      token_type: 'bearer',
      expires_in: Math.round((expiresAtMs - now()) / 1000),
    };
  };

  function authorize(app: 'facebook' | 'instagram') {
    return (request: FakeRequest): FakeAnswer => {
      const q = request.query;
      const page = (message: string): FakeAnswer => ({
        status: 400,
        headers: { 'content-type': 'text/html' },
        body: `<html><body><p>${message}</p></body></html>`,
      });
      if (q.get('client_id') !== apps[app].clientId) return page('Invalid App ID.');
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!apps[app].redirectUris.includes(redirectUri))
        return page('Invalid redirect_uri: it is not registered.');
      if (q.get('response_type') !== 'code') return page('Unsupported response_type.');
      const code = randomBytes(24).toString('base64url');
      codes.set(code, { app, redirectUri, atMs: now(), used: false });
      const target = new URL(redirectUri);
      target.searchParams.set('code', code);
      target.searchParams.set('state', q.get('state') ?? '');
      return { status: 302, headers: { location: app === 'instagram' ? `${target.href}#_` : target.href } };
    };
  }

  /** A code of `app` given with its redirect URI: spent, or the refusal. */
  function spendCode(request: FakeRequest, app: 'facebook' | 'instagram'): FakeAnswer | undefined {
    const code = codes.get(field(request, 'code') ?? '');
    if (!code || code.used || code.app !== app || now() - code.atMs > CODE_LIFETIME_MS) {
      return graphError(100, 'Invalid verification code format.', { subcode: 36_009 });
    }
    code.used = true;
    if (field(request, 'redirect_uri') !== code.redirectUri) {
      return graphError(
        100,
        'Error validating verification code. Please make sure your redirect_uri is identical.',
        {
          subcode: 36_008,
        },
      );
    }
    return undefined;
  }

  function facebookToken(request: FakeRequest): FakeAnswer {
    const app = apps.facebook;
    if (
      field(request, 'client_id') !== app.clientId ||
      field(request, 'client_secret') !== app.clientSecret
    ) {
      return badClient();
    }
    if (field(request, 'grant_type') === 'fb_exchange_token') {
      const short = tokens.get(field(request, 'fb_exchange_token') ?? '');
      if (short?.kind !== 'fb-short' || short.expiresAtMs <= now()) return expired();
      return { status: 200, body: tokenBody(grant('fb-user')) };
    }
    const refused = spendCode(request, 'facebook');
    if (refused) return refused;
    return { status: 200, body: tokenBody(grant('fb-short')) };
  }

  function instagramCode(request: FakeRequest): FakeAnswer {
    const app = apps.instagram;
    if (
      field(request, 'client_id') !== app.clientId ||
      field(request, 'client_secret') !== app.clientSecret
    ) {
      return badClient();
    }
    if (field(request, 'grant_type') !== 'authorization_code') return invalid('Unsupported grant_type.');
    const refused = spendCode(request, 'instagram');
    if (refused) return refused;
    const account = accounts[0]!;
    const token = grant('ig-short', account.id);
    const permissions = 'instagram_business_basic,instagram_business_content_publish';
    return { status: 200, body: { access_token: token, user_id: Number(account.id), permissions } };
  }

  function instagramLong(request: FakeRequest): FakeAnswer {
    if (request.query.get('client_secret') !== apps.instagram.clientSecret) return badClient();
    if (request.query.get('grant_type') !== 'ig_exchange_token') return invalid('Unsupported grant_type.');
    const short = tokens.get(request.query.get('access_token') ?? '');
    if (short?.kind !== 'ig-short' || short.expiresAtMs <= now()) return expired();
    return { status: 200, body: tokenBody(grant('ig-long', short.account)) };
  }

  function instagramRefresh(request: FakeRequest): FakeAnswer {
    if (request.query.get('grant_type') !== 'ig_refresh_token') return invalid('Unsupported grant_type.');
    const old = tokens.get(request.query.get('access_token') ?? '');
    if (old?.kind !== 'ig-long' || old.expiresAtMs <= now()) return expired();
    if (now() - old.issuedAtMs < 24 * 3_600_000) {
      return invalid('The access token must be at least 24 hours old to be refreshed.');
    }
    return { status: 200, body: tokenBody(grant('ig-long', old.account)) };
  }

  /** The Pages of a Facebook user token, each with its token and its linked Instagram account. */
  function pages(request: FakeRequest): FakeAnswer {
    const user = tokens.get(tokenOf(request) ?? '');
    if (user?.kind !== 'fb-user' && user?.kind !== 'fb-short') {
      return invalid('Tried accessing nonexisting field (accounts) on node type (Page).');
    }
    const data = accounts.map((account) => ({
      id: account.pageId,
      name: account.pageName,
      access_token: grant('page', account.id),
      instagram_business_account: { id: account.id, username: account.username },
    }));
    return { status: 200, body: { data, paging: {} } };
  }

  function me(_request: FakeRequest, owner: string): FakeAnswer {
    const account = accounts.find((candidate) => candidate.id === owner);
    if (!account) return invalid('Tried accessing nonexisting field (user_id).');
    return {
      status: 200,
      body: { id: `app-scoped-${account.id}`, user_id: account.id, username: account.username },
    };
  }

  const v = '/:version';
  const routes = (asAccount: AsAccount): FakeRoute[] => [
    { method: 'GET', path: `${v}/dialog/oauth`, handle: authorize('facebook') },
    { method: 'GET', path: `${v}/oauth/access_token`, handle: facebookToken },
    { method: 'GET', path: '/oauth/authorize', handle: authorize('instagram') },
    { method: 'POST', path: '/oauth/access_token', handle: instagramCode },
    { method: 'GET', path: '/access_token', handle: instagramLong },
    { method: 'GET', path: '/refresh_access_token', handle: instagramRefresh },
    { method: 'GET', path: `${v}/me/accounts`, auth: true, handle: asAccount(pages) },
    {
      method: 'GET',
      path: `${v}/me/businesses`,
      auth: true,
      handle: asAccount(() => ({ status: 200, body: { data: [] } })),
    },
    { method: 'GET', path: `${v}/me`, auth: true, handle: asAccount(me) },
  ];

  return { apps, codes, tokens, field, tokenOf, grant, routes };
}
