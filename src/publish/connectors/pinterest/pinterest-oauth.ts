/**
 * Signing in to Pinterest (developers.pinterest.com/docs/getting-started/authentication-and-scopes,
 * API v5's OpenAPI `securitySchemes`) with the operator's app, and the boards the account may pin to.
 *
 * - The authorization page is `https://www.pinterest.com/oauth/` (scopes comma separated); the code is
 *   exchanged at `POST https://api.pinterest.com/v5/oauth/token` (form `grant_type=authorization_code`,
 *   `code`, `redirect_uri`) with the app id and secret as HTTP Basic credentials, as Pinterest documents
 *   (`security: basic` on that operation). A test or a proxy given as `--auth-root` serves both paths on
 *   its one origin.
 * - No PKCE: Pinterest documents none; the program is a confidential client (the app secret).
 * - Tokens: the access token lives about 30 days; the refresh token is a continuous one (60 days,
 *   renewed by each refresh: the answer always carries a new `refresh_token`, which replaces the old
 *   one). Apps made before 2025-09-25 get continuous refresh tokens only when the code exchange says
 *   `continuous_refresh=true` (the OpenAPI's note), which is sent.
 * - The identities are the account's boards (`GET /v5/boards`, 250 a page, `bookmark` for the next):
 *   a pin needs a board, and one channel publishes to one board.
 *
 * The app secret, the code and the tokens are never put in an error message.
 */
import { callPlatform, hideSecrets, type PlatformAnswer } from '../../platform-http.js';
import type { OAuthHooks, OAuthHttp, OAuthIdentity, OAuthTokens } from '../module.js';
import { signedInGet } from '../token-endpoint.js';
import {
  PINTEREST_API_ROOT,
  PINTEREST_AUTH_ROOT,
  pinterestOrigin,
  pinterestSaid,
} from './pinterest-failures.js';

/**
 * `POST /v5/pins` is documented under `boards:read boards:write pins:read pins:write`, `POST /v5/media`
 * under `pins:read pins:write`, `GET /v5/user_account` under `user_accounts:read`.
 */
export const PINTEREST_SCOPES = [
  'boards:read',
  'boards:write',
  'pins:read',
  'pins:write',
  'user_accounts:read',
] as const;

/** Where the token endpoint is: api.pinterest.com for Pinterest's own auth root, else the auth root. */
export function pinterestTokenOrigin(authRoot: string): string {
  const origin = pinterestOrigin(authRoot, 'sign-in');
  return origin === PINTEREST_AUTH_ROOT || origin === 'https://pinterest.com' ? PINTEREST_API_ROOT : origin;
}

type Http = Partial<OAuthHttp>;

export const pinterestOAuth: OAuthHooks = {
  scopes: PINTEREST_SCOPES,
  pkce: false,

  authorizationUrl({ endpoint, clientId, redirectUri, state, scopes }) {
    const url = new URL('/oauth/', pinterestOrigin(endpoint, 'sign-in'));
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: scopes.join(','),
      state,
    }).toString();
    return url.href;
  },

  async exchangeCode({ endpoint, code, redirectUri, clientId, clientSecret, ...http }) {
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      continuous_refresh: 'true',
    };
    return tokenRequest(endpoint, form, { clientId, clientSecret }, http, [clientSecret, code]);
  },

  /** A new access token and a new refresh token (continuous refresh: the old one is spent). */
  async refresh({ endpoint, refreshToken, clientId, clientSecret, ...http }) {
    const form = { grant_type: 'refresh_token', refresh_token: refreshToken };
    return tokenRequest(endpoint, form, { clientId, clientSecret }, http, [clientSecret, refreshToken]);
  },

  identities: ({ endpoint, accessToken, ...http }) => boardsOf(endpoint, accessToken, http),
};

/** `POST /v5/oauth/token` with the app's credentials as HTTP Basic. */
async function tokenRequest(
  endpoint: string,
  form: Record<string, string>,
  client: { clientId: string; clientSecret: string },
  http: Http,
  secrets: string[],
): Promise<OAuthTokens> {
  const origin = pinterestTokenOrigin(endpoint);
  const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
  secrets.push(basic);
  let answer: PlatformAnswer;
  try {
    answer = await callPlatform(`${origin}/v5/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        'user-agent': http.userAgent ?? 'social-publisher-mcp',
      },
      body: new URLSearchParams(form).toString(),
      timeoutMs: http.timeoutMs ?? 15_000,
      secrets,
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Could not reach Pinterest's token endpoint ${origin} (${hideSecrets(detail, secrets)}): try again.`,
    );
  }
  const json = (answer.json ?? {}) as Record<string, unknown>;
  if (answer.status === 200 && typeof json.access_token === 'string' && json.access_token) {
    secrets.push(json.access_token);
    const expiresIn = Number(json.expires_in);
    return {
      accessToken: json.access_token,
      ...(typeof json.refresh_token === 'string' && json.refresh_token
        ? { refreshToken: json.refresh_token }
        : {}),
      ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresAtMs: Date.now() + expiresIn * 1000 } : {}),
      ...(typeof json.scope === 'string' ? { scope: json.scope.replaceAll(',', ' ') } : {}),
    };
  }
  const said = hideSecrets(pinterestSaid(answer), secrets);
  if (answer.status === 401 || /client|app id|app secret|credentials/i.test(said)) {
    throw new Error(
      `Pinterest did not accept the app's credentials (${said}): check the Pinterest app's credentials (its App id and App secret key on https://developers.pinterest.com/apps/).`,
    );
  }
  if (form.grant_type === 'refresh_token') throw new Error(`Pinterest refused the refresh token (${said})`);
  throw new Error(
    `Pinterest did not accept the code (${said}): codes work once and for minutes only; sign in again, with the redirect URI listed in the app exactly as given.`,
  );
}

/** A GET of the API with the token; a non-200 answer rejects with Pinterest's words. */
export async function pinterestGet(
  apiRoot: string,
  path: string,
  token: string,
  http: Http,
  what: string,
): Promise<Record<string, unknown>> {
  const answer = await signedInGet(`${apiRoot}${path}`, token, http);
  if (answer.status === 200) return (answer.json ?? {}) as Record<string, unknown>;
  const said = hideSecrets(pinterestSaid(answer), [token]);
  if (answer.status === 401) {
    throw new Error(`Pinterest refused the sign-in (${said}): run connect pinterest again.`);
  }
  throw new Error(`Pinterest did not give ${what} (${said}).`);
}

/** The most boards read (40 pages of 250): an account with more names its board by id. */
const MOST_PAGES = 40;

/** Every board of the account, page by page (`bookmark`), each as an identity. */
export async function boardsOf(apiRoot: string, token: string, http: Http): Promise<OAuthIdentity[]> {
  const root = pinterestOrigin(apiRoot, 'API');
  const boards: OAuthIdentity[] = [];
  let bookmark: string | undefined;
  for (let page = 0; page < MOST_PAGES; page++) {
    const query = new URLSearchParams({ page_size: '250', ...(bookmark ? { bookmark } : {}) });
    const answer = await pinterestGet(root, `/v5/boards?${query}`, token, http, 'the boards');
    const items = Array.isArray(answer.items) ? (answer.items as Record<string, unknown>[]) : [];
    for (const item of items) {
      if (typeof item.id !== 'string' || !item.id) continue;
      const name = typeof item.name === 'string' && item.name ? item.name : item.id;
      boards.push({ id: item.id, name, kind: 'board' });
    }
    bookmark = typeof answer.bookmark === 'string' && answer.bookmark ? answer.bookmark : undefined;
    if (!bookmark) break;
  }
  return boards;
}
