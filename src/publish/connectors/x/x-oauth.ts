/**
 * Signing in to X (OAuth 2.0 authorization code with PKCE, docs.x.com/fundamentals/authentication/
 * oauth-2-0/authorization-code and …/user-access-token), the module's OAuth hooks. The operator's app is
 * a confidential client ("Web App"): the token endpoint is called with HTTP Basic client_id:secret.
 *
 * The authorization page is on x.com and the token endpoint on api.x.com; a test or a proxy given as
 * `--auth-root` serves both paths on its one origin. An access token lasts 2 hours; `offline.access`
 * brings a refresh token, which X rotates: each refresh answers a new one and the old one is spent (a
 * reused one is refused, and is reported to end the whole sign-in).
 *
 * No error message holds the client secret, a code, a verifier or a token.
 */
import type { OAuthHooks } from '../module.js';
import { callTokenEndpoint } from '../token-endpoint.js';

/** What the connector needs: post (tweet.write with tweet.read, users.read), upload, refresh. */
export const X_SCOPES = ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'] as const;

export const X_AUTH_ROOT = 'https://x.com';
export const X_API_ROOT = 'https://api.x.com';

const AUTHORIZE_PATH = '/i/oauth2/authorize';
const TOKEN_PATH = '/2/oauth2/token';

/** The origin of `root` without a trailing slash; throws a plain message when it is not a URL. */
function originOf(root: string): string {
  try {
    return new URL(root).origin;
  } catch {
    throw new Error(`"${root}" is not an X address: give a URL such as ${X_AUTH_ROOT}.`);
  }
}

/** x.com's authorization page; on another auth root (a stand-in), the same path there. */
export function xAuthorizeUrl(authRoot: string): string {
  return `${originOf(authRoot)}${AUTHORIZE_PATH}`;
}

/** api.x.com's token endpoint when the auth root is x.com; on another auth root, the same path there. */
export function xTokenUrl(authRoot: string): string {
  const origin = originOf(authRoot);
  return origin === X_AUTH_ROOT ? `${X_API_ROOT}${TOKEN_PATH}` : `${origin}${TOKEN_PATH}`;
}

/** How to check X's app, when X refuses its credentials. */
const CHECK_APP = "check the app's OAuth 2.0 Client ID and Client Secret given to the program.";

export const xOAuth: OAuthHooks = {
  scopes: X_SCOPES,
  pkce: true,

  authorizationUrl({ endpoint, clientId, redirectUri, state, codeChallenge, scopes }) {
    const params: Record<string, string> = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: scopes.join(' '),
      state,
    };
    if (codeChallenge) {
      params.code_challenge = codeChallenge;
      params.code_challenge_method = 'S256';
    }
    // X wants the scopes %20-separated: URLSearchParams would write `+`.
    const query = Object.entries(params)
      .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
      .join('&');
    return `${xAuthorizeUrl(endpoint)}?${query}`;
  },

  /** The code lasts 30 seconds: it is exchanged as soon as it arrives. */
  exchangeCode({ endpoint, code, codeVerifier, redirectUri, clientId, clientSecret, ...http }) {
    const form: Record<string, string> = {
      code,
      grant_type: 'authorization_code',
      redirect_uri: redirectUri,
    };
    if (codeVerifier) form.code_verifier = codeVerifier;
    return callTokenEndpoint({
      platform: 'X',
      url: xTokenUrl(endpoint),
      form,
      basic: { clientId, clientSecret },
      http,
      secrets: [code, codeVerifier ?? ''],
      checkApp: CHECK_APP,
      refusal: (said) =>
        `X did not accept the sign-in's code (${said}): codes last 30 seconds and work once; sign in again, with the redirect URI registered in the app exactly as given.`,
    });
  },

  /** X rotates the refresh token: the one answered replaces the one spent. */
  refresh({ endpoint, refreshToken, clientId, clientSecret, ...http }) {
    return callTokenEndpoint({
      platform: 'X',
      url: xTokenUrl(endpoint),
      form: { grant_type: 'refresh_token', refresh_token: refreshToken },
      basic: { clientId, clientSecret },
      http,
      secrets: [refreshToken],
      checkApp: CHECK_APP,
      refusal: (said) => `X refused the refresh token (${said})`,
    });
  },
};
