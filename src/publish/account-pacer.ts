/**
 * Each account's rate limit as its platform last told it (limit headers on every answer, a 429's wait),
 * so that the engine spaces that account's sends, and only that account's: a job of an account with no
 * request left until its reset waits for the reset instead of being sent to a sure 429. What one process
 * learns reaches the store (`JobStore.limitAccount`, and the account's waiting jobs postponed), which
 * every process reads at most once a second, so the others wait too. Kept per channel: a connection is
 * one account on one channel.
 */
import type { JobStore, RateLimitState } from '../ports.js';

/** How long the accounts limited in the store are taken as read. */
const STORED_FOR_MS = 1_000;

export class AccountPacer {
  private readonly limits = new Map<number, RateLimitState>();
  private stored = new Map<number, number>();
  private storedAtMs = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;

  constructor(private readonly jobs: Pick<JobStore, 'accountLimits'>) {}

  /** When a job of this channel may be sent, if not now. */
  async blockedUntil(channelId: number, nowMs: number): Promise<number | undefined> {
    if (nowMs - this.storedAtMs >= STORED_FOR_MS || nowMs < this.storedAtMs) {
      this.reading ??= this.jobs.accountLimits(nowMs).then(
        (stored) => {
          this.stored = stored;
          this.storedAtMs = nowMs;
        },
        () => undefined,
      );
      await this.reading.finally(() => {
        this.reading = undefined;
      });
    }
    const stored = this.stored.get(channelId);
    const local = this.localUntil(channelId, nowMs);
    const until = Math.max(local ?? 0, stored !== undefined && stored > nowMs ? stored : 0);
    return until > 0 ? until : undefined;
  }

  private localUntil(channelId: number, nowMs: number): number | undefined {
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
    if (limit.remaining > 0) return undefined;
    this.stored.set(channelId, Math.max(this.stored.get(channelId) ?? 0, limit.resetAtMs));
    return limit.resetAtMs;
  }
}
