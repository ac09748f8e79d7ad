/**
 * What Meta's Graph API (Facebook Pages now; Instagram and Threads later) shares: the API version, the
 * hosts, and how it says no, as hooks of the one classification (connectors/http.ts).
 *
 * - The version: GRAPH_API_VERSION unless a connection's settings name another (`graphVersion`). The
 *   Graph changelog (developers.facebook.com/docs/graph-api/changelog) lists v25.0 (2026-02-18,
 *   available until 2028-07-29) and v26.0 (2026-07-29); v25.0 is the newest one whose pages we read.
 * - Every error is `{ error: { message, type, code, error_subcode?, error_user_title?, error_user_msg?,
 *   is_transient?, fbtrace_id } }` (docs/graph-api/guides/error-handling), mostly with HTTP 400, even
 *   for throttling: the code decides, not the status.
 *   - 190 (and 102) the token is dead: reconnect, saying why (subcode 458 app removed, 459 checkpoint,
 *     460 password changed, 463 expired, 464 unconfirmed user, 467 invalid); 10 and 200–299 a
 *     permission is missing: reconnect, approving it.
 *   - 4 (app), 17 (user), 32 (Page), 613 (custom), 80001–80014 (business use case) and the subcode
 *     1390008 (posting too fast): rate_limited until the time Meta gives: Retry-After if sent, else the
 *     longest `estimated_time_to_regain_access` (minutes) of X-Business-Use-Case-Usage, else an hour
 *     (the platform limits are a rolling hour; Meta names no time then).
 *   - 1, 2 and `is_transient: true`: transient; 9007 (media not ready yet): transient (a connector that
 *     waits for processing asks `stillProcessing` first and answers pending).
 *   - 368 (blocked for policy) and the policy subcodes Meta uses for Pages (1404112 account limited,
 *     4854002 identity confirmation, 1404078 publishing authorization): refused with Meta's
 *     `error_user_msg`, else its message; 506 (duplicate post): refused.
 */

import type { RateLimitState } from '../../../ports.js';
import { headerValue, type PlatformAnswer, retryAfterMs, summarise } from '../../platform-http.js';
import { type PlatformHooks, rateLimitOf } from '../http.js';

/** The Graph API version sent unless the connection's settings name another (`graphVersion`). */
export const GRAPH_API_VERSION = 'v25.0';

export const GRAPH_API_ROOT = 'https://graph.facebook.com';
/** Where Meta takes video uploads when the API root is Meta's own. */
export const GRAPH_VIDEO_ROOT = 'https://graph-video.facebook.com';
/** Where Meta takes the bytes of a Reel or a video Story (the Reels publishing guide's upload step). */
export const RUPLOAD_ROOT = 'https://rupload.facebook.com';

/** The version of a connection: its `graphVersion` setting (`v25.0`, or `25.0`), else the default. */
export function graphVersionOf(settings: Record<string, unknown> | undefined): string {
  const wanted = settings?.graphVersion;
  if (typeof wanted === 'string' && /^v?\d+\.\d+$/.test(wanted.trim())) {
    const trimmed = wanted.trim();
    return trimmed.startsWith('v') ? trimmed : `v${trimmed}`;
  }
  return GRAPH_API_VERSION;
}

