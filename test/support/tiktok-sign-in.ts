/**
 * TikTok's Login Kit as the TikTok stand-in (tiktok-server.ts) serves it: the authorization page
 * `GET /v2/auth/authorize/` (`client_key`, a registered redirect URI, scopes comma separated, PKCE
 * S256), approved at once, and the token endpoint `POST /v2/oauth/token/` (a form with `client_key`):
 * a code works once, for 10 minutes, with its redirect URI and verifier; access tokens of 24 hours and
 * refresh tokens of 365 days, a refresh answering a new refresh token and spending the old one; its
 * refusals flat (`{error, error_description, log_id}`), as developers.tiktok.com/doc/oauth-user-access-
 * token-management shows them.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Credentials } from './fake-platform/credentials.js';
import type { FakeAnswer, FakeRequest } from './fake-platform/kit.js';

export const TIKTOK_OPEN_ID = '-000AbCdEfGhIjKlMnOpQrStUvWxYz0123';
const DAY_S = 86_400;

export function tiktokSignIn(now: () => number, credentials: () => Credentials) {
  const app = {
    clientKey: `aw${randomBytes(8).toString('hex')}`,
    clientSecret: randomBytes(16).toString('hex'),
    redirectUris: ['https://example.com/tiktok-callback/'],
  };
  const codes = new Map<
    string,
    { redirectUri: string; scopes: string[]; challenge: string | null; atMs: number; used: boolean }
  >();
  const tokens = new Map<string, { scopes: string[]; expiresAtMs: number }>();
  const refreshTokens = new Map<string, { scopes: string[]; spent: boolean }>();

  const field = (request: FakeRequest, name: string) => new Map(request.body.fields).get(name);
  const tokenOf = (request: FakeRequest) =>
    /^Bearer\s+(.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1]?.trim();

  function issue(scopes: string[]) {
    const access = credentials().issue(`act.${randomBytes(24).toString('base64url')}`);
    const refresh = credentials().issue(`rft.${randomBytes(24).toString('base64url')}`);
    tokens.set(access, { scopes, expiresAtMs: now() + DAY_S * 1000 });
    refreshTokens.set(refresh, { scopes, spent: false });
    return {
      status: 200,
      body: {
        access_token: access,
        expires_in: DAY_S,
        open_id: TIKTOK_OPEN_ID,
        refresh_token: refresh,
        refresh_expires_in: 365 * DAY_S,
        scope: scopes.join(','),
        token_type: 'Bearer',
      },
    } satisfies FakeAnswer;
  }

  const tokenError = (error: string, description: string): FakeAnswer => ({
    status: 400,
    body: { error, error_description: description, log_id: randomBytes(8).toString('hex') },
  });

  function authorize(request: FakeRequest): FakeAnswer {
    const q = request.query;
    const page = (message: string): FakeAnswer => ({
      status: 400,
      headers: { 'content-type': 'text/html' },
      body: `<p>${message}</p>`,
    });
    if (q.get('client_key') !== app.clientKey) return page('client_key: invalid client key.');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!app.redirectUris.includes(redirectUri))
      return page('redirect_uri: it is not registered for the app.');
    if (q.get('response_type') !== 'code') return page('response_type must be code.');
    const challenge = q.get('code_challenge');
    if (challenge && q.get('code_challenge_method') !== 'S256')
      return page('code_challenge_method must be S256.');
    const code = randomBytes(24).toString('base64url');
    codes.set(code, {
      redirectUri,
      scopes: (q.get('scope') ?? '').split(','),
      challenge,
      atMs: now(),
      used: false,
    });
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    target.searchParams.set('scopes', q.get('scope') ?? '');
    target.searchParams.set('state', q.get('state') ?? '');
    return { status: 302, headers: { location: target.href } };
  }

  function token(request: FakeRequest): FakeAnswer {
    if (
      field(request, 'client_key') !== app.clientKey ||
      field(request, 'client_secret') !== app.clientSecret
    ) {
      return { ...tokenError('invalid_client', 'Client key or secret is invalid.'), status: 401 };
    }
    const grant = field(request, 'grant_type');
    if (grant === 'refresh_token') {
      const old = refreshTokens.get(field(request, 'refresh_token') ?? '');
      if (!old || old.spent) return tokenError('invalid_grant', 'Refresh token is invalid or expired.');
      old.spent = true;
      credentials().revoke(field(request, 'refresh_token'));
      return issue(old.scopes);
    }
    if (grant !== 'authorization_code')
      return tokenError('unsupported_grant_type', 'grant_type is not supported.');
    const code = codes.get(field(request, 'code') ?? '');
    if (!code || code.used || now() - code.atMs > 10 * 60_000)
      return tokenError('invalid_grant', 'Authorization code is expired.');
    code.used = true;
    if (field(request, 'redirect_uri') !== code.redirectUri)
      return tokenError('invalid_request', 'Redirect URI mismatch.');
    const verifier = field(request, 'code_verifier') ?? '';
    if (code.challenge && createHash('sha256').update(verifier).digest('base64url') !== code.challenge) {
      return tokenError('invalid_request', 'Code verifier or code challenge is invalid.');
    }
    return issue(code.scopes);
  }

  return { app, codes, tokens, field, tokenOf, issue, authorize, token };
}
