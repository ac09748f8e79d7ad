/** The retry policy's pure rules: backoff with jitter, Retry-After, which failures are worth retrying. */
import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  describeTransportFailure,
  isRetryableStatus,
  retryAfterDelay,
} from '../../src/remote/retry-policy.js';

const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000 };

describe('backoffDelay', () => {
  it('doubles the step with each retry; jitter keeps each wait between half and all of it', () => {
    const lowest = [1, 2, 3, 4].map((retry) => backoffDelay(retry, policy, () => 0));
    const highest = [1, 2, 3, 4].map((retry) => backoffDelay(retry, policy, () => 1));
    expect(lowest).toEqual([50, 100, 200, 400]);
    expect(highest).toEqual([100, 200, 400, 800]);
    expect(backoffDelay(2, policy, () => 0.5)).toBe(150);
  });

  it('never waits longer than maxDelayMs', () => {
    expect(backoffDelay(5, policy, () => 1)).toBe(1000);
    expect(backoffDelay(60, policy, () => 1)).toBe(1000);
    expect(backoffDelay(60, policy, () => 0)).toBe(500);
  });

  it('spreads the waits of clients that failed together', () => {
    const waits = new Set(Array.from({ length: 50 }, () => backoffDelay(3, policy)));
    expect(waits.size).toBeGreaterThan(10);
    for (const wait of waits) {
      expect(wait).toBeGreaterThanOrEqual(200);
      expect(wait).toBeLessThanOrEqual(400);
    }
  });
});

describe('retryAfterDelay', () => {
  const now = Date.UTC(2026, 10, 21, 12, 0, 0);

  it('reads seconds and HTTP dates, capped at maxDelayMs', () => {
    expect(retryAfterDelay('2', 5000, now)).toBe(2000);
    expect(retryAfterDelay(' 0 ', 5000, now)).toBe(0);
    expect(retryAfterDelay('3600', 5000, now)).toBe(5000);
    expect(retryAfterDelay(new Date(now + 3000).toUTCString(), 5000, now)).toBe(3000);
    expect(retryAfterDelay(new Date(now - 3000).toUTCString(), 5000, now)).toBe(0);
    expect(retryAfterDelay(['4', '9'], 5000, now)).toBe(4000);
  });

  it('leaves an absent or unreadable header to the backoff', () => {
    expect(retryAfterDelay(undefined, 5000, now)).toBeUndefined();
    expect(retryAfterDelay('', 5000, now)).toBeUndefined();
    expect(retryAfterDelay('soon', 5000, now)).toBeUndefined();
    expect(retryAfterDelay('-1', 5000, now)).toBeUndefined();
  });
});

describe('what is retried', () => {
  it('retries 429 and 5xx answers only', () => {
    expect([429, 500, 502, 503, 504, 599].every(isRetryableStatus)).toBe(true);
    expect([200, 201, 400, 401, 404, 409, 422, 600].some(isRetryableStatus)).toBe(false);
  });

  it('retries network failures and timeouts, not a closed client or a bad argument', () => {
    const failure = (code: string, message = 'boom') =>
      describeTransportFailure(Object.assign(new Error(message), { code }), 200);
    expect(failure('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9')).toEqual({
      description: 'the connection was refused (connect ECONNREFUSED 127.0.0.1:9)',
      retryable: true,
    });
    expect(failure('ECONNRESET').retryable).toBe(true);
    expect(failure('UND_ERR_SOCKET').retryable).toBe(true);
    expect(failure('UND_ERR_CONNECT_TIMEOUT').description).toMatch(/^no connection within 200 ms/);
    expect(failure('UND_ERR_HEADERS_TIMEOUT')).toEqual({
      description: 'no answer within 200 ms',
      retryable: true,
    });
    expect(failure('UND_ERR_BODY_TIMEOUT').retryable).toBe(true);
    expect(failure('UND_ERR_CLOSED')).toEqual({ description: 'the client is closed', retryable: false });
    expect(failure('UND_ERR_INVALID_ARG').retryable).toBe(false);
    expect(describeTransportFailure(new TypeError('bad'), 200).retryable).toBe(false);
    const refusedEverywhere = new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]);
    expect(describeTransportFailure(refusedEverywhere, 200).retryable).toBe(true);
  });
});
