/**
 * Signing in to a Mastodon instance (OAuth 2 authorization code grant), the module's OAuth hooks, for
 * `connect mastodon` without a ready-made token: the program registers itself as an app on the instance
 * (`registerClient`: every instance is its own authorization server, so there is no operator app), sends
 * the user to the instance's authorization page (`authorizationUrl`), and trades the code it hands back
 * for an access token (`exchangeCode`). The code comes back either to a redirect URI the caller listens
 * on (a loopback address) or, with `OOB_REDIRECT_URI`, shown on the instance's page for the user to
 * paste. Mastodon's tokens do not expire: there is no `refresh`.
 *
 * The client secret, the code and the token are never put in an error message.
 */
import { callPlatform, hideSecrets, type PlatformAnswer } from '../../platform-http.js';
import type { OAuthHooks, OAuthHttp } from '../module.js';
import { mastodonOrigin, mastodonSaid } from './mastodon-account.js';

/** What the connector needs: read the account (verify), post statuses, upload media. */
export const MASTODON_SCOPES = ['read:accounts', 'write:statuses', 'write:media'] as const;

/** The redirect URI that makes Mastodon show the code instead of redirecting. */
export const OOB_REDIRECT_URI = 'urn:ietf:wg:oauth:2.0:oob';

export const MASTODON_CLIENT_NAME = 'social-publisher-mcp';

export const mastodonOAuth: OAuthHooks = {
  scopes: MASTODON_SCOPES,
  // PKCE came with Mastodon 4.3; older instances are still common.
  pkce: false,
  pasteRedirectUri: OOB_REDIRECT_URI,

  /** `POST /api/v1/apps`: an app on the instance that may send users back to `redirectUri`. */
  async registerClient({ endpoint, redirectUri, ...http }) {
    const origin = mastodonOrigin(endpoint);
    const body = {
      client_name: MASTODON_CLIENT_NAME,
      redirect_uris: redirectUri,
      scopes: MASTODON_SCOPES.join(' '),
    };
    const answer = await post(origin, '/api/v1/apps', JSON.stringify(body), 'application/json', http, []);
    const app = (answer.json ?? {}) as Record<string, unknown>;
    if (answer.status !== 200 || typeof app.client_id !== 'string' || typeof app.client_secret !== 'string') {
      throw new Error(
        `${origin} did not register the app (${mastodonSaid(answer)}): check the instance address, or create a token by hand under Preferences → Development.`,
      );
    }
    return { clientId: app.client_id, clientSecret: app.client_secret };
  },

  authorizationUrl({ endpoint, clientId, redirectUri, state, scopes }) {
    const url = new URL('/oauth/authorize', mastodonOrigin(endpoint));
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: scopes.join(' '),
      state,
    }).toString();
    return url.href;
  },

  /** `POST /oauth/token`; `redirectUri` must be the one the code was asked for. */
  async exchangeCode({ endpoint, code, redirectUri, clientId, clientSecret, ...http }) {
    const origin = mastodonOrigin(endpoint);
    const secrets = [clientSecret, code];
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uri: redirectUri,
      scope: MASTODON_SCOPES.join(' '),
    }).toString();
    const answer = await post(
      origin,
      '/oauth/token',
      form,
      'application/x-www-form-urlencoded',
      http,
      secrets,
    );
    const { access_token: token, scope } = (answer.json ?? {}) as { access_token?: unknown; scope?: unknown };
    if (answer.status === 200 && typeof token === 'string' && token) {
      return { accessToken: token, ...(typeof scope === 'string' ? { scope } : {}) };
    }
    const said = hideSecrets(mastodonSaid(answer), secrets);
    if (answer.status === 401) {
      throw new Error(`${origin} no longer knows this app (${said}): start the sign-in again.`);
    }
    if (answer.status === 400) {
      throw new Error(
        `${origin} did not accept the code (${said}): sign in again and use the new code once.`,
      );
    }
    throw new Error(`${origin} gave no access token (${said}): try again.`);
  },
};

async function post(
  origin: string,
  path: string,
  body: string,
  contentType: string,
  http: Partial<OAuthHttp>,
  secrets: readonly string[],
): Promise<PlatformAnswer> {
  try {
    return await callPlatform(`${origin}${path}`, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        accept: 'application/json',
        'user-agent': http.userAgent ?? MASTODON_CLIENT_NAME,
      },
      body,
      timeoutMs: http.timeoutMs ?? 15_000,
      secrets,
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`Could not reach ${origin} (${hideSecrets(detail, secrets)}): check the address.`);
  }
}