/** `https://host` of an address, http only to a loopback address (a local stand-in). */
export function graphOrigin(address: string, what: string): string {
  let url: URL;
  try {
    url = new URL(address.trim());
  } catch {
    throw new Error(`"${address}" is not a Meta ${what} address: give a URL like ${GRAPH_API_ROOT}.`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new Error(`The Meta ${what} address must use https, not ${url.protocol}`);
  }
  return url.origin;
}

/** The host of video uploads: graph-video.facebook.com for Meta's API root, else the root itself. */
export function videoRootOf(apiRoot: string): string {
  return apiRoot === GRAPH_API_ROOT ? GRAPH_VIDEO_ROOT : apiRoot;
}

/** The host of byte uploads (`/video-upload/{version}/{id}`): rupload for Meta's API root, else the root. */
export function ruploadRootOf(apiRoot: string): string {
  return apiRoot === GRAPH_API_ROOT ? RUPLOAD_ROOT : apiRoot;
}

/** The error of a Graph answer, as Meta's envelope has it. */
export interface GraphError {
  message?: string;
  type?: string;
  code?: number;
  subcode?: number;
  userTitle?: string;
  userMessage?: string;
  transient?: boolean;
}

export function graphErrorOf(answer: Pick<PlatformAnswer, 'json'>): GraphError | undefined {
  const error = (answer.json as { error?: Record<string, unknown> } | undefined)?.error;
  if (!error || typeof error !== 'object') return undefined;
  const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);
  const number = (value: unknown) =>
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d+$/.test(value)
        ? Number(value)
        : undefined;
  const read: GraphError = {};
  const fields: [keyof GraphError, unknown][] = [
    ['message', text(error.message)],
    ['type', text(error.type)],
    ['code', number(error.code)],
    ['subcode', number(error.error_subcode)],
    ['userTitle', text(error.error_user_title)],
    ['userMessage', text(error.error_user_msg)],
    ['transient', typeof error.is_transient === 'boolean' ? error.is_transient : undefined],
  ];
  for (const [key, value] of fields) if (value !== undefined) Object.assign(read, { [key]: value });
  return read;
}

/** What Meta said: its message for people (`error_user_msg`) or its message, with the code and subcode. */
export function graphSaid(answer: PlatformAnswer): string {
  const error = graphErrorOf(answer);
  // The upload host (rupload) answers `{ debug_info: { type, message } }` instead of the envelope.
  const debug = (answer.json as { debug_info?: { message?: unknown } } | undefined)?.debug_info?.message;
  if (!error && typeof debug === 'string' && debug.trim()) return debug.trim();
  if (!error) return summarise(answer.text) || `HTTP ${answer.status}`;
  const words = error.userMessage ?? error.message ?? `HTTP ${answer.status}`;
  const code =
    error.code === undefined
      ? ''
      : ` (code ${error.code}${error.subcode === undefined ? '' : `, subcode ${error.subcode}`})`;
  return `${words}${code}`;
}

const TOKEN_SUBCODES: Record<number, string> = {
  458: 'the app was removed from the account',
  459: 'the account is checkpointed: log in on facebook.com first',
  460: 'the password was changed',
  463: 'the sign-in expired',
  464: 'the account is not confirmed',
  467: 'the token is invalid',
  492: 'the session is invalid (the person may have lost their role on the Page)',
};

const RATE_LIMIT_CODES = new Set([4, 17, 32, 613]);
const POLICY_SUBCODES = new Set([1404112, 4854002, 1404078, 1404006]);
const HOUR_MS = 3_600_000;

/** Whether the code is one of Meta's rate limits (platform, Page, custom, business use case). */
export function isRateLimit(error: GraphError | undefined): boolean {
  if (!error) return false;
  const code = error.code ?? 0;
  return RATE_LIMIT_CODES.has(code) || (code >= 80_001 && code <= 80_014) || error.subcode === 1_390_008;
}

/** Media still being processed (9007, "not ready for publishing"): wait, then ask again. */
export function stillProcessing(answer: Pick<PlatformAnswer, 'json'>): boolean {
  const error = graphErrorOf(answer);
  return error?.code === 9007 || /not ready for publishing|still processing/i.test(error?.message ?? '');
}

type Headers = Record<string, string | string[] | undefined>;

