/**
 * A Threads profile before any post: what a post may carry (capabilitiesOfThreads, threadsTextLength),
 * how Meta says no (THREADS_HOOKS, from the shared Meta hooks), and the check `connect threads` runs
 * after the sign-in (verifyThreads: `GET /me?fields=id,username` with the long-lived token).
 */
import { type Capabilities, PLATFORM_CAPABILITIES } from '../../../domain/capabilities.js';
import { threadsLength } from '../../../domain/preflight.js';
import type { VerifiedConnection } from '../../connector.js';
import { hideSecrets } from '../../platform-http.js';
import { graphOrigin, graphSaid, metaHooks } from '../meta/graph.js';
import type { ConnectInput } from '../module.js';
import { tokensSecret } from '../oauth-tokens.js';
import { signedInGet } from '../token-endpoint.js';

/** The Threads API's version (developers.facebook.com/documentation/threads: every path is /v1.0). */
export const THREADS_API_VERSION = 'v1.0';

const MB = 1024 * 1024;

/** The longest text of a post, counted as threadsTextLength counts it. */
export const THREADS_TEXT_LIMIT = 500;

/** Threads' count, the pre-flight's (domain/preflight.ts `threadsLength`): an emoji its UTF-8 bytes. */
export const threadsTextLength = threadsLength;

/**
 * What a post may carry: 500 characters; one image (JPEG or PNG, up to 8 MB) or video (MP4 or MOV, up
 * to 1 GB), or a carousel of up to 20 (Meta's carousel guide); a poll of 2 to 4 options of 25
 * characters, on a text post only (…/threads/create-posts/polls).
 */
export function capabilitiesOfThreads(): Capabilities {
  return { ...PLATFORM_CAPABILITIES.Threads, maxImageBytes: 8 * MB, maxVideoBytes: 1024 * MB };
}

export const THREADS_PERMISSIONS = 'threads_basic, threads_content_publish and threads_manage_replies';

/** Threads' part of the shared classification. */
export const THREADS_HOOKS = metaHooks({
  name: 'Threads',
  reconnect: 'social-publisher-mcp connect threads',
  permissions: THREADS_PERMISSIONS,
});

/**
 * Checks the sign-in: the profile the token is for (`/me`). Stores the tokens (the long-lived token,
 * which is also its own refresh token). Rejects with an Error that says what to fix, never a token.
 */
export async function verifyThreads(input: ConnectInput): Promise<VerifiedConnection> {
  const apiRoot = graphOrigin(input.endpoint, 'API');
  const token = input.tokens?.accessToken ?? input.secret;
  const url = `${apiRoot}/${THREADS_API_VERSION}/me?fields=id,username`;
  const answer = await signedInGet(url, token, input);
  const found = (answer.json ?? {}) as { id?: unknown; username?: unknown };
  if (answer.status !== 200 || typeof found.id !== 'string' || typeof found.username !== 'string') {
    throw new Error(
      `Threads did not accept the sign-in (${hideSecrets(graphSaid(answer), [token])}): run connect threads again and approve ${THREADS_PERMISSIONS}.`,
    );
  }
  const tokens = input.tokens ?? { accessToken: token };
  return {
    kind: 'threads',
    account: `@${found.username}`,
    accountId: found.id,
    endpoint: apiRoot,
    profileUrl: `https://www.threads.net/@${found.username}`,
    settings: {},
    capabilities: capabilitiesOfThreads(),
    secret: tokensSecret(tokens),
  };
}
