/**
 * Signing in to a Mastodon instance (OAuth 2 authorization code grant), for `connect mastodon` without
 * a ready-made token: register this program as an app on the instance (`registerApp`), send the user to
 * the instance's authorization page (`authorizeUrl`), and trade the code it hands back for an access
 * token (`exchangeCode`). The code comes back either to a redirect URI the caller listens on (a loopback
 * address) or, with `OOB_REDIRECT_URI`, shown on the instance's page for the user to paste.
 *
 * The client secret, the code and the token are never put in an error message.
 */

import { callPlatform, type PlatformAnswer } from '../../platform-http.js';
import { hideSecrets, mastodonOrigin, mastodonSaid } from './mastodon-connector.js';

/** What the connector needs: read the account (verify), post statuses, upload media. */
export const MASTODON_SCOPES = 'read:accounts write:statuses write:media';

/** The redirect URI that makes Mastodon show the code instead of redirecting. */
export const OOB_REDIRECT_URI = 'urn:ietf:wg:oauth:2.0:oob';

export const MASTODON_CLIENT_NAME = 'social-publisher-mcp';

/** An app registered on one instance: its OAuth client. Both members are secrets. */
export interface MastodonApp {
  clientId: string;
  clientSecret: string;
}

export interface MastodonHttpOptions {
  userAgent?: string;
  timeoutMs?: number;
}

/** Registers an app on `instance` that may send users back to `redirectUri` (`POST /api/v1/apps`). */
export async function registerApp(
  options: { instance: string; redirectUri: string; website?: string } & MastodonHttpOptions,
): Promise<MastodonApp> {
  const origin = mastodonOrigin(options.instance);
  const body: Record<string, string> = {
    client_name: MASTODON_CLIENT_NAME,
    redirect_uris: options.redirectUri,
    scopes: MASTODON_SCOPES,
  };
  if (options.website) body.website = options.website;
  const answer = await post(origin, '/api/v1/apps', JSON.stringify(body), 'application/json', options, []);
  const app = (answer.json ?? {}) as Record<string, unknown>;
  if (answer.status !== 200 || typeof app.client_id !== 'string' || typeof app.client_secret !== 'string') {
    throw new Error(
      `${origin} did not register the app (${mastodonSaid(answer)}): check the instance address, or create a token by hand under Preferences → Development.`,
    );
  }
  return { clientId: app.client_id, clientSecret: app.client_secret };
}

/** The instance's page where the user approves the app; it sends `code` and `state` to `redirectUri`. */
export function authorizeUrl(app: MastodonApp, instance: string, redirectUri: string, state: string): string {
  const url = new URL('/oauth/authorize', mastodonOrigin(instance));
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri,
    scope: MASTODON_SCOPES,
    state,
  }).toString();
  return url.href;
}

/**
 * Trades an authorization code for the account's access token (`POST /oauth/token`). `redirectUri` must be
 * the one the code was asked for.
 */
export async function exchangeCode(
  options: { instance: string; app: MastodonApp; code: string; redirectUri: string } & MastodonHttpOptions,
): Promise<string> {
  const origin = mastodonOrigin(options.instance);
  const secrets = [options.app.clientSecret, options.code];
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: options.code,
    client_id: options.app.clientId,
    client_secret: options.app.clientSecret,
    redirect_uri: options.redirectUri,
    scope: MASTODON_SCOPES,
  }).toString();
  const answer = await post(
    origin,
    '/oauth/token',
    form,
    'application/x-www-form-urlencoded',
    options,
    secrets,
  );
  const token = (answer.json as { access_token?: unknown } | undefined)?.access_token;
  if (answer.status === 200 && typeof token === 'string' && token) return token;
  const said = hideSecrets(mastodonSaid(answer), secrets);
  if (answer.status === 401) {
    throw new Error(`${origin} no longer knows this app (${said}): start the sign-in again.`);
  }
  if (answer.status === 400) {
    throw new Error(`${origin} did not accept the code (${said}): sign in again and use the new code once.`);
  }
  throw new Error(`${origin} gave no access token (${said}): try again.`);
}

async function post(
  origin: string,
  path: string,
  body: string,
  contentType: string,
  options: MastodonHttpOptions,
  secrets: readonly string[],
): Promise<PlatformAnswer> {
  try {
    return await callPlatform(`${origin}${path}`, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        accept: 'application/json',
        'user-agent': options.userAgent ?? MASTODON_CLIENT_NAME,
      },
      body,
      timeoutMs: options.timeoutMs ?? 15_000,
      secrets,
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`Could not reach ${origin} (${hideSecrets(detail, secrets)}): check the address.`);
  }
}
