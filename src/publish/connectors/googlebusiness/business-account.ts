/**
 * A Business Profile location before any post: the Google APIs it lives on, how Google says no
 * (GOOGLE_BUSINESS_HOOKS), the locations a sign-in may post to (every account the person has, each
 * account's locations, page by page: developers.google.com/my-business/reference/accountmanagement/rest/
 * v1/accounts/list and …/businessinformation/rest/v1/accounts.locations/list, whose `readMask` is
 * required), and the check `connect googlebusiness` runs after the sign-in (verifyGoogleBusiness).
 *
 * The Business Profile APIs are on three hosts (account management, business information, and the
 * Google My Business API v4 that keeps local posts); an `--api-root` other than Google's serves them all
 * on its one origin, paths as Google documents them.
 */
import { type Capabilities, PLATFORM_CAPABILITIES } from '../../../domain/capabilities.js';
import type { VerifiedConnection } from '../../connector.js';
import { hideSecrets } from '../../platform-http.js';
import { googleErrorOf, googleHooks, googleSaid } from '../google/google-errors.js';
import { googleOAuth } from '../google/google-oauth.js';
import type { ConnectInput, OAuthHooks, OAuthHttp, OAuthIdentity } from '../module.js';
import { tokensSecret } from '../oauth-tokens.js';
import { signedInGet } from '../token-endpoint.js';

export const BUSINESS_SCOPE = 'https://www.googleapis.com/auth/business.manage';
export const BUSINESS_API_ROOT = 'https://mybusiness.googleapis.com';

const MB = 1024 * 1024;

/** What to do while Google has not approved the project's access to the Business Profile APIs. */
export const BUSINESS_NOT_APPROVED =
  'Google approves the Business Profile APIs per Cloud project: apply for Basic API Access (https://support.google.com/business/contact/api_default) and, once approved, publish again.';

export const GOOGLE_BUSINESS_HOOKS = googleHooks({
  name: 'Google Business Profile',
  reconnect: 'social-publisher-mcp connect googlebusiness',
  notApproved: BUSINESS_NOT_APPROVED,
});

/**
 * What a local post may carry: a summary of 1,500 characters (LocalPost.summary), one photo, JPEG or
 * PNG of at most 5 MB (Business Profile's photo guidelines: 10 KB to 5 MB). Videos are not sent. Local
 * posts take no comments (the v4 API has none): the auto-comment is not posted.
 */
export function capabilitiesOfGoogleBusiness(): Capabilities {
  return {
    ...PLATFORM_CAPABILITIES['Google Business'],
    maxMedia: 1,
    mediaTypes: ['image/jpeg', 'image/png'],
    maxImageBytes: 5 * MB,
    comments: false,
  };
}

/** The origin each Business Profile API is on. */
export function businessHosts(apiRoot: string) {
  const origin = new URL(apiRoot).origin;
  if (origin !== BUSINESS_API_ROOT) return { accounts: origin, information: origin, posts: origin };
  return {
    accounts: 'https://mybusinessaccountmanagement.googleapis.com',
    information: 'https://mybusinessbusinessinformation.googleapis.com',
    posts: BUSINESS_API_ROOT,
  };
}

/** A location the sign-in may post to, with the account it was found under. */
export interface BusinessLocation {
  /** `accounts/{a}/locations/{l}`: where its local posts are. */
  path: string;
  /** `locations/{l}`. */
  name: string;
  title: string;
  mapsUri: string | undefined;
}

type Http = Partial<OAuthHttp>;

/** A GET with the token; the JSON of a 200, or an Error in Google's words that says what to do. */
async function googleGet(
  url: string,
  token: string,
  http: Http,
  what: string,
): Promise<Record<string, unknown>> {
  const answer = await signedInGet(url, token, http);
  if (answer.status === 200 && answer.json && typeof answer.json === 'object') {
    return answer.json as Record<string, unknown>;
  }
  const said = hideSecrets(googleSaid(answer), [token]);
  const error = googleErrorOf(answer);
  if (error?.quotaLimit === '0') {
    throw new Error(
      `Google has not approved this app's Business Profile API access yet (${said}): ${BUSINESS_NOT_APPROVED}`,
    );
  }
  if (error?.reasons.some((reason) => reason === 'SERVICE_DISABLED' || reason === 'accessNotConfigured')) {
    throw new Error(
      `The ${what} needs an API that is not enabled in the app's Google Cloud project (${said}): enable the My Business Account Management API, the My Business Business Information API and the Google My Business API, then connect again.`,
    );
  }
  throw new Error(
    `Google refused the ${what} (${said}): connect googlebusiness again, approving what Google asks.`,
  );
}

