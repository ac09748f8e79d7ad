/**
 * A LinkedIn identity before any post: what a post may carry (capabilitiesOfLinkedIn) and the check
 * `connect linkedin` runs after the sign-in (verifyLinkedIn): the member, or one of the pages they
 * administer, named by `--account` (its URN or its name).
 */
import { type Capabilities, PLATFORM_CAPABILITIES } from '../../../domain/capabilities.js';
import type { VerifiedConnection } from '../../connector.js';
import type { ConnectInput } from '../module.js';
import { tokensSecret } from '../oauth-tokens.js';
import { linkedinOrigin } from './linkedin-api.js';
import { memberOf, organizationName, pagesOf } from './linkedin-oauth.js';

/**
 * LinkedIn's limits (documented: the Posts, Poll, Images, Videos and Documents API pages): commentary
 * 3,000 characters; a poll of 2–4 options of 30 characters; up to 20 images in a multiImage post
 * (several images, or one video, or one document: one media kind a post); documents up to 100 MB and
 * 300 pages, videos up to 500 MB. What the pre-flight reads is the LinkedIn row of PLATFORM_CAPABILITIES.
 */
export function capabilitiesOfLinkedIn(): Capabilities {
  return { ...PLATFORM_CAPABILITIES.LinkedIn };
}

const ORGANIZATION_URN = 'urn:li:organization:';

/**
 * Checks the sign-in's token and the identity chosen: the member (no `account`, or the member's URN)
 * or a page the member administers. Rejects with an Error that says what to fix, never with a token.
 */
export async function verifyLinkedIn(input: ConnectInput): Promise<VerifiedConnection> {
  const apiRoot = linkedinOrigin(input.endpoint, 'API');
  const token = input.tokens?.accessToken ?? input.secret;
  const http = { userAgent: input.userAgent, timeoutMs: input.timeoutMs };
  const member = await memberOf(apiRoot, token, http);
  const wanted = input.account?.trim();
  const base = {
    kind: 'linkedin' as const,
    endpoint: apiRoot,
    capabilities: capabilitiesOfLinkedIn(),
    secret: tokensSecret(input.tokens ?? { accessToken: token }),
  };
  if (!wanted || wanted === member.id || wanted === member.name) {
    return {
      ...base,
      account: member.name,
      accountId: member.id,
      profileUrl: null,
      settings: { author: member.id },
    };
  }
  const pages = await pagesOf(apiRoot, token, http);
  const page =
    pages.find((candidate) => candidate.id === wanted) ??
    pages.find((candidate) => candidate.id === `${ORGANIZATION_URN}${wanted}`) ??
    pages.find((candidate) => candidate.name.toLowerCase() === wanted.toLowerCase());
  if (!page) {
    const known = pages.map((candidate) => `${candidate.name} (${candidate.id})`).join(', ');
    throw new Error(
      known
        ? `${member.name} does not administer a LinkedIn page "${wanted}": give one of ${known}, or leave out --account to post as ${member.name}.`
        : `${member.name} administers no LinkedIn page this app may post to: the app needs the Community Management API (w_organization_social, rw_organization_admin) and the member an ADMINISTRATOR role on the page; or leave out --account to post as ${member.name}.`,
    );
  }
  const id = page.id.slice(ORGANIZATION_URN.length);
  return {
    ...base,
    account: page.name || (await organizationName(apiRoot, page.id, token, http)),
    accountId: page.id,
    profileUrl: `https://www.linkedin.com/company/${id}/`,
    settings: { author: page.id },
  };
}
