/**
 * Signing in to Instagram, two ways (developers.facebook.com/documentation/instagram-platform):
 *
 * - **Facebook Login** (`instagramFacebookOAuth`, the FACEBOOK app): the dialog and the code's exchange
 *   of Facebook's sign-in (facebook-oauth.ts: a long-lived user token), with Instagram's permissions;
 *   the accounts it gives are the Instagram professional accounts linked to the person's Pages
 *   (`GET /me/accounts?fields=…,instagram_business_account{id,username}`, and the Pages of their
 *   Business Portfolios). The connection keeps the Page's token, read with the long-lived user token:
 *   it does not expire, so there is no refresh (a 190 asks for a new sign-in).
 * - **Instagram Login** (`instagramLoginOAuth`, the INSTAGRAM app: …/instagram-api-with-instagram-login/
 *   business-login): the page `https://www.instagram.com/oauth/authorize` (scopes comma separated), the
 *   code (Instagram appends `#_` to the redirect: a fragment, never sent back) exchanged with a POST of
 *   `https://api.instagram.com/oauth/access_token` for a short-lived token (an hour), traded at once for
 *   a long-lived one (`GET https://graph.instagram.com/access_token?grant_type=ig_exchange_token`, 60
 *   days), renewed with `GET /refresh_access_token?grant_type=ig_refresh_token` (…/reference/
 *   refresh_access_token: a token at least 24 hours old and not expired). The long-lived token is its
 *   own refresh token (stored as both, as Threads does). A test or a proxy given as `--auth-root` serves
 *   every path on its one origin.
 *
 * No PKCE: Meta documents none for either; the program is a confidential client (the app secret). The
 * app secret, the code and the tokens never appear in an error message.
 */
import { hideSecrets } from '../../platform-http.js';
import { facebookOAuth } from '../facebook/facebook-oauth.js';
import { GRAPH_API_VERSION, graphOrigin, graphSaid } from '../meta/graph.js';
import { metaTokenCall } from '../meta/meta-token.js';
import type { OAuthHooks, OAuthHttp, OAuthTokens } from '../module.js';
import { signedInGet } from '../token-endpoint.js';

/**
 * Facebook Login's permissions for Instagram (…/instagram-api-with-facebook-login, "Permissions"):
 * `instagram_basic` and `instagram_content_publish` to post, `instagram_manage_comments` for the
 * auto-comment, `pages_show_list` and `pages_read_engagement` to find the account through its Page,
 * `business_management` for Pages of a Business Portfolio. App Review for people without an app role.
 */
export const INSTAGRAM_FACEBOOK_SCOPES = [
  'instagram_basic',
  'instagram_content_publish',
  'instagram_manage_comments',
  'pages_show_list',
  'pages_read_engagement',
  'business_management',
] as const;

/** Instagram Login's (the `business_*` names before them died on 2025-01-27). */
export const INSTAGRAM_LOGIN_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_comments',
] as const;

export const INSTAGRAM_AUTH_ROOT = 'https://www.instagram.com';
const INSTAGRAM_CODE_ROOT = 'https://api.instagram.com';
export const INSTAGRAM_GRAPH_ROOT = 'https://graph.instagram.com';
const INSTAGRAM_HOSTS = [INSTAGRAM_AUTH_ROOT, 'https://instagram.com', INSTAGRAM_CODE_ROOT];

/** Where a token call goes: Instagram's own host for Instagram's auth root, else the auth root. */
function instagramTokenOrigin(authRoot: string, host: 'code' | 'graph'): string {
  const origin = graphOrigin(authRoot, 'sign-in');
  if (!INSTAGRAM_HOSTS.includes(origin)) return origin;
  return host === 'code' ? INSTAGRAM_CODE_ROOT : INSTAGRAM_GRAPH_ROOT;
}

type Http = Partial<OAuthHttp>;

/** An Instagram professional account linked to a Page, with the Page's token. */
export interface LinkedAccount {
  id: string;
  username: string;
  pageId: string;
  pageName: string;
  pageToken?: string;
}

/** A GET of the Graph API with a user token; a non-200 answer rejects with Meta's words. */
async function graphGet(url: string, token: string, http: Http): Promise<Record<string, unknown>> {
  const answer = await signedInGet(url, token, http);
  if (answer.status === 200) return (answer.json ?? {}) as Record<string, unknown>;
  const said = hideSecrets(graphSaid(answer), [token]);
  if (/code (190|102)\b/.test(said) || answer.status === 401) {
    throw new Error(`Facebook refused the sign-in (${said}): run connect instagram again.`);
  }
  throw new Error(`Facebook did not list the Pages and their Instagram accounts (${said}).`);
}

const PAGE_FIELDS = 'id,name,access_token,instagram_business_account{id,username}';
const MAX_PAGES = 20;

/** Every item of a listing, following `paging.next` on the same origin. */
async function listAll(first: string, token: string, http: Http) {
  const items: Record<string, unknown>[] = [];
  const origin = new URL(first).origin;
  let url: string | undefined = first;
  for (let page = 0; url && page < MAX_PAGES; page++) {
    const answer = await graphGet(url, token, http);
    if (Array.isArray(answer.data)) items.push(...(answer.data as Record<string, unknown>[]));
    const next = (answer.paging as { next?: unknown } | undefined)?.next;
    url = typeof next === 'string' && next.startsWith(`${origin}/`) ? next : undefined;
  }
  return items;
}

