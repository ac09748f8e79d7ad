/**
 * What the engine does with a failed send, decided by the failure's kind (ports.ts `FailureKind`), never
 * by a platform's status code: wait and send again (rate limits, transient faults, an unknown outcome on
 * a platform that deduplicates), or give up with a reason that says what to do.
 */
import type { FailureKind, Store } from '../ports.js';

export const RETRY_POLICY = {
  /**
   * Attempts in all for transient faults (and unknown outcomes that may be repeated): the waits between
   * them reach the 15 min cap twice: 23 to 45 min from the first to the last.
   */
  transientAttempts: 8,
  /** Attempts in all while the platform keeps saying "too many requests". */
  rateLimitedAttempts: 12,
  /** Wait before the second attempt after a transient fault, doubled for each further one. */
  baseDelayMs: 30_000,
  maxDelayMs: 15 * 60_000,
  /** Wait after a rate limit that did not say how long. */
  rateLimitDelayMs: 60_000,
  /** Longest wait a rate limit is granted; a platform asking for more is waited for that long, again. */
  maxRateLimitDelayMs: 60 * 60_000,
};

export type FailureDecision =
  | { action: 'retry'; atMs: number; reason: string }
  | { action: 'fail'; reason: string; reconnect: boolean };

/**
 * `attempt` is the attempt that failed (1 for the first); `idempotent` says whether the platform
 * deduplicates, which alone makes it safe to repeat a send whose outcome is unknown.
 */
export function decideAfterFailure(
  failure: { kind?: FailureKind | undefined; reason: string; retryAfterMs?: number | null | undefined },
  attempt: number,
  idempotent: boolean,
  nowMs: number,
): FailureDecision {
  const kind = failure.kind ?? 'refused';
  const { reason } = failure;
  switch (kind) {
    case 'reconnect':
      return { action: 'fail', reason, reconnect: true };
    case 'refused':
      return { action: 'fail', reason, reconnect: false };
    case 'rate_limited': {
      if (attempt >= RETRY_POLICY.rateLimitedAttempts) return giveUp(reason, attempt);
      const waitMs = Math.min(
        RETRY_POLICY.maxRateLimitDelayMs,
        Math.max(1000, failure.retryAfterMs ?? RETRY_POLICY.rateLimitDelayMs),
      );
      return retry(reason, attempt, nowMs + waitMs, RETRY_POLICY.rateLimitedAttempts);
    }
    case 'unknown':
      if (!idempotent) {
        return {
          action: 'fail',
          reason: `${withStop(reason)} Whether it arrived is unknown, and this platform cannot recognise a repeated send, so it was not sent again, to avoid a duplicate: check the channel, then publish again if it is missing.`,
          reconnect: false,
        };
      }
      return transient(reason, attempt, nowMs);
    case 'transient':
      return transient(reason, attempt, nowMs);
  }
}

/**
 * What a failure recorded on a delivery or comment does to its channel: its last error is kept, and bad
 * credentials turn it INACTIVE with the reason. Runs in the transaction that recorded the failure.
 */
export async function recordChannelFailure(
  store: Store,
  channelId: number,
  decision: FailureDecision,
  nowMs: number,
): Promise<void> {
  await store.connections.recordError(channelId, decision.reason, nowMs);
  if (decision.action === 'fail' && decision.reconnect) {
    await store.setChannelStatus(channelId, 'INACTIVE', decision.reason, nowMs);
  }
}

function transient(reason: string, attempt: number, nowMs: number): FailureDecision {
  if (attempt >= RETRY_POLICY.transientAttempts) return giveUp(reason, attempt);
  const ceiling = Math.min(RETRY_POLICY.maxDelayMs, RETRY_POLICY.baseDelayMs * 2 ** (attempt - 1));
  // Half fixed so that waits grow, half random so that sends failing together spread out.
  const waitMs = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  return retry(reason, attempt, nowMs + waitMs, RETRY_POLICY.transientAttempts);
}

function retry(reason: string, attempt: number, atMs: number, attempts: number): FailureDecision {
  return {
    action: 'retry',
    atMs,
    reason: `Attempt ${attempt} of ${attempts} failed: ${withStop(reason)} Trying again at ${new Date(atMs).toISOString()}.`,
  };
}

function giveUp(reason: string, attempt: number): FailureDecision {
  return {
    action: 'fail',
    reason: `${withStop(reason)} Gave up after ${attempt} attempts.`,
    reconnect: false,
  };
}

function withStop(text: string): string {
  return /[.!?…]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}
