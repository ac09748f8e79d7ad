/**
 * The rate limit a fake platform keeps per account: `limit` requests per window, counted down by every
 * request of the account and given back when the window ends. Each answer to the account carries the
 * platform's headers for the counters (X-RateLimit-* on Mastodon, RateLimit-* on Bluesky); a request
 * when none is left gets the platform's 429.
 */

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** When the window ends and the account gets its requests back (ms, the kit's clock). */
  resetAtMs: number;
}

export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  /** The platform's headers for the state after the request. */
  headers(state: RateLimitState): Record<string, string>;
}

export class RateLimits {
  private readonly accounts = new Map<string, RateLimitState>();

  constructor(
    private readonly options: RateLimitOptions | undefined,
    private readonly now: () => number,
  ) {}

  /** Sets an account's counters (a test that starts near the limit). */
  set(account: string, state: Partial<RateLimitState>): void {
    this.accounts.set(account, { ...this.current(account), ...state });
  }

  /** The account's counters now; undefined when the platform keeps none. */
  stateOf(account: string): RateLimitState | undefined {
    return this.options ? { ...this.current(account) } : undefined;
  }

  /**
   * Counts one request of the account: its state after the request, and whether it was over the limit.
   * Undefined when the platform keeps no rate limit.
   */
  count(account: string): { state: RateLimitState; over: boolean } | undefined {
    if (!this.options) return undefined;
    const state = this.current(account);
    const over = state.remaining <= 0;
    if (!over) state.remaining -= 1;
    this.accounts.set(account, state);
    return { state: { ...state }, over };
  }

  headersOf(state: RateLimitState): Record<string, string> {
    return this.options?.headers(state) ?? {};
  }

  private current(account: string): RateLimitState {
    const { limit, windowMs } = this.options ?? { limit: 0, windowMs: 0 };
    const known = this.accounts.get(account);
    const now = this.now();
    if (known && now < known.resetAtMs) return known;
    return { limit, remaining: limit, resetAtMs: now + windowMs };
  }
}
