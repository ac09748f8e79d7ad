/**
 * The OAuth 2.0 endpoints of the X stand-in (x-server.ts), as docs.x.com/fundamentals/authentication/
 * oauth-2-0 (authorization-code, user-access-token) describes them: the authorization page (approved at
 * once, redirecting to the registered redirect URI with `code` and `state`), and the token endpoint of
 * a confidential client (HTTP Basic), with PKCE (S256 or plain) checked, codes that last 30 seconds on
 * the stand-in's clock and work once, access tokens of 2 hours, and refresh tokens (with
 * `offline.access`) that rotate: a refresh token used a second time is refused and ends its family (every
 * token issued from the same sign-in), as integrators report X does.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Credentials } from './fake-platform/credentials.js';
import type { FakeAnswer, FakeRequest } from './fake-platform/kit.js';

export interface XApp {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

interface Family {
  dead: boolean;
  scopes: string[];
  accessTokens: string[];
}

export interface XTokens {
  accessToken: string;
  refreshToken?: string;
  expiresAtMs: number;
  scope: string;
}

export const CODE_LIFETIME_MS = 30_000;

export class XSignIn {
  readonly app: XApp = {
    clientId: randomBytes(16).toString('base64url'),
    clientSecret: randomBytes(32).toString('base64url'),
    redirectUris: ['http://127.0.0.1:8788/callback'],
  };
  /** Seconds an access token lasts. */
  accessTokenSeconds = 7_200;
  private readonly codes = new Map<
    string,
    { redirectUri: string; challenge: string; method: string; scopes: string[]; atMs: number; used: boolean }
  >();
  private readonly refreshTokens = new Map<string, { family: Family; used: boolean }>();
  readonly expiresAt = new Map<string, number>();
  readonly scopesOf = new Map<string, string[]>();
  /** Every refresh token issued (for the secret checks), and how many refreshes were answered. */
  readonly issuedRefreshTokens: string[] = [];
  refreshes = 0;

  constructor(
    private readonly credentials: Credentials,
    private readonly now: () => number,
  ) {}

  /** Tokens as a sign-in with these scopes gives them (for tests that start signed in). */
  issue(scopes = 'tweet.read tweet.write users.read media.write offline.access'): XTokens {
    const list = scopes.split(/\s+/).filter(Boolean);
    return this.tokensOf({ dead: false, scopes: list, accessTokens: [] });
  }

  /** A token that no longer works from now on (it expired). */
  expire(accessToken: string): void {
    this.expiresAt.set(accessToken, this.now() - 1);
  }

  /** Whether the access token has expired on the stand-in's clock. */
  expired(accessToken: string): boolean {
    return (this.expiresAt.get(accessToken) ?? Number.POSITIVE_INFINITY) <= this.now();
  }

  private tokensOf(family: Family): XTokens {
    const accessToken = this.credentials.issue();
    family.accessTokens.push(accessToken);
    const expiresAtMs = this.now() + this.accessTokenSeconds * 1000;
    this.expiresAt.set(accessToken, expiresAtMs);
    this.scopesOf.set(accessToken, family.scopes);
    const tokens: XTokens = { accessToken, expiresAtMs, scope: family.scopes.join(' ') };
    if (family.scopes.includes('offline.access')) {
      const refreshToken = randomBytes(32).toString('base64url');
      this.refreshTokens.set(refreshToken, { family, used: false });
      this.issuedRefreshTokens.push(refreshToken);
      tokens.refreshToken = refreshToken;
    }
    return tokens;
  }

  /** GET /i/oauth2/authorize, approved at once by the signed-in user. */
  authorize(request: FakeRequest): FakeAnswer {
    const q = request.query;
    const page = (message: string): FakeAnswer => ({
      status: 400,
      headers: { 'content-type': 'text/html' },
      body: `<html><body><p>Something went wrong. ${message}</p></body></html>`,
    });
    if (q.get('response_type') !== 'code') return page('response_type must be code.');
    if (q.get('client_id') !== this.app.clientId) return page('Unknown client.');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!this.app.redirectUris.includes(redirectUri)) return page('The redirect URI is not registered.');
    const challenge = q.get('code_challenge');
    const method = q.get('code_challenge_method') ?? 'plain';
    if (!challenge || !['S256', 'plain'].includes(method)) return page('PKCE is required.');
    const state = q.get('state') ?? '';
    if (state.length > 500) return page('state is too long.');
    const code = randomBytes(24).toString('base64url');
    const scopes = (q.get('scope') ?? '').split(' ').filter(Boolean);
    this.codes.set(code, { redirectUri, challenge, method, scopes, atMs: this.now(), used: false });
    const target = new URL(redirectUri);
    target.searchParams.set('state', state);
    target.searchParams.set('code', code);
    return { status: 302, headers: { location: target.href } };
  }

  /** POST /2/oauth2/token. */
  token(request: FakeRequest): FakeAnswer {
    const invalid = (description: string): FakeAnswer => ({
      status: 400,
      body: { error: 'invalid_request', error_description: description },
    });
    const basic = /^Basic\s+(.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1];
    const [id, secret] = Buffer.from(basic ?? '', 'base64')
      .toString()
      .split(':');
    if (id !== this.app.clientId || secret !== this.app.clientSecret) {
      return {
        status: 401,
        body: { error: 'unauthorized_client', error_description: 'Missing valid authorization header' },
      };
    }
    const form = new Map(request.body.fields);
    const answer = (tokens: XTokens): FakeAnswer => ({
      status: 200,
      body: {
        token_type: 'bearer',
        expires_in: this.accessTokenSeconds,
        access_token: tokens.accessToken,
        scope: tokens.scope,
        ...(tokens.refreshToken ? { refresh_token: tokens.refreshToken } : {}),
      },
    });
    if (form.get('grant_type') === 'authorization_code') {
      const code = this.codes.get(form.get('code') ?? '');
      if (!code || code.used || this.now() - code.atMs > CODE_LIFETIME_MS) {
        return invalid('Value passed for the authorization code was invalid.');
      }
      code.used = true;
      if (form.get('redirect_uri') !== code.redirectUri) return invalid('redirect_uri does not match.');
      const verifier = form.get('code_verifier') ?? '';
      const expected =
        code.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
      if (expected !== code.challenge) return invalid('Value passed for the code_verifier was invalid.');
      return answer(this.tokensOf({ dead: false, scopes: code.scopes, accessTokens: [] }));
    }
    if (form.get('grant_type') === 'refresh_token') {
      const known = this.refreshTokens.get(form.get('refresh_token') ?? '');
      if (!known || known.family.dead) return invalid('Value passed for the token was invalid.');
      if (known.used) {
        // Reuse of a rotated refresh token: the whole sign-in ends.
        known.family.dead = true;
        for (const token of known.family.accessTokens) this.credentials.revoke(token);
        return invalid('Value passed for the token was invalid.');
      }
      known.used = true;
      this.refreshes++;
      return answer(this.tokensOf(known.family));
    }
    return {
      status: 400,
      body: { error: 'unsupported_grant_type', error_description: 'grant_type is not supported.' },
    };
  }
}

/**
 * Follows the authorization page as a browser would: the `code` and `state` it redirects with, and the
 * address it redirects to (where the program listens, or what the user pastes).
 */
export async function approve(
  authorizationUrl: string,
): Promise<{ code: string; state: string; redirectedTo: string }> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) {
    throw new Error(`The authorization page answered ${response.status}: ${await response.text()}`);
  }
  const target = new URL(location);
  return {
    code: target.searchParams.get('code') ?? '',
    state: target.searchParams.get('state') ?? '',
    redirectedTo: target.href,
  };
}