/** Every page of a list: `items` of each answer, following `nextPageToken`. */
async function allPages(first: string, key: string, token: string, http: Http, what: string) {
  const items: Record<string, unknown>[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < 50; page++) {
    const url = new URL(first);
    if (pageToken) url.searchParams.set('pageToken', pageToken);
    const json = await googleGet(url.href, token, http, what);
    const list = json[key];
    if (Array.isArray(list)) items.push(...(list as Record<string, unknown>[]));
    pageToken = typeof json.nextPageToken === 'string' && json.nextPageToken ? json.nextPageToken : undefined;
    if (!pageToken) break;
  }
  return items;
}

/**
 * The locations of every account the person has (personal, location groups, organizations), each once
 * (a location may be listed under several accounts: the first is kept).
 */
export async function locationsOf(apiRoot: string, token: string, http: Http): Promise<BusinessLocation[]> {
  const hosts = businessHosts(apiRoot);
  const accounts = await allPages(
    `${hosts.accounts}/v1/accounts?pageSize=20`,
    'accounts',
    token,
    http,
    'list of accounts',
  );
  const found = new Map<string, BusinessLocation>();
  for (const account of accounts) {
    if (typeof account.name !== 'string' || !/^accounts\/[^/]+$/.test(account.name)) continue;
    const first = `${hosts.information}/v1/${account.name}/locations?readMask=name,title,metadata&pageSize=100`;
    for (const location of await allPages(first, 'locations', token, http, 'list of locations')) {
      const name = typeof location.name === 'string' ? location.name : '';
      if (!/^locations\/[^/]+$/.test(name) || found.has(name)) continue;
      const metadata = (location.metadata ?? {}) as Record<string, unknown>;
      found.set(name, {
        path: `${account.name}/${name}`,
        name,
        title: typeof location.title === 'string' && location.title ? location.title : name,
        mapsUri: typeof metadata.mapsUri === 'string' ? metadata.mapsUri : undefined,
      });
    }
  }
  return [...found.values()];
}

export const googleBusinessOAuth: OAuthHooks = {
  ...googleOAuth([BUSINESS_SCOPE]),
  identities: async ({ endpoint, accessToken, ...http }): Promise<OAuthIdentity[]> =>
    (await locationsOf(endpoint, accessToken, http)).map((location) => ({
      id: location.name,
      name: location.title,
      kind: 'location',
    })),
};

/**
 * Checks the sign-in and the location chosen (`account`: `locations/{id}`, the bare id, or its title;
 * none when the person has one location). Stores the tokens (the refresh token kept for good).
 */
export async function verifyGoogleBusiness(input: ConnectInput): Promise<VerifiedConnection> {
  if (!input.tokens) {
    throw new Error(
      'Google Business Profile is connected by signing in: run connect googlebusiness without a token.',
    );
  }
  const apiRoot = new URL(input.endpoint).origin;
  const http = { userAgent: input.userAgent, timeoutMs: input.timeoutMs };
  const locations = await locationsOf(apiRoot, input.tokens.accessToken, http);
  if (locations.length === 0) {
    throw new Error(
      'The Google sign-in manages no Business Profile location: sign in with an account that owns or manages the business (business.google.com), then connect again.',
    );
  }
  const wanted = input.account?.trim();
  const location = wanted
    ? (locations.find((candidate) => candidate.name === wanted || candidate.name === `locations/${wanted}`) ??
      locations.find((candidate) => candidate.title.toLowerCase() === wanted.toLowerCase()))
    : locations.length === 1
      ? locations[0]
      : undefined;
  if (!location) {
    const known = locations.map((candidate) => `${candidate.title} (${candidate.name})`).join(', ');
    throw new Error(
      wanted
        ? `The Google sign-in manages no location "${wanted}": give one of ${known} with --account.`
        : `Name the location to post to with --account: one of ${known}.`,
    );
  }
  return {
    kind: 'googlebusiness',
    account: location.title,
    accountId: location.path,
    endpoint: apiRoot,
    profileUrl: location.mapsUri ?? null,
    settings: {},
    capabilities: capabilitiesOfGoogleBusiness(),
    secret: tokensSecret(input.tokens),
  };
}
