/**
 * What a platform's HTTP answer means, decided once for every connector and the webhook (style.md rule
 * 13): a failure becomes one of the kinds the engine acts on, and every answer's rate-limit headers
 * become the account's `RateLimitState`.
 *
 * - 401 (and what the platform's hook calls a revoked credential) → `reconnect`;
 * - 429 → `rate_limited`, waiting as long as Retry-After (seconds or an HTTP date), the platform's reset
 *   header or its hook (Telegram's `retry_after` in the body) says;
 * - 408 and 5xx → `transient`;
 * - any other refusal → `refused`, with the platform's own words (its hook reads its error shape);
 * - a request that never left → `transient`; one that left and got no answer → `unknown` (it may have
 *   been carried out), unless sending it again is harmless (an upload: nothing public yet).
 *
 * No reason carries a secret: each one given is replaced wherever it appears.
 */
import { isServiceError, ValidationError } from '../../domain/errors.js';
import type { FailedOutcome, FailureKind, RateLimitState } from '../../ports.js';
import {
  headerValue,
  hideSecrets,
  type PlatformAnswer,
  PlatformUnreachable,
  resetAtMs,
  retryAfterMs,
  summarise,
} from '../platform-http.js';

/** A platform's own reading of a refusal, before the shared rules; what it leaves out, they decide. */
export interface PlatformQuirk {
  /** The status the platform means, when its body says another than HTTP's (Telegram's `error_code`). */
  status?: number;
  /** The kind, when the platform says more than its status (a 403 about a revoked token: `reconnect`). */
  kind?: FailureKind;
  /** The wait the platform names outside the headers (Telegram's `retry_after`). */
  retryAfterMs?: number;
  /** The reason, when this refusal needs words of its own. */
  reason?: string;
}

/** What one failed call was, for its reason. */
export interface FailedCall {
  /** What was being sent: `status`, `media upload`, `post`. */
  what: string;
  /** Where it was sent, for a reason about reaching the platform: its origin or API root. */
  address: string;
  /** Whom the platform limits or refuses: `@name@instance`, a handle. */
  account: string;
  nowMs: number;
  /** Never repeated in a reason. */
  secrets: readonly string[];
  /** Sending it again is harmless (an upload creates nothing public): an unanswered request is transient. */
  repeatable?: boolean;
}

/** The reason of each kind, worded for one call; a platform replaces those it words its own way. */
export interface FailureWording {
  reconnect(call: FailedCall, said: string): string;
  rateLimited(call: FailedCall, said: string): string;
  transient(call: FailedCall, said: string, status: number): string;
  refused(call: FailedCall, said: string): string;
  /** The request never left (a refused connection, an unknown host). */
  unreachable(call: FailedCall, message: string): string;
  /** The request left and no answer came: it may have been carried out. */
  unanswered(call: FailedCall, message: string): string;
  /** The same, for a request whose repetition is harmless. */
  unansweredRepeatable(call: FailedCall, message: string): string;
}

/** The small per-platform part of the classification. */
export interface PlatformHooks {
  /** The platform's name, as reasons begin: `Mastodon`. */
  name: string;
  /** What the platform said in a refusal, from its error's shape. Default: the body's first line. */
  said?(answer: PlatformAnswer): string;
  quirk?(answer: PlatformAnswer, said: string, call: FailedCall): PlatformQuirk | undefined;
  wording?: Partial<FailureWording>;
  /** What replaces a secret in a reason. Default `<secret>`. */
  mask?: string;
}

function defaultWording(name: string): FailureWording {
  return {
    reconnect: (call, said) =>
      `${name} refused the credentials of ${call.account} (${said}): connect the channel again.`,
    rateLimited: (call, said) => `${name} is rate limiting ${call.account} (${said}).`,
    transient: (call, said, status) => `${name} failed the ${call.what} (HTTP ${status}: ${said}).`,
    refused: (call, said) => `${name} refused the ${call.what}: ${said}`,
    unreachable: (call, message) => `${name} (${call.address}) could not be reached: ${message}.`,
    unanswered: (call, message) =>
      `${name} (${call.address}) did not answer the ${call.what} (${message}): it may have been carried out.`,
    unansweredRepeatable: (call, message) =>
      `${name} (${call.address}) did not answer the ${call.what} (${message}).`,
  };
}

/** What a platform said, as the hook reads it, or the body's first line, or the status. */
export function platformSaid(answer: PlatformAnswer, hooks: Pick<PlatformHooks, 'said'>): string {
  return hooks.said?.(answer) || summarise(answer.text) || `HTTP ${answer.status}`;
}

