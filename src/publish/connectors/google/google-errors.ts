/**
 * How Google's APIs say no, read once for the Google platforms: the error body
 * `{ error: { code, message, status, errors: [{ reason, domain }], details: [{ @type: …ErrorInfo,
 * reason, metadata }] } }` (cloud.google.com/apis/design/errors; the older `errors[].reason` of the
 * YouTube Data API beside the newer `details[].reason`), turned into the kinds the engine acts on:
 *
 * - 401 UNAUTHENTICATED → reconnect (shared); a token without the scope (ACCESS_TOKEN_SCOPE_INSUFFICIENT,
 *   insufficientPermissions) → reconnect, approving every permission;
 * - an API not enabled in the Cloud project (SERVICE_DISABLED, accessNotConfigured) → refused, naming it;
 * - a quota of 0 (the Business Profile APIs before Google approves the project) → refused, saying what
 *   to do; a daily quota spent (quotaExceeded, dailyLimitExceeded, uploadLimitExceeded) → rate limited
 *   until midnight Pacific time, when Google resets it; other rate limits (429 RESOURCE_EXHAUSTED,
 *   rateLimitExceeded) → rate limited, for Retry-After or a minute.
 */
import { DateTime } from 'luxon';
import { type PlatformAnswer, summarise } from '../../platform-http.js';
import type { PlatformHooks } from '../http.js';

export interface GoogleError {
  code?: number;
  message?: string;
  status?: string;
  /** Every reason named, old style and new. */
  reasons: string[];
  /** ErrorInfo's `quota_limit_value`, when the refusal is a quota. */
  quotaLimit?: string;
  /** ErrorInfo's `service` or `consumer`, when named (an API not enabled). */
  service?: string;
}

export function googleErrorOf(answer: Pick<PlatformAnswer, 'json'>): GoogleError | undefined {
  const error = (answer.json as { error?: unknown } | undefined)?.error;
  if (!error || typeof error !== 'object') return undefined;
  const value = error as Record<string, unknown>;
  const reasons: string[] = [];
  let quotaLimit: string | undefined;
  let service: string | undefined;
  for (const list of [value.errors, value.details]) {
    if (!Array.isArray(list)) continue;
    for (const item of list as Record<string, unknown>[]) {
      if (typeof item?.reason === 'string') reasons.push(item.reason);
      const metadata = item?.metadata as Record<string, unknown> | undefined;
      if (typeof metadata?.quota_limit_value === 'string') quotaLimit = metadata.quota_limit_value;
      if (typeof metadata?.service === 'string') service = metadata.service;
    }
  }
  return {
    ...(typeof value.code === 'number' ? { code: value.code } : {}),
    ...(typeof value.message === 'string' ? { message: value.message } : {}),
    ...(typeof value.status === 'string' ? { status: value.status } : {}),
    reasons,
    ...(quotaLimit === undefined ? {} : { quotaLimit }),
    ...(service === undefined ? {} : { service }),
  };
}

/** What Google said: its message, with the status and the first reason. */
export function googleSaid(answer: PlatformAnswer): string {
  const error = googleErrorOf(answer);
  if (!error?.message) return summarise(answer.text) || `HTTP ${answer.status}`;
  const tags = [error.status, error.reasons[0]].filter((tag) => tag !== undefined);
  return tags.length > 0 ? `${error.message} (${[...new Set(tags)].join(', ')})` : error.message;
}

const has = (error: GoogleError | undefined, ...reasons: string[]) =>
  reasons.some((reason) => error?.reasons.includes(reason));

/** Google resets daily quotas at midnight Pacific time. */
export function nextPacificMidnightMs(nowMs: number): number {
  return DateTime.fromMillis(nowMs, { zone: 'America/Los_Angeles' })
    .plus({ days: 1 })
    .startOf('day')
    .toMillis();
}

export function googleHooks(platform: {
  name: string;
  reconnect: string;
  /** What to do when the project's quota is 0 (access not approved yet). */
  notApproved: string;
}): PlatformHooks {
  const again = `run \`${platform.reconnect}\` again`;
  return {
    name: platform.name,
    said: googleSaid,
    quirk: (answer, said, call) => {
      const error = googleErrorOf(answer);
      if (has(error, 'ACCESS_TOKEN_SCOPE_INSUFFICIENT', 'insufficientPermissions')) {
        return {
          kind: 'reconnect',
          reason: `${platform.name} refused the ${call.what} of ${call.account} for want of a permission (${said}): ${again} and approve every permission Google asks for.`,
        };
      }
      if (has(error, 'SERVICE_DISABLED', 'accessNotConfigured')) {
        return {
          kind: 'refused',
          reason: `${platform.name} refused the ${call.what}: an API the program needs is not enabled in the app's Google Cloud project (${said}). Enable ${error?.service ?? 'it'} in the project's APIs & Services, then publish again.`,
        };
      }
      if (error?.quotaLimit === '0') {
        return {
          kind: 'refused',
          reason: `${platform.name} refused the ${call.what}: the app's Google Cloud project has no quota for this API yet (${said}). ${platform.notApproved}`,
        };
      }
      if (has(error, 'quotaExceeded', 'dailyLimitExceeded', 'uploadLimitExceeded')) {
        return { kind: 'rate_limited', retryAfterMs: nextPacificMidnightMs(call.nowMs) - call.nowMs };
      }
      if (
        answer.status === 429 ||
        error?.status === 'RESOURCE_EXHAUSTED' ||
        has(error, 'rateLimitExceeded', 'userRateLimitExceeded')
      ) {
        return { kind: 'rate_limited' };
      }
      return undefined;
    },
    wording: {
      reconnect: (call, said) =>
        `${platform.name} refused the sign-in of ${call.account} (${said}): ${again} to reconnect the channel.`,
      unanswered: (call, message) =>
        `${platform.name} (${call.address}) did not answer the ${call.what} (${message}): it may have been published, so it is not sent again blindly. Look at ${call.account} and publish again if it is not there.`,
    },
  };
}
