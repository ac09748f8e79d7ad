/**
 * A Facebook Page before any post: what a post may carry (capabilitiesOfFacebook), how Meta says no
 * (FACEBOOK_HOOKS, from the shared Meta hooks), and the check `connect facebook` runs after the
 * sign-in (verifyFacebook): the Page chosen with `--account` among those the person may post to, its
 * own token read and tried.
 */
import { type Capabilities, PLATFORM_CAPABILITIES } from '../../../domain/capabilities.js';
import type { VerifiedConnection } from '../../connector.js';
import { graphOrigin, metaHooks } from '../meta/graph.js';
import { chosenByAccount, pageTokenSecret, readWithPageToken } from '../meta/page-choice.js';
import type { ConnectInput } from '../module.js';
import { pagesOf } from './facebook-oauth.js';

const MB = 1024 * 1024;

/**
 * What a Page post may carry: 63,206 characters (the longest message Meta is reported to take); up to
 * 10 photos of under 10 MB each (the Photo reference: "photos must be less than 10 MB"), or one video.
 */
export function capabilitiesOfFacebook(): Capabilities {
  return { ...PLATFORM_CAPABILITIES.Facebook, maxImageBytes: 10 * MB };
}

export const FACEBOOK_PERMISSIONS =
  'pages_show_list, pages_manage_posts, pages_read_engagement and pages_manage_engagement (and publish_video for videos), with a CREATE_CONTENT task on the Page';

/** Facebook's part of the shared classification. */
export const FACEBOOK_HOOKS = metaHooks({
  name: 'Facebook',
  reconnect: 'social-publisher-mcp connect facebook',
  permissions: FACEBOOK_PERMISSIONS,
});

/**
 * Checks the sign-in and the Page chosen (`account`: its id or its name; none when the person has one
 * Page), reads the Page's token and asks for the Page with it. Stores the Page token, which does not
 * expire. Rejects with an Error that says what to fix, never with a token.
 */
export async function verifyFacebook(input: ConnectInput): Promise<VerifiedConnection> {
  const apiRoot = graphOrigin(input.endpoint, 'API');
  const userToken = input.tokens?.accessToken ?? input.secret;
  const http = { userAgent: input.userAgent, timeoutMs: input.timeoutMs };
  const pages = await pagesOf(apiRoot, userToken, http);
  const wanted = input.account?.trim();
  const known = pages.map((page) => `${page.name} (${page.id})`).join(', ');
  if (pages.length === 0) {
    throw new Error(
      `The Facebook sign-in gives no Page to post to: approve the Pages when Facebook asks (and ${FACEBOOK_PERMISSIONS}), then run connect facebook again.`,
    );
  }
  const page = chosenByAccount(pages, wanted, (candidate) => candidate.name);
  if (!page) {
    throw new Error(
      wanted
        ? `The Facebook sign-in gives no Page "${wanted}": give one of ${known} with --account.`
        : `Name the Page to post to with --account: one of ${known}.`,
    );
  }
  if (!page.accessToken) {
    throw new Error(
      `Facebook gave no token for the Page ${page.name} (${page.id}): the person needs a task on the Page that allows posting (CREATE_CONTENT), and the app ${FACEBOOK_PERMISSIONS}.`,
    );
  }
  const pageToken = page.accessToken;
  const secrets = [userToken, pageToken];
  const found = await readWithPageToken(
    apiRoot,
    page.id,
    'id,name',
    { token: pageToken, secrets },
    http,
    (said) =>
      `Facebook did not accept the token of the Page ${page.name} (${said}): run connect facebook again.`,
  );
  const name = typeof found.name === 'string' && found.name ? found.name : page.name;
  return {
    kind: 'facebook',
    account: name,
    accountId: page.id,
    endpoint: apiRoot,
    profileUrl: `https://www.facebook.com/${page.id}`,
    settings: {},
    capabilities: capabilitiesOfFacebook(),
    secret: pageTokenSecret(pageToken, input.tokens),
  };
}
