/**
 * Signing in to Facebook (Facebook Login, the manual flow: developers.facebook.com/documentation/
 * facebook-login/guides/advanced/manual-flow) with the operator's Meta app, and the Pages the person
 * may post to.
 *
 * - The dialog is `https://www.facebook.com/{version}/dialog/oauth` (scopes comma separated); the code
 *   is exchanged with a GET of `https://graph.facebook.com/{version}/oauth/access_token` (client id and
 *   secret in the query) for a short-lived user token, which is exchanged at once for a long-lived one
 *   (`grant_type=fb_exchange_token`, about 60 days: …/facebook-login/guides/access-tokens/get-long-lived).
 *   A test or a proxy given as `--auth-root` serves both paths on its one origin.
 * - No PKCE: Meta documents PKCE only for its OIDC flow, still in testing (…/advanced/oidc-token); the
 *   program is a confidential client and sends the app secret.
 * - No refresh: Meta has no refresh token. The connection keeps the Page's token read with the
 *   long-lived user token, which does not expire (it dies with a password change, the loss of the
 *   Page role or the app's removal: then Meta answers code 190 and the channel asks for a new sign-in).
 * - The Pages: `GET /me/accounts` (each with its Page token), and the Pages of the person's Business
 *   Portfolios (`/me/businesses` → `/{business}/owned_pages`, `/client_pages`), which `/me/accounts`
 *   may leave out; that needs `business_management`, and a refusal there only leaves them out.
 *
 * The app secret, the code and the tokens never appear in an error message.
 */
import { hideSecrets } from '../../platform-http.js';
import { GRAPH_API_ROOT, GRAPH_API_VERSION, graphOrigin, graphSaid } from '../meta/graph.js';
import { metaTokenCall } from '../meta/meta-token.js';
import type { OAuthHooks, OAuthHttp, OAuthIdentity, OAuthTokens } from '../module.js';
import { signedInGet } from '../token-endpoint.js';

/**
 * What the connector needs (docs/pages-api/posts): list the Pages and read their tokens
 * (`pages_show_list`), post as them (`pages_manage_posts`, `pages_read_engagement`), comment as them
 * (`pages_manage_engagement`), post videos (`publish_video`), and find the Pages of a Business
 * Portfolio (`business_management`). Each needs Advanced Access (App Review) for people without a role
 * on the app.
 */
export const FACEBOOK_SCOPES = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'pages_manage_engagement',
  'publish_video',
  'business_management',
] as const;

export const FACEBOOK_AUTH_ROOT = 'https://www.facebook.com';

/** The dialog's address: on www.facebook.com, or the same path on another auth root. */
export function facebookDialogUrl(authRoot: string, version = GRAPH_API_VERSION): string {
  return `${graphOrigin(authRoot, 'sign-in')}/${version}/dialog/oauth`;
}

/** The token endpoint: graph.facebook.com for Meta's auth root, else the same path on the auth root. */
export function facebookTokenUrl(authRoot: string, version = GRAPH_API_VERSION): string {
  const origin = graphOrigin(authRoot, 'sign-in');
  const host = origin === FACEBOOK_AUTH_ROOT ? GRAPH_API_ROOT : origin;
  return `${host}/${version}/oauth/access_token`;
}

/** One GET of the token endpoint; the tokens, or an Error that says what to do. */
function tokenRequest(
  authRoot: string,
  query: Record<string, string>,
  http: Partial<OAuthHttp>,
  secrets: string[],
  refusal: (said: string) => string,
): Promise<OAuthTokens> {
  return metaTokenCall({
    platform: 'Facebook',
    url: `${facebookTokenUrl(authRoot)}?${new URLSearchParams(query)}`,
    http,
    secrets,
    checkApp:
      'check the App ID and App Secret of the Meta app (App settings → Basic on https://developers.facebook.com/apps).',
    refusal,
  });
}

type Http = Partial<OAuthHttp>;

/** A GET of the Graph API with a user token; a non-200 answer rejects with Meta's words. */
async function graphGet(url: string, token: string, http: Http, what: string) {
  const answer = await signedInGet(url, token, http);
  if (answer.status === 200) return (answer.json ?? {}) as Record<string, unknown>;
  const said = hideSecrets(graphSaid(answer), [token]);
  if (/code 190\b|code 102\b/.test(said) || answer.status === 401) {
    throw new Error(`Facebook refused the sign-in (${said}): run connect facebook again.`);
  }
  throw new Error(`Facebook did not give ${what} (${said}).`);
}

/** A Page as the Graph API lists it, with its own token. */
export interface FacebookPage extends OAuthIdentity {
  accessToken?: string;
  tasks?: string[];
}

