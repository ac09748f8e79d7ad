/**
 * Signing in to LinkedIn (OAuth 2 authorization code flow, learn.microsoft.com/linkedin/shared/
 * authentication/authorization-code-flow) with the operator's app, and the identities the member may
 * post as: the member, and each organization page they administer.
 *
 * - No PKCE: LinkedIn's flow for web apps takes the client secret instead (PKCE is for its native
 *   clients only).
 * - The access token lives 60 days. A refresh token comes only to apps LinkedIn approved for
 *   programmatic refresh tokens (learn.microsoft.com/linkedin/shared/authentication/programmatic-refresh-tokens):
 *   it lives 365 days from the sign-in and is not renewed by a refresh. Without one, the channel asks
 *   for a new sign-in when the access token expires (oauth-tokens.ts).
 *
 * The client secret, the code and the tokens are never put in an error message.
 */
import { hideSecrets, type PlatformAnswer } from '../../platform-http.js';
import type { OAuthHooks, OAuthHttp, OAuthIdentity, OAuthTokens } from '../module.js';
import { callTokenEndpoint, oauthSaid } from '../token-endpoint.js';
import { callLinkedIn, LINKEDIN_VERSION, linkedinOrigin } from './linkedin-api.js';
import { linkedinSaid } from './linkedin-failures.js';

/**
 * The member's scopes come with the self-serve products "Sign In with LinkedIn using OpenID Connect"
 * (`openid profile`) and "Share on LinkedIn" (`w_member_social`). The pages' scopes come with the
 * Community Management API, which LinkedIn reviews (registered organizations only): an app without it
 * is refused them, so they are asked for only when a page is named (`scopesFor`).
 */
export const LINKEDIN_MEMBER_SCOPES = ['openid', 'profile', 'w_member_social'] as const;
export const LINKEDIN_PAGE_SCOPES = [
  'w_organization_social',
  'r_organization_social',
  'rw_organization_admin',
] as const;

const MEMBER_URN = 'urn:li:person:';
const ORGANIZATION_URN = 'urn:li:organization:';

export const linkedinOAuth: OAuthHooks = {
  scopes: LINKEDIN_MEMBER_SCOPES,
  // LinkedIn refuses the whole sign-in (unauthorized_scope_error) when the app asks for a scope of a
  // product it lacks: the pages' scopes are asked for only when a page is named (`--account`).
  scopesFor: (account) =>
    account === undefined || account.startsWith(MEMBER_URN)
      ? LINKEDIN_MEMBER_SCOPES
      : [...LINKEDIN_MEMBER_SCOPES, ...LINKEDIN_PAGE_SCOPES],
  pkce: false,

  authorizationUrl({ endpoint, clientId, redirectUri, state, scopes }) {
    const url = new URL('/oauth/v2/authorization', linkedinOrigin(endpoint, 'sign-in'));
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      state,
      scope: scopes.join(' '),
    }).toString();
    return url.href;
  },

  async exchangeCode({ endpoint, code, redirectUri, clientId, clientSecret, ...http }) {
    const form = { grant_type: 'authorization_code', code, redirect_uri: redirectUri };
    return tokenRequest(endpoint, form, { clientId, clientSecret }, http, [clientSecret, code]);
  },

  async refresh({ endpoint, refreshToken, clientId, clientSecret, ...http }) {
    const form = { grant_type: 'refresh_token', refresh_token: refreshToken };
    return tokenRequest(endpoint, form, { clientId, clientSecret }, http, [clientSecret, refreshToken]);
  },

  async identities({ endpoint, accessToken, ...http }) {
    const member = await memberOf(endpoint, accessToken, http);
    return [member, ...(await pagesOf(endpoint, accessToken, http))];
  },
};