function linkedOf(item: Record<string, unknown>): LinkedAccount | undefined {
  const ig = item.instagram_business_account as { id?: unknown; username?: unknown } | undefined;
  if (typeof item.id !== 'string' || typeof ig?.id !== 'string' || !ig.id) return undefined;
  return {
    id: ig.id,
    username: typeof ig.username === 'string' && ig.username ? ig.username : ig.id,
    pageId: item.id,
    pageName: typeof item.name === 'string' && item.name ? item.name : item.id,
    ...(typeof item.access_token === 'string' && item.access_token ? { pageToken: item.access_token } : {}),
  };
}

/**
 * The Instagram accounts linked to the person's Pages: `/me/accounts`, then the Pages of their
 * Business Portfolios (left out when Meta refuses them), one entry per Instagram account.
 */
export async function linkedAccountsOf(apiRoot: string, token: string, http: Http): Promise<LinkedAccount[]> {
  const base = `${graphOrigin(apiRoot, 'API')}/${GRAPH_API_VERSION}`;
  const found = new Map<string, LinkedAccount>();
  const add = (items: Record<string, unknown>[]) => {
    for (const account of items.map(linkedOf)) {
      if (account && !found.has(account.id)) found.set(account.id, account);
    }
  };
  const tolerated = (error: unknown) => {
    if (/refused the sign-in|Could not reach/.test((error as Error).message)) throw error;
    return [];
  };
  add(await listAll(`${base}/me/accounts?fields=${PAGE_FIELDS}&limit=100`, token, http));
  const businesses = await listAll(`${base}/me/businesses?fields=id,name&limit=100`, token, http).catch(
    tolerated,
  );
  for (const business of businesses) {
    if (typeof business.id !== 'string') continue;
    for (const edge of ['owned_pages', 'client_pages']) {
      const url = `${base}/${encodeURIComponent(business.id)}/${edge}?fields=${PAGE_FIELDS}&limit=100`;
      add(await listAll(url, token, http).catch(tolerated));
    }
  }
  return [...found.values()];
}

export const instagramFacebookOAuth: OAuthHooks = {
  scopes: INSTAGRAM_FACEBOOK_SCOPES,
  pkce: false,
  authorizationUrl: (params) => facebookOAuth.authorizationUrl(params),
  exchangeCode: (params) => facebookOAuth.exchangeCode(params),
  async identities({ endpoint, accessToken, ...http }) {
    const accounts = await linkedAccountsOf(endpoint, accessToken, http);
    return accounts.map((account) => ({
      id: account.id,
      name: account.username,
      kind: `Instagram account of the Page ${account.pageName}`,
    }));
  },
  // No `refresh`: the Page token read with a long-lived user token does not expire.
};

/** One call of an Instagram token endpoint; the tokens, or an Error that says what to do. */
function tokenCall(
  url: string,
  form: Record<string, string> | undefined,
  http: Http,
  secrets: string[],
  refusal: (said: string) => string,
): Promise<OAuthTokens> {
  return metaTokenCall({
    platform: 'Instagram',
    url,
    ...(form ? { form } : {}),
    http,
    secrets,
    checkApp:
      "check the Instagram app ID and Instagram app secret (the app's Instagram product → API setup with Instagram business login on https://developers.facebook.com/apps).",
    refusal,
  });
}

/** The long-lived token stored as its own refresh token. */
const selfRefreshing = (tokens: OAuthTokens): OAuthTokens => ({
  ...tokens,
  refreshToken: tokens.accessToken,
});

export const instagramLoginOAuth: OAuthHooks = {
  scopes: INSTAGRAM_LOGIN_SCOPES,
  pkce: false,

  authorizationUrl({ endpoint, clientId, redirectUri, state, scopes }) {
    const url = new URL(`${graphOrigin(endpoint, 'sign-in')}/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: scopes.join(','),
      state,
    }).toString();
    return url.href;
  },

  /** The code (single use, an hour), then the short-lived token for a long-lived one at once. */
  async exchangeCode({ endpoint, code, redirectUri, clientId, clientSecret, ...http }) {
    const secrets = [clientSecret, code];
    const short = await tokenCall(
      `${instagramTokenOrigin(endpoint, 'code')}/oauth/access_token`,
      {
        client_id: clientId,
        client_secret: clientSecret,
        grant_type: 'authorization_code',
        redirect_uri: redirectUri,
        code: code.replace(/#_$/, ''),
      },
      http,
      secrets,
      (said) =>
        `Instagram did not accept the sign-in's code (${said}): codes work once and for an hour only; sign in again, with the redirect URI listed in the app's Instagram business login settings exactly as given.`,
    );
    const query = new URLSearchParams({
      grant_type: 'ig_exchange_token',
      client_secret: clientSecret,
      access_token: short.accessToken,
    });
    const long = await tokenCall(
      `${instagramTokenOrigin(endpoint, 'graph')}/access_token?${query}`,
      undefined,
      http,
      secrets,
      (said) => `Instagram did not give a long-lived token for the sign-in (${said}): sign in again.`,
    );
    return selfRefreshing(long);
  },

  /** A new long-lived token (60 days) for one at least a day old and not expired. */
  async refresh({ endpoint, refreshToken, clientSecret, ...http }) {
    const query = new URLSearchParams({ grant_type: 'ig_refresh_token', access_token: refreshToken });
    const fresh = await tokenCall(
      `${instagramTokenOrigin(endpoint, 'graph')}/refresh_access_token?${query}`,
      undefined,
      { userAgent: http.userAgent, timeoutMs: http.timeoutMs },
      [refreshToken, clientSecret],
      (said) => `Instagram refused to renew the token (${said})`,
    );
    return selfRefreshing(fresh);
  },
};