const PAGE_FIELDS = 'id,name,access_token,tasks';
/** At most this many pages of a listing are followed. */
const MAX_PAGES = 20;

/** Every item of a listing, following `paging.next` on the same origin. */
async function listAll(first: string, token: string, http: Http, what: string) {
  const items: Record<string, unknown>[] = [];
  let url: string | undefined = first;
  const origin = new URL(first).origin;
  for (let page = 0; url && page < MAX_PAGES; page++) {
    const answer = await graphGet(url, token, http, what);
    if (Array.isArray(answer.data)) items.push(...(answer.data as Record<string, unknown>[]));
    const next = (answer.paging as { next?: unknown } | undefined)?.next;
    url = typeof next === 'string' && next.startsWith(`${origin}/`) ? next : undefined;
  }
  return items;
}

function pageOf(item: Record<string, unknown>): FacebookPage | undefined {
  if (typeof item.id !== 'string' || !item.id) return undefined;
  return {
    id: item.id,
    name: typeof item.name === 'string' && item.name ? item.name : item.id,
    kind: 'page',
    ...(typeof item.access_token === 'string' && item.access_token ? { accessToken: item.access_token } : {}),
    ...(Array.isArray(item.tasks) ? { tasks: item.tasks.filter((task) => typeof task === 'string') } : {}),
  };
}

/**
 * The Pages the user token may post to: `/me/accounts`, then those of the person's Business
 * Portfolios (left out when Meta refuses them: `business_management` not granted), one entry per id.
 */
export async function pagesOf(apiRoot: string, token: string, http: Http): Promise<FacebookPage[]> {
  const base = `${graphOrigin(apiRoot, 'API')}/${GRAPH_API_VERSION}`;
  const found = new Map<string, FacebookPage>();
  const add = (items: Record<string, unknown>[]) => {
    for (const item of items) {
      const page = pageOf(item);
      if (page && !found.has(page.id)) found.set(page.id, page);
    }
  };
  add(await listAll(`${base}/me/accounts?fields=${PAGE_FIELDS}&limit=100`, token, http, 'the Pages'));
  let businesses: Record<string, unknown>[] = [];
  try {
    businesses = await listAll(
      `${base}/me/businesses?fields=id,name&limit=100`,
      token,
      http,
      'the businesses',
    );
  } catch (error) {
    if (/refused the sign-in|Could not reach/.test((error as Error).message)) throw error;
  }
  for (const business of businesses) {
    if (typeof business.id !== 'string') continue;
    for (const edge of ['owned_pages', 'client_pages']) {
      try {
        add(
          await listAll(
            `${base}/${encodeURIComponent(business.id)}/${edge}?fields=${PAGE_FIELDS}&limit=100`,
            token,
            http,
            `the Pages of a business`,
          ),
        );
      } catch (error) {
        if (/refused the sign-in|Could not reach/.test((error as Error).message)) throw error;
      }
    }
  }
  return [...found.values()];
}

export const facebookOAuth: OAuthHooks = {
  scopes: FACEBOOK_SCOPES,
  pkce: false,

  authorizationUrl({ endpoint, clientId, redirectUri, state, scopes }) {
    const url = new URL(facebookDialogUrl(endpoint));
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      state,
      response_type: 'code',
      scope: scopes.join(','),
    }).toString();
    return url.href;
  },

  /** The code (single use, short-lived), then the short-lived token for a long-lived one at once. */
  async exchangeCode({ endpoint, code, redirectUri, clientId, clientSecret, ...http }) {
    const secrets = [clientSecret, code];
    const short = await tokenRequest(
      endpoint,
      { client_id: clientId, redirect_uri: redirectUri, client_secret: clientSecret, code },
      http,
      secrets,
      (said) =>
        `Facebook did not accept the sign-in's code (${said}): codes work once and for minutes only; sign in again, with the redirect URI listed in the app's Facebook Login settings exactly as given.`,
    );
    return tokenRequest(
      endpoint,
      {
        grant_type: 'fb_exchange_token',
        client_id: clientId,
        client_secret: clientSecret,
        fb_exchange_token: short.accessToken,
      },
      http,
      secrets,
      (said) => `Facebook did not give a long-lived token for the sign-in (${said}): sign in again.`,
    );
  },

  async identities({ endpoint, accessToken, ...http }) {
    const pages = await pagesOf(endpoint, accessToken, http);
    return pages.map(({ id, name, kind }) => ({ id, name, ...(kind ? { kind } : {}) }));
  },
  // No `refresh`: a Page token read with a long-lived user token does not expire, and Meta has no
  // refresh token; a dead one (code 190) asks for a new sign-in.
};
