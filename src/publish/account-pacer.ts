/**
 * Each account's rate limit as its platform last told it (limit headers on every answer, a 429's wait),
 * so that the engine spaces that account's sends, and only that account's: a job of an account with no
 * request left until its reset waits for the reset instead of being sent to a sure 429. Kept per
 * channel (a connection is one account on one channel) in this process; what one process learns also
 * reaches the store, where the account's waiting jobs are postponed (`JobStore.postponeChannel`), so the
 * other processes wait too.
 */
import type { RateLimitState } from '../ports.js';

export class AccountPacer {
  private readonly limits = new Map<number, RateLimitState>();

  /** When a job of this channel may be sent, if not now. */
  blockedUntil(channelId: number, nowMs: number): number | undefined {
    const limit = this.limits.get(channelId);
    if (!limit) return undefined;
    if (limit.resetAtMs <= nowMs) {
      this.limits.delete(channelId);
      return undefined;
    }
    return limit.remaining <= 0 ? limit.resetAtMs : undefined;
  }

  /** A request of this channel is about to go: one fewer left. */
  spend(channelId: number): void {
    const limit = this.limits.get(channelId);
    if (limit) limit.remaining--;
  }

  /**
   * What an answer said: the remaining requests until the reset; a 429 without headers says none are
   * left until its wait is over. Returns the reset when the account has nothing left, for the store.
   */
  learn(channelId: number, limit: RateLimitState | undefined, nowMs: number): number | undefined {
    if (!limit || limit.resetAtMs <= nowMs) return undefined;
    this.limits.set(channelId, { ...limit });
    return limit.remaining <= 0 ? limit.resetAtMs : undefined;
  }
}