/**
 * The one classification: a refusal (an answer that is not 2xx) or a request that got no answer,
 * turned into the failure the engine acts on, with the account's rate limit when the answer told it.
 */
export function classifyHttpFailure(
  failure: PlatformAnswer | PlatformUnreachable,
  hooks: PlatformHooks,
  call: FailedCall,
): FailedOutcome {
  const words = { ...defaultWording(hooks.name), ...hooks.wording };
  const outcome = (kind: FailureKind, reason: string, extra: Partial<FailedOutcome> = {}): FailedOutcome => ({
    ok: false,
    kind,
    reason: hideSecrets(reason, call.secrets, hooks.mask),
    ...extra,
  });
  if (failure instanceof PlatformUnreachable) {
    if (!failure.sent) return outcome('transient', words.unreachable(call, failure.message));
    return call.repeatable
      ? outcome('transient', words.unansweredRepeatable(call, failure.message))
      : outcome('unknown', words.unanswered(call, failure.message));
  }
  const said = hideSecrets(platformSaid(failure, hooks), call.secrets, hooks.mask);
  const quirk = hooks.quirk?.(failure, said, call) ?? {};
  const status = quirk.status ?? failure.status;
  const limit = rateLimitOf(failure.headers, call.nowMs);
  const extra: Partial<FailedOutcome> = limit ? { limit } : {};
  const kind: FailureKind =
    quirk.kind ??
    (status === 401
      ? 'reconnect'
      : status === 429
        ? 'rate_limited'
        : status === 408 || status >= 500
          ? 'transient'
          : 'refused');
  if (kind === 'rate_limited') {
    extra.retryAfterMs = quirk.retryAfterMs ?? retryAfterMs(failure.headers, call.nowMs) ?? null;
  }
  const reason =
    quirk.reason ??
    {
      reconnect: () => words.reconnect(call, said),
      rate_limited: () => words.rateLimited(call, said),
      transient: () => words.transient(call, said, status),
      refused: () => words.refused(call, said),
      unknown: () => words.unanswered(call, said),
    }[kind]();
  return outcome(kind, reason, extra);
}

/**
 * The account's rate limit as an answer's headers tell it: Mastodon's `X-RateLimit-Remaining` and
 * `X-RateLimit-Reset` (an ISO time), Bluesky's `RateLimit-Remaining` and `RateLimit-Reset` (unix
 * seconds), X's `x-rate-limit-*` (unix seconds), or any other such pair. Undefined unless both are there
 * and readable.
 */
export function rateLimitOf(
  headers: Record<string, string | string[] | undefined> | undefined,
  nowMs: number,
): RateLimitState | undefined {
  if (!headers) return undefined;
  for (const prefix of ['x-ratelimit-', 'ratelimit-', 'x-rate-limit-']) {
    const remaining = headerValue(headers, `${prefix}remaining`);
    const reset = resetAtMs(headerValue(headers, `${prefix}reset`), nowMs);
    if (remaining !== undefined && /^\d+$/.test(remaining) && reset !== undefined) {
      return { remaining: Number(remaining), resetAtMs: reset };
    }
  }
  return undefined;
}

/** `{ limit }` when the headers tell the account's rate limit, else nothing: for an outcome's spread. */
export function limitOf(
  headers: Record<string, string | string[] | undefined> | undefined,
  nowMs: number,
): { limit?: RateLimitState } {
  const limit = rateLimitOf(headers, nowMs);
  return limit ? { limit } : {};
}

/**
 * A step's failure that is no answer of the platform's: a media file of the post that cannot be read
 * (refused, saying why), or anything unexpected, logged for the operator and, where the step creates
 * nothing public (`harmless`: an upload, a read), transient, else unknown. No secret reaches either.
 */
export function unexpectedFailure(
  error: unknown,
  step: {
    platform: string;
    what: string;
    account: string;
    harmless: boolean;
    secrets: readonly string[];
    log: (message: string) => void;
  },
): FailedOutcome {
  if (isServiceError(error)) {
    const detail =
      error instanceof ValidationError ? Object.values(error.errors).flat().join(' ') : error.message;
    return { ok: false, kind: 'refused', reason: `A media file of the post could not be read: ${detail}` };
  }
  const message = hideSecrets(error instanceof Error ? error.message : String(error), step.secrets);
  step.log(`${step.platform} ${step.what} for ${step.account} failed unexpectedly: ${message}`);
  return {
    ok: false,
    kind: step.harmless ? 'transient' : 'unknown',
    reason: `The ${step.platform} ${step.what} failed unexpectedly: ${message}`,
  };
}
