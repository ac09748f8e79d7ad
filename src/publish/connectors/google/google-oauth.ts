/**
 * Signing in with Google (OAuth 2.0 for web server applications, developers.google.com/identity/
 * protocols/oauth2/web-server) with the operator's GOOGLE app, shared by the Google platforms (YouTube,
 * and Business Profile after it): each gives its scopes, the steps are the same.
 *
 * - The authorization page is on accounts.google.com (`/o/oauth2/v2/auth`), the token endpoint on
 *   oauth2.googleapis.com (`/token`); a stand-in given as `--auth-root` serves both paths on its origin.
 * - `access_type=offline` and `prompt=consent`: Google gives a refresh token only on a consent screen,
 *   and only for offline access; PKCE (S256) is taken beside the client secret.
 * - An access token lasts an hour. A refresh answers a new access token and, as a rule, no new refresh
 *   token: the one held is kept (oauth-tokens.ts `renewedSecret`).
 * - A dead refresh token is refused with HTTP 400 `invalid_grant` ("Token has been expired or revoked.").
 *   An app whose consent screen is External and in "Testing" gets refresh tokens that expire after 7 days
 *   (developers.google.com/google-ads/api/docs/get-started/common-errors): the reason says so.
 *
 * No error message holds the client secret, a code, a verifier or a token.
 */
import type { OAuthHooks } from '../module.js';
import { callTokenEndpoint, oauthSaid } from '../token-endpoint.js';

export const GOOGLE_AUTH_ROOT = 'https://accounts.google.com';
export const GOOGLE_TOKEN_ORIGIN = 'https://oauth2.googleapis.com';

const AUTHORIZE_PATH = '/o/oauth2/v2/auth';
const TOKEN_PATH = '/token';

/** Where the operator registers the app and its consent screen. */
export const GOOGLE_CONSOLE = 'https://console.cloud.google.com/apis/credentials';

/** The origin of `root`; throws a plain message when it is not a URL. */
function originOf(root: string): string {
  try {
    return new URL(root).origin;
  } catch {
    throw new Error(`"${root}" is not a Google address: give a URL such as ${GOOGLE_AUTH_ROOT}.`);
  }
}

/** accounts.google.com's authorization page; on another auth root (a stand-in), the same path there. */
export function googleAuthorizeUrl(authRoot: string): string {
  return `${originOf(authRoot)}${AUTHORIZE_PATH}`;
}

/** oauth2.googleapis.com's token endpoint when the auth root is Google's; else the same path there. */
export function googleTokenUrl(authRoot: string): string {
  const origin = originOf(authRoot);
  return origin === GOOGLE_AUTH_ROOT ? `${GOOGLE_TOKEN_ORIGIN}${TOKEN_PATH}` : `${origin}${TOKEN_PATH}`;
}

const CHECK_APP = `check the OAuth client id and secret of the Google app (${GOOGLE_CONSOLE}), given to the program as the GOOGLE app's credentials.`;

/**
 * Why Google refused a refresh token, and what to do: `invalid_grant` is a refresh token that expired
 * or was revoked, which an app whose consent screen is in Testing meets 7 days after each sign-in.
 */
export function googleRefreshRefusal(said: string): string {
  if (/invalid_grant/.test(said)) {
    return `Google refused the refresh token (${said}): it expired or was revoked. A Google app whose OAuth consent screen is External and in "Testing" gets refresh tokens that expire after 7 days: publish the consent screen (Google Cloud console, OAuth consent screen, "Publish app") so that a sign-in lasts`;
  }
  return `Google refused the refresh token (${said})`;
}

/** The Google sign-in steps for `scopes` (a platform adds `identities`: YouTube's channels). */
export function googleOAuth(scopes: readonly string[]): OAuthHooks {
  return {
    scopes,
    pkce: true,

    authorizationUrl({ endpoint, clientId, redirectUri, state, codeChallenge, scopes: asked }) {
      const params = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: asked.join(' '),
        state,
        // A refresh token comes only with offline access, and only from a consent screen.
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: 'true',
      });
      if (codeChallenge) {
        params.set('code_challenge', codeChallenge);
        params.set('code_challenge_method', 'S256');
      }
      return `${googleAuthorizeUrl(endpoint)}?${params.toString().replaceAll('+', '%20')}`;
    },

    exchangeCode({ endpoint, code, codeVerifier, redirectUri, clientId, clientSecret, ...http }) {
      const form: Record<string, string> = {
        code,
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uri: redirectUri,
        grant_type: 'authorization_code',
      };
      if (codeVerifier) form.code_verifier = codeVerifier;
      return callTokenEndpoint({
        platform: 'Google',
        url: googleTokenUrl(endpoint),
        form,
        http,
        secrets: [code, codeVerifier ?? '', clientSecret],
        said: oauthSaid,
        checkApp: CHECK_APP,
        refusal: (said) =>
          `Google did not accept the sign-in's code (${said}): a code works once and for a few minutes; sign in again, with the redirect URI registered in the Google app exactly as given.`,
      });
    },

    /** Google answers a new access token; the refresh token held is kept (none comes back, as a rule). */
    refresh({ endpoint, refreshToken, clientId, clientSecret, ...http }) {
      return callTokenEndpoint({
        platform: 'Google',
        url: googleTokenUrl(endpoint),
        form: {
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: clientId,
          client_secret: clientSecret,
        },
        http,
        secrets: [refreshToken, clientSecret],
        said: oauthSaid,
        checkApp: CHECK_APP,
        refusal: googleRefreshRefusal,
      });
    },
  };
}
