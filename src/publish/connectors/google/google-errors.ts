/**
 * How Google's APIs say no, shared by the Google connectors: the error body (`{ error: { code, message,
 * status, errors: [{ message, domain, reason }] } }`, the older `errors[]` list of the YouTube Data API,
 * or `details[]` of the RPC shape with `ErrorInfo.reason`), read once into what a hook decides on; and
 * when Google gives a day's quota back: midnight Pacific Time
 * (developers.google.com/youtube/v3/determine_quota_cost: "Daily quotas reset at midnight Pacific Time").
 */
import { instantsOfWallClock, localDateUtc } from '../../../domain/time.js';
import { type PlatformAnswer, summarise } from '../../platform-http.js';

interface GoogleErrorBody {
  error?: {
    code?: unknown;
    message?: unknown;
    status?: unknown;
    errors?: { message?: unknown; domain?: unknown; reason?: unknown }[];
    details?: { reason?: unknown }[];
  };
}

/** The reasons of Google's error body (`quotaExceeded`, `uploadLimitExceeded`, `SERVICE_DISABLED`). */
export function googleReasons(answer: PlatformAnswer): string[] {
  const error = (answer.json as GoogleErrorBody | undefined)?.error;
  if (typeof error !== 'object' || error === null) return [];
  const listed = [
    ...(Array.isArray(error.errors) ? error.errors : []),
    ...(Array.isArray(error.details) ? error.details : []),
  ];
  return listed
    .map((item) => item?.reason)
    .filter((reason): reason is string => typeof reason === 'string' && reason !== '');
}

/** What Google said: its message and its reasons (`The request cannot be completed… (quotaExceeded)`). */
export function googleSaid(answer: PlatformAnswer): string {
  const body = (answer.json ?? {}) as GoogleErrorBody & { error_description?: unknown };
  const error = body.error;
  if (typeof error === 'string') {
    // The OAuth shape: { error: "invalid_grant", error_description }.
    return typeof body.error_description === 'string' ? `${error}: ${body.error_description}` : error;
  }
  const message =
    typeof error?.message === 'string' && error.message ? error.message : summarise(answer.text);
  const reasons = [...new Set(googleReasons(answer))];
  if (!message) return reasons.join(', ') || `HTTP ${answer.status}`;
  const named = reasons.filter((reason) => !message.includes(reason));
  return named.length > 0 ? `${message} (${named.join(', ')})` : message;
}

const PACIFIC = 'America/Los_Angeles';
const DAY_MS = 86_400_000;

/** The next midnight in Pacific Time after `nowMs`: when Google gives a day's quota back. */
export function nextPacificMidnightMs(nowMs: number): number {
  const today = localDateUtc(nowMs, PACIFIC) ?? Math.floor(nowMs / DAY_MS) * DAY_MS;
  const tomorrow = new Date(today + DAY_MS);
  const [midnight] = instantsOfWallClock(
    {
      year: tomorrow.getUTCFullYear(),
      month: tomorrow.getUTCMonth() + 1,
      day: tomorrow.getUTCDate(),
      hour: 0,
      minute: 0,
      second: 0,
    },
    PACIFIC,
  );
  return midnight ?? today + DAY_MS + 8 * 3_600_000;
}
