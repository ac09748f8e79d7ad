/**
 * How TikTok says no, for the one classification (connectors/http.ts). Every answer of the v2 API is an
 * envelope `{ data, error: { code, message, log_id } }` whose `code` is `ok` on success
 * (developers.tiktok.com/doc/tiktok-api-v2-error-handling); the code decides more than the status:
 *
 * - `access_token_invalid`, `scope_not_authorized`, `scope_permission_missed` (401): a new sign-in;
 * - `rate_limit_exceeded` (429): the per-token limits are per minute (init 6, creator_info 20, status
 *   30): without a Retry-After the wait is a minute;
 * - `spam_risk_too_many_posts`, `spam_risk_too_many_pending_share`, `spam_risk_user_banned_from_posting`,
 *   `reached_active_user_cap`: TikTok's daily caps (an unaudited app: few posts a day): refused, saying so;
 * - `unaudited_client_can_only_post_to_private_accounts`, `privacy_level_option_mismatch`,
 *   `url_ownership_unverified`: refused, saying what fixes each;
 * - `internal_error` (500): transient.
 * The HTTP status of the content and policy codes is not documented (integrators see 400 and 403);
 * the code is read whatever the status, an envelope with another code than `ok` on a 200 included.
 */
import { type PlatformAnswer, retryAfterMs, summarise } from '../../platform-http.js';
import type { FailedCall, PlatformHooks, PlatformQuirk } from '../http.js';

/** A rate limit without a Retry-After: TikTok's windows are a minute long. */
export const TIKTOK_RATE_WINDOW_MS = 60_000;

/** The command that signs the channel in again. */
export const TIKTOK_RECONNECT = 'social-publisher-mcp connect tiktok';

/** TikTok's error code and message, from the API's envelope or the token endpoint's flat body. */
export function tiktokErrorOf(answer: PlatformAnswer): { code: string; message: string } | undefined {
  const body = (answer.json ?? {}) as {
    error?: unknown;
    error_description?: unknown;
  };
  if (typeof body.error === 'object' && body.error !== null) {
    const { code, message } = body.error as { code?: unknown; message?: unknown };
    if (typeof code !== 'string') return undefined;
    return { code, message: typeof message === 'string' ? message : '' };
  }
  if (typeof body.error === 'string') {
    const description = typeof body.error_description === 'string' ? body.error_description : '';
    return { code: body.error, message: description };
  }
  return undefined;
}

/** What TikTok said: `code: message`, or the body's first line. */
export function tiktokSaid(answer: PlatformAnswer): string {
  const error = tiktokErrorOf(answer);
  if (error && error.code !== 'ok') return error.message ? `${error.code}: ${error.message}` : error.code;
  return summarise(answer.text) || `HTTP ${answer.status}`;
}

const RECONNECT_CODES = new Set(['access_token_invalid', 'scope_not_authorized', 'scope_permission_missed']);

const DAILY_CAPS = new Set([
  'spam_risk_too_many_posts',
  'spam_risk_too_many_pending_share',
  'spam_risk_user_banned_from_posting',
  'reached_active_user_cap',
]);

/** What fixes the refusals that need more than TikTok's words. */
const ADVICE: Record<string, string> = {
  unaudited_client_can_only_post_to_private_accounts:
    'until TikTok audits the app, it may post only to a private TikTok account (make the account private in the TikTok app) and only as SELF_ONLY',
  privacy_level_option_mismatch: `the creator no longer offers the channel's privacy level: run ${TIKTOK_RECONNECT} again and choose one of theirs`,
  url_ownership_unverified:
    "TikTok pulls photos only from a domain or URL prefix verified for the app (developers.tiktok.com → the app → URL properties): verify the domain of the server's public address (SOCIAL_PUBLISHER_PUBLIC_URL) or of the photo URLs",
};

function quirk(answer: PlatformAnswer, said: string, call: FailedCall): PlatformQuirk | undefined {
  const code = tiktokErrorOf(answer)?.code;
  if (code === undefined || code === 'ok') {
    // A 2xx without TikTok's envelope: a gateway's answer, worth trying again.
    return answer.status < 300 ? { kind: 'transient' } : undefined;
  }
  if (RECONNECT_CODES.has(code)) return { kind: 'reconnect' };
  if (code === 'rate_limit_exceeded') {
    const wait = retryAfterMs(answer.headers, call.nowMs) ?? TIKTOK_RATE_WINDOW_MS;
    return { kind: 'rate_limited', status: 429, retryAfterMs: wait };
  }
  if (code === 'internal_error') return { kind: 'transient', status: 500 };
  if (DAILY_CAPS.has(code)) {
    return {
      kind: 'refused',
      reason: `TikTok refused the ${call.what} of ${call.account}: its daily limit of posts is reached (${said}). An app TikTok has not audited may post only a few times a day: post it again later.`,
    };
  }
  const advice = ADVICE[code];
  if (advice) {
    return {
      kind: 'refused',
      reason: `TikTok refused the ${call.what} (${said}): ${advice}.`,
    };
  }
  return answer.status < 300 ? { kind: 'refused' } : undefined;
}

/** TikTok's part of the shared classification. */
export const TIKTOK_HOOKS: PlatformHooks = {
  name: 'TikTok',
  said: tiktokSaid,
  quirk,
  wording: {
    reconnect: (call, said) =>
      `TikTok refused the sign-in of ${call.account} (${said}): run \`${TIKTOK_RECONNECT}\` again to reconnect the channel.`,
    rateLimited: (call, said) =>
      `TikTok is rate limiting ${call.account} (${said}): it allows 6 posts a minute per account.`,
    unanswered: (call, message) =>
      `TikTok (${call.address}) did not answer the ${call.what} (${message}): it may have been posted. It is not sent again, since TikTok cannot deduplicate: look at the TikTok account ${call.account}, and send it again if it is not there.`,
  },
};
