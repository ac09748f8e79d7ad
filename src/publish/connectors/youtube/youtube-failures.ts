/**
 * How YouTube says no, for the one classification (connectors/http.ts): Google's error body read once
 * (google/google-errors.ts), and the reasons that mean more than their status
 * (developers.google.com/youtube/v3/docs/errors):
 *
 * - `quotaExceeded` (403): the Google app's daily quota (10,000 units; uploads have a bucket of their
 *   own) is spent: rate limited until midnight Pacific Time, when Google resets it;
 * - `uploadLimitExceeded`: the channel's own daily upload cap: the same wait;
 * - `rateLimitExceeded`, `userRateLimitExceeded` (403): too many requests in a short time: a minute;
 * - `authError`, `insufficientPermissions`, `ACCESS_TOKEN_SCOPE_INSUFFICIENT` (401, 403): only a new
 *   sign-in that grants the scope cures it: reconnect;
 * - `youtubeSignupRequired`: the Google account has no YouTube channel: refused, saying to create one.
 */
import type { PlatformAnswer } from '../../platform-http.js';
import { googleReasons, googleSaid, nextPacificMidnightMs } from '../google/google-errors.js';
import type { FailedCall, PlatformHooks, PlatformQuirk } from '../http.js';

const RECONNECT = 'run `social-publisher-mcp connect youtube` again';

/** The daily quotas' reasons, with what each one is, for the reason. */
const DAILY = {
  quotaExceeded:
    "the Google app's daily YouTube quota is spent (10,000 units a day, and 100 video uploads a day in their own bucket, by default)",
  uploadLimitExceeded: 'the channel has reached its daily upload limit',
} as const;

const SHORT_LIMITS = new Set(['rateLimitExceeded', 'userRateLimitExceeded']);
const SIGN_IN = new Set(['authError', 'insufficientPermissions', 'ACCESS_TOKEN_SCOPE_INSUFFICIENT']);

/** The wait of a spent daily quota: until midnight Pacific Time. */
function dailyQuota(reason: keyof typeof DAILY, said: string, call: FailedCall): PlatformQuirk {
  const resetAtMs = nextPacificMidnightMs(call.nowMs);
  return {
    kind: 'rate_limited',
    retryAfterMs: resetAtMs - call.nowMs,
    reason: `YouTube refused the ${call.what} of ${call.account}: ${DAILY[reason]} (${said}). Google resets it at midnight Pacific Time (${new Date(resetAtMs).toISOString()}); the post waits until then. A larger quota is asked for in the Google Cloud console (YouTube Data API v3, Quotas).`,
  };
}

export const YOUTUBE_HOOKS: PlatformHooks = {
  name: 'YouTube',
  said: googleSaid,
  quirk: (answer: PlatformAnswer, said: string, call: FailedCall): PlatformQuirk | undefined => {
    const reasons = googleReasons(answer);
    const daily = reasons.find((reason): reason is keyof typeof DAILY => reason in DAILY);
    if (daily) return dailyQuota(daily, said, call);
    if (reasons.some((reason) => SHORT_LIMITS.has(reason))) return { kind: 'rate_limited' };
    if (reasons.some((reason) => SIGN_IN.has(reason))) {
      return {
        kind: 'reconnect',
        reason: `YouTube refused the ${call.what} of ${call.account} for want of a permission (${said}): ${RECONNECT} and approve every permission asked.`,
      };
    }
    if (reasons.includes('youtubeSignupRequired')) {
      return {
        kind: 'refused',
        reason: `YouTube refused the ${call.what}: the Google account of ${call.account} has no YouTube channel (${said}). Create one on youtube.com, then ${RECONNECT}.`,
      };
    }
    return undefined;
  },
  wording: {
    reconnect: (call, said) =>
      `YouTube refused the sign-in of ${call.account} (${said}): ${RECONNECT} to reconnect the channel.`,
    unanswered: (call, message) =>
      `YouTube (${call.address}) did not answer the ${call.what} (${message}): it may have been carried out.`,
  },
};
