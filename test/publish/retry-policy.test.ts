/** What the engine does after a failed send, by the failure's kind. */
import { describe, expect, it } from 'vitest';
import { decideAfterFailure, RETRY_POLICY } from '../../src/publish/retry-policy.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');

describe('decideAfterFailure', () => {
  it("fails refused content with the platform's own words, and bad credentials asking to reconnect", () => {
    expect(
      decideAfterFailure({ kind: 'refused', reason: 'Text character limit of 500 exceeded' }, 1, true, NOW),
    ).toEqual({
      action: 'fail',
      reason: 'Text character limit of 500 exceeded',
      reconnect: false,
    });
    expect(decideAfterFailure({ reason: 'no kind' }, 1, true, NOW)).toMatchObject({
      action: 'fail',
      reconnect: false,
    });
    expect(decideAfterFailure({ kind: 'reconnect', reason: 'revoked' }, 1, true, NOW)).toMatchObject({
      action: 'fail',
      reconnect: true,
    });
  });

  it('waits as long as a rate limit asks (bounded), then gives up after its attempts', () => {
    const decision = decideAfterFailure(
      { kind: 'rate_limited', reason: 'Too many', retryAfterMs: 7000 },
      1,
      false,
      NOW,
    );
    expect(decision).toMatchObject({ action: 'retry', atMs: NOW + 7000 });
    expect(decision.reason).toBe(
      `Attempt 1 of ${RETRY_POLICY.rateLimitedAttempts} failed: Too many. Trying again at 2026-11-22T10:00:07.000Z.`,
    );
    expect(decideAfterFailure({ kind: 'rate_limited', reason: 'x' }, 1, false, NOW)).toMatchObject({
      atMs: NOW + RETRY_POLICY.rateLimitDelayMs,
    });
    expect(
      decideAfterFailure({ kind: 'rate_limited', reason: 'x', retryAfterMs: 1e9 }, 1, false, NOW),
    ).toMatchObject({
      atMs: NOW + RETRY_POLICY.maxRateLimitDelayMs,
    });
    expect(
      decideAfterFailure({ kind: 'rate_limited', reason: 'x' }, RETRY_POLICY.rateLimitedAttempts, false, NOW),
    ).toMatchObject({
      action: 'fail',
      reason: `x. Gave up after ${RETRY_POLICY.rateLimitedAttempts} attempts.`,
    });
  });

  it('backs off transient faults with growing waits, and gives up after its attempts', () => {
    const waits = [1, 2, 3].map((attempt) => {
      const decision = decideAfterFailure({ kind: 'transient', reason: '503' }, attempt, false, NOW);
      if (decision.action !== 'retry') throw new Error('expected a retry');
      return decision.atMs - NOW;
    });
    expect(waits[0]).toBeGreaterThanOrEqual(RETRY_POLICY.baseDelayMs / 2);
    expect(waits[0]).toBeLessThanOrEqual(RETRY_POLICY.baseDelayMs);
    expect(waits[2]).toBeGreaterThanOrEqual(RETRY_POLICY.baseDelayMs * 2);
    expect(
      decideAfterFailure({ kind: 'transient', reason: '503' }, RETRY_POLICY.transientAttempts, false, NOW),
    ).toMatchObject({ action: 'fail' });
  });

  it('repeats a send of unknown outcome only where the platform deduplicates', () => {
    expect(
      decideAfterFailure({ kind: 'unknown', reason: 'no answer within 30000 ms' }, 1, true, NOW),
    ).toMatchObject({
      action: 'retry',
    });
    const once = decideAfterFailure({ kind: 'unknown', reason: 'no answer within 30000 ms' }, 1, false, NOW);
    expect(once).toMatchObject({ action: 'fail', reconnect: false });
    expect(once.reason).toMatch(/it was not sent again, to avoid a duplicate: check the channel/);
  });
});
