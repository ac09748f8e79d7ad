/**
 * The OAuth 2.0 endpoints of a Google stand-in (google-business-server.ts), as
 * developers.google.com/identity/protocols/oauth2/web-server describes them for a Web application
 * client: the authorization page `/o/oauth2/v2/auth` (approved at once, redirecting with `code` and
 * `state` to a registered redirect URI; a refresh token only with `access_type=offline` and a consent
 * screen, `prompt=consent`), and the token endpoint `/token` (the client's credentials in the form):
 * codes that work once for 10 minutes, PKCE (S256) checked when the page was given a challenge,
 * access tokens of 3,599 seconds, refresh answering a new access token and no new refresh token.
 * Errors are OAuth's (`invalid_grant`, `invalid_client`). `testingMode` ends refresh tokens 7 days after
 * the sign-in, as Google does for an External app whose consent screen is in Testing.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Credentials } from './fake-platform/credentials.js';
import type { FakeAnswer, FakeRequest } from './fake-platform/kit.js';

export interface GoogleApp {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

const CODE_LIFETIME_MS = 10 * 60_000;
const TESTING_REFRESH_LIFETIME_MS = 7 * 24 * 3_600_000;

export class GoogleSignIn {
  readonly app: GoogleApp = {
    clientId: `${randomBytes(6).toString('hex')}.apps.googleusercontent.com`,
    clientSecret: `GOCSPX-${randomBytes(14).toString('base64url')}`,
    redirectUris: ['http://127.0.0.1:8788/callback'],
  };
  accessTokenSeconds = 3_599;
  /** Refresh tokens end 7 days after the sign-in (an app in Testing). */
  testingMode = false;
  private readonly codes = new Map<
    string,
    {
      redirectUri: string;
      challenge: string | null;
      scopes: string[];
      offline: boolean;
      atMs: number;
      used: boolean;
    }
  >();
  private readonly refreshTokens = new Map<
    string,
    { scopes: string[]; issuedAtMs: number; revoked: boolean }
  >();
  readonly expiresAt = new Map<string, number>();
  readonly scopesOf = new Map<string, string[]>();
  readonly issuedRefreshTokens: string[] = [];
  refreshes = 0;

  constructor(
    private readonly credentials: Credentials,
    private readonly now: () => number,
  ) {}

  /** Tokens as a sign-in with these scopes gives them (for tests that start signed in). */
  issue(scopes: string[]): { accessToken: string; refreshToken: string; expiresAtMs: number; scope: string } {
    const refreshToken = this.newRefreshToken(scopes);
    const access = this.newAccessToken(scopes);
    return { ...access, refreshToken };
  }

  expired(accessToken: string): boolean {
    return (this.expiresAt.get(accessToken) ?? Number.POSITIVE_INFINITY) <= this.now();
  }

  /** The refresh token stops working (the user removed the app). */
  revokeRefreshToken(refreshToken: string): void {
    const known = this.refreshTokens.get(refreshToken);
    if (known) known.revoked = true;
  }

  private newAccessToken(scopes: string[]) {
    const accessToken = this.credentials.issue(`ya29.${randomBytes(24).toString('base64url')}`);
    const expiresAtMs = this.now() + this.accessTokenSeconds * 1000;
    this.expiresAt.set(accessToken, expiresAtMs);
    this.scopesOf.set(accessToken, scopes);
    return { accessToken, expiresAtMs, scope: scopes.join(' ') };
  }

  private newRefreshToken(scopes: string[]): string {
    const refreshToken = `1//${randomBytes(30).toString('base64url')}`;
    this.refreshTokens.set(refreshToken, { scopes, issuedAtMs: this.now(), revoked: false });
    this.issuedRefreshTokens.push(refreshToken);
    return refreshToken;
  }

  /** GET /o/oauth2/v2/auth, approved at once by the signed-in user. */
  authorize(request: FakeRequest): FakeAnswer {
    const q = request.query;
    const page = (message: string): FakeAnswer => ({
      status: 400,
      headers: { 'content-type': 'text/html' },
      body: `<html><body><p>Access blocked: this app's request is invalid. Error 400: ${message}</p></body></html>`,
    });
    if (q.get('client_id') !== this.app.clientId) return page('invalid_client');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!this.app.redirectUris.includes(redirectUri)) return page('redirect_uri_mismatch');
    if (q.get('response_type') !== 'code') return page('unsupported_response_type');
    const challenge = q.get('code_challenge');
    if (challenge && q.get('code_challenge_method') !== 'S256') return page('invalid_request');
    const scopes = (q.get('scope') ?? '').split(' ').filter(Boolean);
    if (scopes.length === 0) return page('invalid_scope');
    const code = `4/${randomBytes(24).toString('base64url')}`;
    this.codes.set(code, {
      redirectUri,
      challenge,
      scopes,
      offline: q.get('access_type') === 'offline' && q.get('prompt') === 'consent',
      atMs: this.now(),
      used: false,
    });
    const target = new URL(redirectUri);
    target.searchParams.set('state', q.get('state') ?? '');
    target.searchParams.set('code', code);
    target.searchParams.set('scope', scopes.join(' '));
    return { status: 302, headers: { location: target.href } };
  }

  /** POST /token. */
  token(request: FakeRequest): FakeAnswer {
    const form = new Map(request.body.fields);
    const grant = (description: string): FakeAnswer => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: description },
    });
    if (form.get('client_id') !== this.app.clientId || form.get('client_secret') !== this.app.clientSecret) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Unauthorized' } };
    }
    if (form.get('grant_type') === 'authorization_code') {
      const code = this.codes.get(form.get('code') ?? '');
      if (!code || code.used || this.now() - code.atMs > CODE_LIFETIME_MS) return grant('Bad Request');
      code.used = true;
      if (form.get('redirect_uri') !== code.redirectUri) {
        return { status: 400, body: { error: 'redirect_uri_mismatch', error_description: 'Bad Request' } };
      }
      if (code.challenge) {
        const verifier = form.get('code_verifier') ?? '';
        if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) {
          return grant('Invalid code verifier.');
        }
      }
      const access = this.newAccessToken(code.scopes);
      return {
        status: 200,
        body: {
          access_token: access.accessToken,
          expires_in: this.accessTokenSeconds,
          scope: access.scope,
          token_type: 'Bearer',
          ...(code.offline ? { refresh_token: this.newRefreshToken(code.scopes) } : {}),
        },
      };
    }
    if (form.get('grant_type') === 'refresh_token') {
      const known = this.refreshTokens.get(form.get('refresh_token') ?? '');
      const ended =
        !known ||
        known.revoked ||
        (this.testingMode && this.now() - known.issuedAtMs > TESTING_REFRESH_LIFETIME_MS);
      if (ended) return grant('Token has been expired or revoked.');
      this.refreshes++;
      const access = this.newAccessToken(known.scopes);
      return {
        status: 200,
        body: {
          access_token: access.accessToken,
          expires_in: this.accessTokenSeconds,
          scope: access.scope,
          token_type: 'Bearer',
        },
      };
    }
    return {
      status: 400,
      body: { error: 'unsupported_grant_type', error_description: 'Invalid grant_type.' },
    };
  }
}
