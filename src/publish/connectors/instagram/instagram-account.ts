/**
 * An Instagram professional account before any post: what a post may carry (capabilitiesOfInstagram),
 * how Meta says no (INSTAGRAM_HOOKS, from the shared Meta hooks), and the check `connect instagram`
 * runs after the sign-in (verifyInstagram), for either sign-in:
 *
 * - Facebook Login: the account chosen with `--account` (its id or username) among those linked to the
 *   person's Pages; its Page's token read and tried (`GET /{ig-user}?fields=id,username`), and stored.
 * - Instagram Login: the account the token is for (`GET /me?fields=user_id,username` on
 *   graph.instagram.com: `user_id` is the id `/media` takes, `id` may be app-scoped), its tokens stored.
 */
import { type Capabilities, PLATFORM_CAPABILITIES } from '../../../domain/capabilities.js';
import type { VerifiedConnection } from '../../connector.js';
import { hideSecrets } from '../../platform-http.js';
import { GRAPH_API_VERSION, graphOrigin, graphSaid, metaHooks } from '../meta/graph.js';
import { chosenByAccount, pageTokenSecret, readWithPageToken } from '../meta/page-choice.js';
import type { ConnectInput } from '../module.js';
import { tokensSecret } from '../oauth-tokens.js';
import { signedInGet } from '../token-endpoint.js';
import { linkedAccountsOf } from './instagram-oauth.js';

const MB = 1024 * 1024;

/**
 * What a post may carry: a caption of 2,200 characters; one JPEG image (8 MB) or video, or a carousel
 * of up to 10 (…/instagram-platform/content-publishing). Reels up to 1 GB (the newer pages of Meta's
 * guide; older English ones say 300 MB: Meta refuses what is too big, in its words).
 */
export function capabilitiesOfInstagram(): Capabilities {
  return { ...PLATFORM_CAPABILITIES.Instagram, maxVideoBytes: 1024 * MB };
}

export const INSTAGRAM_PERMISSIONS =
  'instagram_basic, instagram_content_publish, instagram_manage_comments, pages_show_list and pages_read_engagement (with Instagram Login: instagram_business_basic, instagram_business_content_publish and instagram_business_manage_comments)';

/** Instagram's part of the shared classification. */
export const INSTAGRAM_HOOKS = metaHooks({
  name: 'Instagram',
  reconnect: 'social-publisher-mcp connect instagram',
  permissions: INSTAGRAM_PERMISSIONS,
});

const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
const idText = (value: unknown) => (typeof value === 'number' ? String(value) : text(value));

/** Checks the sign-in and says what to store; rejects with an Error that says what to fix, never a token. */
export async function verifyInstagram(input: ConnectInput): Promise<VerifiedConnection> {
  const apiRoot = graphOrigin(input.endpoint, 'API');
  return input.login === 'instagram'
    ? verifyInstagramLogin(input, apiRoot)
    : verifyFacebookLogin(input, apiRoot);
}

async function verifyInstagramLogin(input: ConnectInput, apiRoot: string): Promise<VerifiedConnection> {
  const token = input.tokens?.accessToken ?? input.secret;
  const url = `${apiRoot}/${GRAPH_API_VERSION}/me?fields=user_id,username`;
  const answer = await signedInGet(url, token, input);
  const found = (answer.json ?? {}) as Record<string, unknown>;
  const id = idText(found.user_id) ?? idText(found.id);
  const username = text(found.username);
  if (answer.status !== 200 || !id || !username) {
    throw new Error(
      `Instagram did not accept the sign-in (${hideSecrets(graphSaid(answer), [token])}): run connect instagram --login instagram again and approve ${INSTAGRAM_PERMISSIONS}.`,
    );
  }
  const tokens = input.tokens ?? { accessToken: token, refreshToken: token };
  return connection(apiRoot, id, username, { login: 'instagram' }, tokensSecret(tokens));
}

async function verifyFacebookLogin(input: ConnectInput, apiRoot: string): Promise<VerifiedConnection> {
  const userToken = input.tokens?.accessToken ?? input.secret;
  const http = { userAgent: input.userAgent, timeoutMs: input.timeoutMs };
  const accounts = await linkedAccountsOf(apiRoot, userToken, http);
  if (accounts.length === 0) {
    throw new Error(
      `The Facebook sign-in gives no Instagram professional account: link the account to a Facebook Page (Instagram: Settings → Account type and tools; or the Page's Linked accounts), approve the Page when Facebook asks, then run connect instagram again. Or sign in with --login instagram.`,
    );
  }
  const wanted = input.account?.trim().replace(/^@/, '');
  const known = accounts.map((account) => `@${account.username} (${account.id})`).join(', ');
  const account = chosenByAccount(accounts, wanted, (candidate) => candidate.username);
  if (!account) {
    throw new Error(
      wanted
        ? `The Facebook sign-in gives no Instagram account "${wanted}": give one of ${known} with --account.`
        : `Name the Instagram account to post as with --account: one of ${known}.`,
    );
  }
  if (!account.pageToken) {
    throw new Error(
      `Facebook gave no token for the Page ${account.pageName} that @${account.username} is linked to: the person needs a task on the Page that allows posting (CREATE_CONTENT), and the app ${INSTAGRAM_PERMISSIONS}.`,
    );
  }
  const pageToken = account.pageToken;
  const secrets = [userToken, pageToken];
  const found = await readWithPageToken(
    apiRoot,
    account.id,
    'id,username',
    { token: pageToken, secrets },
    http,
    (said) =>
      `Instagram did not accept the token of the Page ${account.pageName} (${said}): run connect instagram again.`,
  );
  const username = text(found.username) ?? account.username;
  const secret = pageTokenSecret(pageToken, input.tokens);
  return connection(apiRoot, account.id, username, { login: 'facebook', pageId: account.pageId }, secret);
}

function connection(
  apiRoot: string,
  id: string,
  username: string,
  settings: Record<string, unknown>,
  secret: string,
): VerifiedConnection {
  return {
    kind: 'instagram',
    account: `@${username}`,
    accountId: id,
    endpoint: apiRoot,
    profileUrl: `https://www.instagram.com/${username}/`,
    settings,
    capabilities: capabilitiesOfInstagram(),
    secret,
  };
}
