/**
 * How Pinterest says no, for the one classification (connectors/http.ts): API v5's error body
 * `{ code, message }` (developers.pinterest.com/docs/api/v5, the `Error` schema), the refusals that
 * only a new sign-in cures (a revoked or expired token, a scope the approval lacks), and an app with
 * Trial access writing to production (code 29: it must use the API sandbox). The media upload target
 * (Amazon S3) answers XML `<Error><Code>…</Code><Message>…</Message></Error>`.
 */
import { type PlatformAnswer, platformOrigin, summarise } from '../../platform-http.js';
import type { PlatformHooks } from '../http.js';

export const PINTEREST_API_ROOT = 'https://api.pinterest.com';
export const PINTEREST_SANDBOX_ROOT = 'https://api-sandbox.pinterest.com';
export const PINTEREST_AUTH_ROOT = 'https://www.pinterest.com';

/** What Pinterest said: its message with its code (`Authentication failed. (code 2)`), or S3's. */
export function pinterestSaid(answer: PlatformAnswer): string {
  const body = (answer.json ?? {}) as { code?: unknown; message?: unknown };
  if (typeof body.message === 'string' && body.message) {
    return typeof body.code === 'number' ? `${body.message} (code ${body.code})` : body.message;
  }
  const s3 = /<Code>([^<]*)<\/Code>[\s\S]*?<Message>([^<]*)<\/Message>/.exec(answer.text);
  if (s3) return `${s3[2]} (${s3[1]})`;
  return summarise(answer.text) || `HTTP ${answer.status}`;
}

/** Pinterest's code for a request of an app with Trial access to the production API. */
const TRIAL_ACCESS = 29;
const PERMISSION_REFUSAL = /scope|permission|not authorized|authorization/i;

export const RECONNECT_ADVICE =
  'run `social-publisher-mcp connect pinterest` again and approve every permission asked (boards:read, boards:write, pins:read, pins:write, user_accounts:read)';

/** Pinterest's part of the shared classification. */
export const PINTEREST_HOOKS: PlatformHooks = {
  name: 'Pinterest',
  said: pinterestSaid,
  quirk: (answer, said) => {
    const code = (answer.json as { code?: unknown } | undefined)?.code;
    if (code === TRIAL_ACCESS || /Trial access/i.test(said)) {
      return {
        kind: 'refused',
        reason: `Pinterest refused the pin because the app has Trial access (${said}): pins of a Trial app go to the API sandbox — connect the channel again with --api-root ${PINTEREST_SANDBOX_ROOT}, or apply for Standard access on https://developers.pinterest.com/apps/.`,
      };
    }
    if (answer.status === 403 && PERMISSION_REFUSAL.test(said)) {
      return {
        kind: 'reconnect',
        reason: `Pinterest refused for want of a permission (${said}): ${RECONNECT_ADVICE}.`,
      };
    }
    return undefined;
  },
  wording: {
    reconnect: (call, said) =>
      `Pinterest refused the sign-in of ${call.account} (${said}): ${RECONNECT_ADVICE}.`,
    refused: (call, said) => `Pinterest refused the ${call.what}: ${said}`,
    unanswered: (call, message) =>
      `Pinterest (${call.address}) did not answer the ${call.what} request (${message}): it may have been pinned.`,
  },
};

/** `https://host` of an address, http only to a loopback address (a local stand-in). */
export function pinterestOrigin(address: string, what: string): string {
  return platformOrigin(address, 'Pinterest', what, PINTEREST_API_ROOT);
}