function usageOf(headers: Headers, name: string): unknown {
  const value = headerValue(headers, name);
  if (!value) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/**
 * The usage Meta reports (docs/graph-api/overview/rate-limiting): X-App-Usage and X-Ad-Account-Usage
 * `{ call_count, total_cputime, total_time }` in percent, and X-Business-Use-Case-Usage
 * `{ <object id>: [{ type, call_count, total_cputime, total_time, estimated_time_to_regain_access }] }`
 * (minutes). The highest percentage, and the longest wait named.
 */
export function metaUsage(headers: Headers): { percent: number; regainMinutes: number } | undefined {
  const entries: Record<string, unknown>[] = [];
  const app = usageOf(headers, 'x-app-usage');
  if (app && typeof app === 'object') entries.push(app as Record<string, unknown>);
  const business = usageOf(headers, 'x-business-use-case-usage');
  if (business && typeof business === 'object') {
    for (const list of Object.values(business as Record<string, unknown>)) {
      if (Array.isArray(list)) entries.push(...list.filter((item) => item && typeof item === 'object'));
    }
  }
  if (entries.length === 0) return undefined;
  let percent = 0;
  let regainMinutes = 0;
  for (const entry of entries) {
    for (const key of ['call_count', 'total_cputime', 'total_time']) {
      const value = Number(entry[key]);
      if (Number.isFinite(value)) percent = Math.max(percent, value);
    }
    const regain = Number(entry.estimated_time_to_regain_access);
    if (Number.isFinite(regain)) regainMinutes = Math.max(regainMinutes, regain);
  }
  return { percent, regainMinutes };
}

/**
 * The account's limit as Meta's headers tell it: spent (`remaining: 0`) once a usage reaches 100 % or
 * Meta names a time to regain access, until then; or the kit's and others' standard headers. Meta gives
 * no count of requests left, so a usage under 100 % says nothing to space sends by.
 */
export function metaLimitOf(headers: Headers | undefined, nowMs: number): { limit?: RateLimitState } {
  if (!headers) return {};
  const usage = metaUsage(headers);
  if (usage && (usage.regainMinutes > 0 || usage.percent >= 100)) {
    const wait = usage.regainMinutes > 0 ? usage.regainMinutes * 60_000 : HOUR_MS;
    return { limit: { remaining: 0, resetAtMs: nowMs + wait } };
  }
  const standard = rateLimitOf(headers, nowMs);
  return standard ? { limit: standard } : {};
}

/** How long a throttled account waits: Retry-After, Meta's time to regain access, else an hour. */
export function metaWaitMs(answer: PlatformAnswer, nowMs: number): number {
  const named = retryAfterMs(answer.headers, nowMs);
  if (named !== undefined) return named;
  const usage = metaUsage(answer.headers);
  if (usage && usage.regainMinutes > 0) return usage.regainMinutes * 60_000;
  return HOUR_MS;
}

/** A Meta platform's hooks: its name in reasons and the command that reconnects it. */
export function metaHooks(platform: { name: string; reconnect: string; permissions: string }): PlatformHooks {
  const again = `run \`${platform.reconnect}\` again`;
  return {
    name: platform.name,
    said: graphSaid,
    quirk: (answer, said, call) => {
      const error = graphErrorOf(answer);
      const code = error?.code;
      if (code === 190 || code === 102) {
        const why = error?.subcode === undefined ? undefined : TOKEN_SUBCODES[error.subcode];
        return {
          kind: 'reconnect',
          reason: `${platform.name} no longer accepts the sign-in of ${call.account}${why ? `: ${why}` : ''} (${said}). ${again} to reconnect the channel.`,
        };
      }
      if (code === 10 || (code !== undefined && code >= 200 && code <= 299)) {
        return {
          kind: 'reconnect',
          reason: `${platform.name} refused the ${call.what} of ${call.account} for want of a permission (${said}): ${again} and approve ${platform.permissions}.`,
        };
      }
      if (isRateLimit(error) || answer.status === 429) {
        return { kind: 'rate_limited', retryAfterMs: metaWaitMs(answer, call.nowMs) };
      }
      if (code === 368 || (error?.subcode !== undefined && POLICY_SUBCODES.has(error.subcode))) {
        return {
          kind: 'refused',
          reason: `${platform.name} blocked the ${call.what} of ${call.account} for its policies: ${said}`,
        };
      }
      if (code === 506) {
        return {
          kind: 'refused',
          reason: `${platform.name} refused the ${call.what} as a duplicate of the last one (${said}).`,
        };
      }
      if (code === 1 || code === 2 || code === 9007 || error?.transient === true) {
        return { kind: 'transient' };
      }
      return undefined;
    },
    wording: {
      reconnect: (call, said) =>
        `${platform.name} refused the sign-in of ${call.account} (${said}): ${again} to reconnect the channel.`,
      rateLimited: (call, said) => `${platform.name} is rate limiting ${call.account} (${said}).`,
      unanswered: (call, message) =>
        `${platform.name} (${call.address}) did not answer the ${call.what} (${message}): it may have been published, so it is not sent again blindly (${platform.name} has no idempotency key). Look at ${call.account} and publish again if it is not there.`,
    },
  };
}
