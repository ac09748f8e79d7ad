/**
 * Google's OAuth 2.0 endpoints for the Google stand-ins (youtube-server.ts, and Business Profile's), as
 * developers.google.com/identity/protocols/oauth2/web-server describes them: the authorization page
 * (`/o/oauth2/v2/auth`, approved at once, redirecting with `code` and `state`; `access_type=offline`
 * and `prompt=consent` are what bring a refresh token) and the token endpoint (`/token`, the client's
 * id and secret in the form, PKCE checked when a challenge was sent). An access token lasts an hour; a
 * refresh answers a new access token and no refresh token (the old one stays good); a refresh token
 * that expired (a consent screen in Testing: 7 days) or was revoked is refused with 400 `invalid_grant`
 * "Token has been expired or revoked.".
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Credentials } from './fake-platform/credentials.js';
import type { FakeAnswer, FakeRequest } from './fake-platform/kit.js';

export interface GoogleApp {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface GoogleTokens {
  accessToken: string;
  refreshToken?: string;
  expiresAtMs: number;
  scope: string;
}

/** How long a refresh token of an app whose consent screen is in Testing lives. */
export const TESTING_REFRESH_MS = 7 * 86_400_000;

export class GoogleSignIn {
  readonly app: GoogleApp = {
    clientId: `${randomBytes(6).toString('hex')}.apps.googleusercontent.com`,
    clientSecret: `GOCSPX-${randomBytes(20).toString('base64url')}`,
    redirectUris: ['http://127.0.0.1:8788/callback'],
  };
  accessTokenSeconds = 3_599;
  /** The consent screen is External and in Testing: refresh tokens die 7 days after the sign-in. */
  testingMode = false;
  private readonly codes = new Map<
    string,
    { redirectUri: string; challenge: string | null; scopes: string[]; offline: boolean; used: boolean }
  >();
  private readonly refreshTokens = new Map<string, { scopes: string[]; sinceMs: number; revoked: boolean }>();
  readonly expiresAt = new Map<string, number>();
  readonly scopesOf = new Map<string, string[]>();
  readonly issuedRefreshTokens: string[] = [];
  refreshes = 0;

  constructor(
    private readonly credentials: Credentials,
    private readonly now: () => number,
  ) {}

  /** Tokens as an offline sign-in with these scopes gives them (tests that start signed in). */
  issue(scopes: readonly string[]): GoogleTokens {
    return this.tokensOf([...scopes], this.newRefreshToken([...scopes]));
  }

  expire(accessToken: string): void {
    this.expiresAt.set(accessToken, this.now() - 1);
  }

  expired(accessToken: string): boolean {
    return (this.expiresAt.get(accessToken) ?? Number.POSITIVE_INFINITY) <= this.now();
  }

  /** Every refresh token stops working (the user removed the app's access). */
  revokeRefreshTokens(): void {
    for (const known of this.refreshTokens.values()) known.revoked = true;
  }

  private newRefreshToken(scopes: string[]): string {
    const token = `1//${randomBytes(30).toString('base64url')}`;
    this.refreshTokens.set(token, { scopes, sinceMs: this.now(), revoked: false });
    this.issuedRefreshTokens.push(token);
    return token;
  }

  private tokensOf(scopes: string[], refreshToken?: string): GoogleTokens {
    const accessToken = this.credentials.issue(`ya29.${randomBytes(30).toString('base64url')}`);
    const expiresAtMs = this.now() + this.accessTokenSeconds * 1000;
    this.expiresAt.set(accessToken, expiresAtMs);
    this.scopesOf.set(accessToken, scopes);
    return { accessToken, expiresAtMs, scope: scopes.join(' '), ...(refreshToken ? { refreshToken } : {}) };
  }

  /** GET /o/oauth2/v2/auth, approved at once by the signed-in user. */
  authorize(request: FakeRequest): FakeAnswer {
    const q = request.query;
    const page = (message: string): FakeAnswer => ({
      status: 400,
      headers: { 'content-type': 'text/html' },
      body: `<html><body><p>Error 400: ${message}</p></body></html>`,
    });
    if (q.get('response_type') !== 'code') return page('invalid_request (response_type)');
    if (q.get('client_id') !== this.app.clientId)
      return page('invalid_client: The OAuth client was not found.');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!this.app.redirectUris.includes(redirectUri)) return page('redirect_uri_mismatch');
    const challenge = q.get('code_challenge');
    if (challenge && q.get('code_challenge_method') !== 'S256') return page('invalid_request (PKCE)');
    const code = `4/${randomBytes(24).toString('base64url')}`;
    const scopes = (q.get('scope') ?? '').split(' ').filter(Boolean);
    // A refresh token comes with offline access, and (for a user who approved before) only on consent.
    const offline = q.get('access_type') === 'offline' && q.get('prompt') === 'consent';
    this.codes.set(code, { redirectUri, challenge, scopes, offline, used: false });
    const target = new URL(redirectUri);
    target.searchParams.set('state', q.get('state') ?? '');
    target.searchParams.set('code', code);
    target.searchParams.set('scope', scopes.join(' '));
    return { status: 302, headers: { location: target.href } };
  }

  /** POST /token. */
  token(request: FakeRequest): FakeAnswer {
    const form = new Map(request.body.fields);
    const grant = (error: string, description: string, status = 400): FakeAnswer => ({
      status,
      body: { error, error_description: description },
    });
    if (form.get('client_id') !== this.app.clientId || form.get('client_secret') !== this.app.clientSecret) {
      return grant('invalid_client', 'Unauthorized', 401);
    }
    const answer = (tokens: GoogleTokens): FakeAnswer => ({
      status: 200,
      body: {
        access_token: tokens.accessToken,
        expires_in: this.accessTokenSeconds,
        scope: tokens.scope,
        token_type: 'Bearer',
        ...(tokens.refreshToken ? { refresh_token: tokens.refreshToken } : {}),
        ...(tokens.refreshToken && this.testingMode
          ? { refresh_token_expires_in: TESTING_REFRESH_MS / 1000 }
          : {}),
      },
    });
    if (form.get('grant_type') === 'authorization_code') {
      const code = this.codes.get(form.get('code') ?? '');
      if (!code || code.used) return grant('invalid_grant', 'Malformed auth code.');
      code.used = true;
      if (form.get('redirect_uri') !== code.redirectUri) return grant('redirect_uri_mismatch', 'Bad Request');
      if (code.challenge) {
        const verifier = form.get('code_verifier') ?? '';
        if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) {
          return grant('invalid_grant', 'Invalid code verifier.');
        }
      }
      return answer(this.tokensOf(code.scopes, code.offline ? this.newRefreshToken(code.scopes) : undefined));
    }
    if (form.get('grant_type') === 'refresh_token') {
      const known = this.refreshTokens.get(form.get('refresh_token') ?? '');
      const dead =
        !known || known.revoked || (this.testingMode && this.now() - known.sinceMs >= TESTING_REFRESH_MS);
      if (dead) return grant('invalid_grant', 'Token has been expired or revoked.');
      this.refreshes++;
      return answer(this.tokensOf(known.scopes));
    }
    return grant('unsupported_grant_type', `Invalid grant_type: ${form.get('grant_type') ?? ''}`);
  }
}
