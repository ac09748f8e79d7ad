/**
 * Signing in to Threads (developers.facebook.com/documentation/threads/get-started/
 * get-access-tokens-and-permissions and …/long-lived-tokens) with the Threads app id and secret of the
 * operator's Meta app.
 *
 * - The authorization page is `https://threads.net/oauth/authorize` (scopes comma separated); the code
 *   is exchanged with a POST of `https://graph.threads.net/oauth/access_token` (form: client_id,
 *   client_secret, grant_type=authorization_code, redirect_uri, code) for a short-lived token (an
 *   hour), exchanged at once for a long-lived one (`GET /access_token?grant_type=th_exchange_token`,
 *   60 days). A test or a proxy given as `--auth-root` serves every path on its one origin.
 * - No PKCE: Meta documents none for Threads; the program is a confidential client (the app secret).
 * - Refresh: `GET /refresh_access_token?grant_type=th_refresh_token&access_token=<long-lived>` answers
 *   a new long-lived token (the old one must be at least 24 hours old and not expired). Threads has no
 *   separate refresh token: the long-lived token is its own, so the sign-in stores it as both
 *   `accessToken` and `refreshToken` (TokenKeeper refreshes only a secret with a refresh token), and a
 *   refresh answers the new token as both again.
 * - The redirect URI must be https: Meta's dashboard refuses http, even for localhost (README).
 *
 * The app secret, the code and the tokens never appear in an error message.
 */
import { graphOrigin } from '../meta/graph.js';
import { metaTokenCall } from '../meta/meta-token.js';
import type { OAuthHooks, OAuthHttp, OAuthTokens } from '../module.js';

/**
 * What the connector needs (…/threads/get-started, permissions): `threads_basic` for every call,
 * `threads_content_publish` to post, `threads_manage_replies` to post the auto-comment as a reply.
 */
export const THREADS_SCOPES = ['threads_basic', 'threads_content_publish', 'threads_manage_replies'] as const;

export const THREADS_AUTH_ROOT = 'https://threads.net';
export const THREADS_API_ROOT = 'https://graph.threads.net';

/** The authorization page: on threads.net, or the same path on another auth root. */
export function threadsAuthorizeUrl(authRoot: string): string {
  return `${graphOrigin(authRoot, 'sign-in')}/oauth/authorize`;
}

/** Where the token calls go: graph.threads.net for Threads' own auth root, else the auth root. */
export function threadsTokenOrigin(authRoot: string): string {
  const origin = graphOrigin(authRoot, 'sign-in');
  return origin === THREADS_AUTH_ROOT || origin === 'https://www.threads.net' ? THREADS_API_ROOT : origin;
}

type Http = Partial<OAuthHttp>;

/** One call of a token endpoint; the tokens, or an Error that says what to do. */
function tokenCall(
  url: string,
  init: { method: 'GET' | 'POST'; body?: URLSearchParams },
  http: Http,
  secrets: string[],
  refusal: (said: string) => string,
): Promise<OAuthTokens> {
  return metaTokenCall({
    platform: 'Threads',
    url,
    ...(init.body ? { form: Object.fromEntries(init.body) } : {}),
    http,
    secrets,
    checkApp:
      "check the Threads App ID and Threads App Secret (App settings → Basic of the app's Threads use case on https://developers.facebook.com/apps).",
    refusal,
  });
}

/** The long-lived token stored as its own refresh token (see above). */
const selfRefreshing = (tokens: OAuthTokens): OAuthTokens => ({
  ...tokens,
  refreshToken: tokens.accessToken,
});

export const threadsOAuth: OAuthHooks = {
  scopes: THREADS_SCOPES,
  pkce: false,

  authorizationUrl({ endpoint, clientId, redirectUri, state, scopes }) {
    const url = new URL(threadsAuthorizeUrl(endpoint));
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: scopes.join(','),
      response_type: 'code',
      state,
    }).toString();
    return url.href;
  },

  /** The code (single use, short-lived), then the short-lived token for a long-lived one at once. */
  async exchangeCode({ endpoint, code, redirectUri, clientId, clientSecret, ...http }) {
    const origin = threadsTokenOrigin(endpoint);
    const secrets = [clientSecret, code];
    const form = new URLSearchParams({
      client_id: clientId,
      client_secret: clientSecret,
      grant_type: 'authorization_code',
      redirect_uri: redirectUri,
      code,
    });
    const short = await tokenCall(
      `${origin}/oauth/access_token`,
      { method: 'POST', body: form },
      http,
      secrets,
      (said) =>
        `Threads did not accept the sign-in's code (${said}): codes work once and for minutes only; sign in again, with the redirect URI listed in the app's Threads settings exactly as given.`,
    );
    const query = new URLSearchParams({
      grant_type: 'th_exchange_token',
      client_secret: clientSecret,
      access_token: short.accessToken,
    });
    const long = await tokenCall(
      `${origin}/access_token?${query}`,
      { method: 'GET' },
      http,
      secrets,
      (said) => `Threads did not give a long-lived token for the sign-in (${said}): sign in again.`,
    );
    return selfRefreshing(long);
  },

  /** A new long-lived token (60 days) for one at least a day old and not expired. */
  async refresh({ endpoint, refreshToken, clientSecret, ...http }) {
    const query = new URLSearchParams({ grant_type: 'th_refresh_token', access_token: refreshToken });
    const fresh = await tokenCall(
      `${threadsTokenOrigin(endpoint)}/refresh_access_token?${query}`,
      { method: 'GET' },
      { userAgent: http.userAgent, timeoutMs: http.timeoutMs },
      [refreshToken, clientSecret],
      (said) => `Threads refused to renew the token (${said})`,
    );
    return selfRefreshing(fresh);
  },
};
