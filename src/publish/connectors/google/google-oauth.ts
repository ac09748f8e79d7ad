/**
 * Signing in with Google (developers.google.com/identity/protocols/oauth2/web-server), shared by the
 * Google platforms (Business Profile; YouTube): the operator's `GOOGLE` app, a *Web application* OAuth
 * client. The authorization page is accounts.google.com/o/oauth2/v2/auth with PKCE (S256),
 * `access_type=offline` and `prompt=consent` (Google returns a refresh token only on a consent screen);
 * the token endpoint is oauth2.googleapis.com/token (the app's credentials in the form). A test or a
 * proxy given as `--auth-root` serves both paths on its one origin.
 *
 * An access token lasts an hour; a refresh answers a new access token and no new refresh token, so the
 * one stored is kept (oauth-tokens.ts `renewedSecret`). Google ends a refresh token with `invalid_grant`
 * when the user revoked the app, after six months unused, and, for an app whose OAuth consent screen is
 * External and in *Testing*, seven days after the sign-in
 * (developers.google.com/identity/protocols/oauth2#expiration): the reason says so.
 *
 * No error message holds the client secret, a code, a verifier or a token.
 */
import type { OAuthHooks, OAuthHttp, OAuthIdentity } from '../module.js';
import { callTokenEndpoint } from '../token-endpoint.js';

export const GOOGLE_AUTH_ROOT = 'https://accounts.google.com';
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** Where the operator makes the app (said when its credentials are missing). */
export const GOOGLE_CONSOLE = 'https://console.cloud.google.com/apis/credentials';

function originOf(root: string): string {
  try {
    return new URL(root).origin;
  } catch {
    throw new Error(`"${root}" is not a Google address: give a URL such as ${GOOGLE_AUTH_ROOT}.`);
  }
}

/** Google's token endpoint for accounts.google.com; on another auth root, `/token` there. */
export function googleTokenUrl(authRoot: string): string {
  const origin = originOf(authRoot);
  return origin === GOOGLE_AUTH_ROOT ? GOOGLE_TOKEN_URL : `${origin}/token`;
}

const CHECK_APP = `check the OAuth client ID and secret of the Google Cloud project (${GOOGLE_CONSOLE}).`;

/** What `invalid_grant` on a refresh means, said once for every Google platform. */
export const GOOGLE_REFRESH_ENDED =
  "Google ends a sign-in when the app is removed from the account, after six months unused, and seven days after it was made while the app's OAuth consent screen is in Testing (publish the app to keep sign-ins)";

/** The hooks of a Google platform: its scopes, and the identities an approval may post as. */
export function googleOAuth(platform: {
  scopes: readonly string[];
  identities?: OAuthHooks['identities'];
}): OAuthHooks {
  return {
    scopes: platform.scopes,
    pkce: true,

    authorizationUrl({ endpoint, clientId, redirectUri, state, codeChallenge, scopes }) {
      const url = new URL('/o/oauth2/v2/auth', originOf(endpoint));
      url.search = new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: scopes.join(' '),
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: 'true',
        state,
        ...(codeChallenge ? { code_challenge: codeChallenge, code_challenge_method: 'S256' } : {}),
      }).toString();
      return url.href;
    },

    exchangeCode({ endpoint, code, codeVerifier, redirectUri, clientId, clientSecret, ...http }) {
      return callTokenEndpoint({
        platform: 'Google',
        url: googleTokenUrl(endpoint),
        form: {
          code,
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uri: redirectUri,
          grant_type: 'authorization_code',
          ...(codeVerifier ? { code_verifier: codeVerifier } : {}),
        },
        http,
        secrets: [clientSecret, code, codeVerifier ?? ''],
        checkApp: CHECK_APP,
        refusal: (said) =>
          `Google did not accept the sign-in's code (${said}): a code works once and for minutes; sign in again, with the redirect URI listed in the OAuth client exactly as given.`,
      });
    },

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
        secrets: [clientSecret, refreshToken],
        checkApp: CHECK_APP,
        refusal: (said) =>
          /invalid_grant/.test(said)
            ? `Google refused the refresh token (${said}): ${GOOGLE_REFRESH_ENDED}`
            : `Google refused the refresh token (${said})`,
      });
    },

    ...(platform.identities ? { identities: platform.identities } : {}),
  };
}

export type GoogleIdentities = (
  params: { endpoint: string; accessToken: string } & OAuthHttp,
) => Promise<OAuthIdentity[]>;