/** `POST /oauth/v2/accessToken` with the app's credentials in the form, as LinkedIn takes them. */
async function tokenRequest(
  endpoint: string,
  form: Record<string, string>,
  client: { clientId: string; clientSecret: string },
  http: Partial<OAuthHttp>,
  secrets: string[],
): Promise<OAuthTokens> {
  const refreshing = form.grant_type === 'refresh_token';
  const tokens = await callTokenEndpoint({
    platform: 'LinkedIn',
    url: `${linkedinOrigin(endpoint, 'sign-in')}/oauth/v2/accessToken`,
    form: { ...form, client_id: client.clientId, client_secret: client.clientSecret },
    http,
    secrets,
    said: (answer) => {
      const json = (answer.json ?? {}) as Record<string, unknown>;
      return typeof json.error === 'string' ? oauthSaid(answer) : linkedinSaid(answer);
    },
    checkApp:
      "check the LinkedIn app's client id and client secret (its Auth tab on https://www.linkedin.com/developers/apps).",
    refusal: (said) =>
      refreshing
        ? `LinkedIn refused the refresh token (${said})`
        : `LinkedIn did not accept the code (${said}): sign in again and use the new code at once.`,
  });
  return tokens.scope === undefined ? tokens : { ...tokens, scope: tokens.scope.replaceAll(',', ' ') };
}

type Http = Partial<OAuthHttp> & { version?: string };

/** A GET of the API with the version headers; a non-200 answer rejects with LinkedIn's words. */
export async function linkedinGet(apiRoot: string, path: string, token: string, http: Http, what: string) {
  let answer: PlatformAnswer;
  try {
    answer = await callLinkedIn(apiRoot, {
      method: 'GET',
      url: path,
      token,
      version: http.version ?? LINKEDIN_VERSION,
      timeoutMs: http.timeoutMs ?? 15_000,
      userAgent: http.userAgent ?? 'social-publisher-mcp',
      secrets: [token],
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`Could not reach ${apiRoot} (${hideSecrets(detail, [token])}): check the address.`);
  }
  if (answer.status === 200) return (answer.json ?? {}) as Record<string, unknown>;
  const said = hideSecrets(linkedinSaid(answer), [token]);
  if (answer.status === 401) {
    throw new Error(`LinkedIn refused the sign-in (${said}): run connect linkedin again.`);
  }
  throw new Error(`LinkedIn did not give ${what} (${said}).`);
}

/** The member (`GET /v2/userinfo`, OpenID Connect: `sub` is the person id). */
export async function memberOf(apiRoot: string, token: string, http: Http): Promise<OAuthIdentity> {
  const info = await linkedinGet(apiRoot, '/v2/userinfo', token, http, 'the member (userinfo)');
  if (typeof info.sub !== 'string' || !info.sub) {
    throw new Error(
      'LinkedIn did not name the member (userinfo has no sub): approve the openid and profile permissions.',
    );
  }
  const name =
    typeof info.name === 'string' && info.name
      ? info.name
      : [info.given_name, info.family_name].filter((part) => typeof part === 'string').join(' ');
  return { id: `${MEMBER_URN}${info.sub}`, name: name || info.sub, kind: 'member' };
}

/**
 * The pages the member administers (`GET /rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED`),
 * each named by `GET /rest/organizations/{id}`. A token without the pages' scopes has none (403): an
 * empty list, not an error, so that a member-only app still signs in.
 */
export async function pagesOf(apiRoot: string, token: string, http: Http): Promise<OAuthIdentity[]> {
  let acls: Record<string, unknown>;
  try {
    acls = await linkedinGet(
      apiRoot,
      '/rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED',
      token,
      http,
      'the pages',
    );
  } catch (error) {
    if (/refused the sign-in|Could not reach/.test((error as Error).message)) throw error;
    return [];
  }
  const elements = Array.isArray(acls.elements) ? (acls.elements as Record<string, unknown>[]) : [];
  const pages: OAuthIdentity[] = [];
  for (const element of elements) {
    const urn = element.organization ?? element.organizationTarget;
    if (typeof urn !== 'string' || !urn.startsWith(ORGANIZATION_URN)) continue;
    pages.push({ id: urn, name: await organizationName(apiRoot, urn, token, http), kind: 'organization' });
  }
  return pages;
}

/** A page's name (`localizedName`), or its URN when LinkedIn does not say. */
export async function organizationName(
  apiRoot: string,
  urn: string,
  token: string,
  http: Http,
): Promise<string> {
  const id = urn.slice(ORGANIZATION_URN.length);
  const organization = await linkedinGet(
    apiRoot,
    `/rest/organizations/${encodeURIComponent(id)}`,
    token,
    http,
    `the page ${urn}`,
  );
  return typeof organization.localizedName === 'string' ? organization.localizedName : urn;
}
