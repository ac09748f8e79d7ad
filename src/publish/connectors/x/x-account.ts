/**
 * An X account before any post: what a post may carry (capabilitiesOfX), how X words a refusal (xSaid,
 * X_HOOKS for the shared classification), and the check `connect x` runs after the sign-in (verifyX:
 * `GET /2/users/me`).
 */
import { type Capabilities, PLATFORM_CAPABILITIES } from '../../../domain/capabilities.js';
import type { VerifiedConnection } from '../../connector.js';
import {
  callPlatform,
  headerValue,
  hideSecrets,
  type PlatformAnswer,
  resetAtMs,
  retryAfterMs,
  summarise,
} from '../../platform-http.js';
import type { PlatformHooks } from '../http.js';
import type { OAuthTokens } from '../module.js';
import { tokensSecret } from '../oauth-tokens.js';

/**
 * What an X post may carry (docs.x.com: counting-characters, media best practices, manage-tweets):
 * 280 weighted characters, a link 23; up to 4 images (5 MB each) or one video (512 MB); a poll of 2–4
 * options of 25 characters, not with media. Long posts of verified accounts are not assumed.
 */
export function capabilitiesOfX(): Capabilities {
  return { ...PLATFORM_CAPABILITIES['X/Twitter'] };
}

/**
 * What X said in a refusal: the first `errors[].message` (v1-style and partial errors), else the
 * problem's `detail` (RFC 7807: `{ title, detail, type, status }`), else its title, else the body.
 */
export function xSaid(answer: PlatformAnswer): string {
  const body = (answer.json ?? {}) as {
    errors?: { message?: unknown; detail?: unknown }[];
    detail?: unknown;
    title?: unknown;
    type?: unknown;
  };
  const first = Array.isArray(body.errors) ? body.errors[0] : undefined;
  const message = [first?.message, first?.detail, body.detail, body.title].find(
    (value): value is string => typeof value === 'string' && value !== '',
  );
  const type = typeof body.type === 'string' ? /\/problems\/([\w-]+)$/.exec(body.type)?.[1] : undefined;
  // A problem's type says more than "Forbidden" (usage-capped, user-suspended).
  if (message && type && !message.toLowerCase().includes(type.replaceAll('-', ' '))) {
    return `${message} (${type})`;
  }
  return message ?? (summarise(answer.text) || `HTTP ${answer.status}`);
}

/**
 * When X gives the requests back after a 429: Retry-After if sent, else the latest reset of the limits
 * the headers show spent (the 15-minute window, the app's or the user's 24 hours).
 */
export function xRetryAfterMs(answer: PlatformAnswer, nowMs: number): number | undefined {
  const named = retryAfterMs({ 'retry-after': answer.headers['retry-after'] }, nowMs);
  if (named !== undefined) return named;
  let latest: number | undefined;
  for (const prefix of ['x-rate-limit-', 'x-app-limit-24hour-', 'x-user-limit-24hour-']) {
    const remaining = headerValue(answer.headers, `${prefix}remaining`);
    const reset = resetAtMs(headerValue(answer.headers, `${prefix}reset`), nowMs);
    if (reset === undefined || (remaining !== undefined && remaining !== '0')) continue;
    latest = Math.max(latest ?? 0, reset - nowMs);
  }
  return latest === undefined ? undefined : Math.max(0, latest);
}

const RECONNECT = 'run `social-publisher-mcp connect x` again';

/** X's part of the shared classification (connectors/http.ts): its error shapes, its 403s, its limits. */
export const X_HOOKS: PlatformHooks = {
  name: 'X',
  said: xSaid,
  quirk: (answer, said, call) => {
    // The app's pay-per-use credits are spent: no wait lifts it, whatever its status.
    if (/usage-capped|usage ?cap/i.test(said)) {
      return {
        kind: 'refused',
        reason: `X refused the ${call.what}: ${said}. The X app's usage cap is reached: add credits in the developer portal (developer.x.com), then publish again.`,
      };
    }
    if (answer.status === 429) {
      const wait = xRetryAfterMs(answer, call.nowMs);
      return wait === undefined ? undefined : { retryAfterMs: wait };
    }
    // An app-only token, or one of another kind, on a user endpoint: only a new sign-in helps.
    if (answer.status === 403 && /unsupported.authentication/i.test(said)) return { kind: 'reconnect' };
    return undefined;
  },
  wording: {
    reconnect: (call, said) =>
      `X refused the sign-in of ${call.account} (${said}): ${RECONNECT} to reconnect the channel.`,
    rateLimited: (call, said) => `X is rate limiting ${call.account} (${said}).`,
    unanswered: (call, message) =>
      `X (${call.address}) did not answer the ${call.what} (${message}): it may have been published, so it is not sent again blindly.`,
  },
};

export interface VerifyXOptions {
  /** The API root: https://api.x.com, or a stand-in. */
  apiRoot: string;
  /** The sign-in's tokens; never put in a message. */
  tokens: OAuthTokens;
  userAgent?: string;
  timeoutMs?: number;
}

/**
 * Reads the signed-in account (`GET /2/users/me`) and says what to store. Rejects with an Error that
 * says what to fix and never contains a token.
 */
export async function verifyX(options: VerifyXOptions): Promise<VerifiedConnection> {
  const apiRoot = options.apiRoot.replace(/\/+$/, '');
  const secrets = [options.tokens.accessToken, options.tokens.refreshToken ?? ''];
  let answer: PlatformAnswer;
  try {
    answer = await callPlatform(`${apiRoot}/2/users/me?user.fields=username,name`, {
      method: 'GET',
      headers: {
        authorization: `Bearer ${options.tokens.accessToken}`,
        accept: 'application/json',
        'user-agent': options.userAgent ?? 'social-publisher-mcp',
      },
      timeoutMs: options.timeoutMs ?? 15_000,
      secrets,
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`Could not reach X at ${apiRoot} (${hideSecrets(detail, secrets)}): check --api-root.`);
  }
  const said = hideSecrets(xSaid(answer), secrets);
  if (answer.status === 401 || answer.status === 403) {
    throw new Error(
      `X refused the sign-in (${said}): make sure the app has the scopes tweet.read and users.read and read-and-write permission, then sign in again.`,
    );
  }
  const user = ((answer.json ?? {}) as { data?: { id?: unknown; username?: unknown } }).data;
  if (answer.status !== 200 || typeof user?.id !== 'string' || typeof user.username !== 'string') {
    throw new Error(
      `${apiRoot} did not answer like X (users/me: ${said}): check --api-root, or try again if X is down.`,
    );
  }
  return {
    kind: 'x',
    account: `@${user.username}`,
    accountId: user.id,
    endpoint: apiRoot,
    profileUrl: `https://x.com/${user.username}`,
    // The CLI adds `authRoot` when the sign-in used another than X's (--auth-root).
    settings: { username: user.username },
    capabilities: capabilitiesOfX(),
    secret: tokensSecret(options.tokens),
  };
}
