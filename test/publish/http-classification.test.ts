/**
 * The one classification of platform answers (src/publish/connectors/http.ts): each status and each
 * unanswered request becomes the kind the engine acts on, with the wait and the account's rate limit the
 * answer names, in the platform's words where its hooks give them, and never with a secret.
 */
import { describe, expect, it } from 'vitest';
import {
  classifyHttpFailure,
  type FailedCall,
  type PlatformHooks,
  rateLimitOf,
} from '../../src/publish/connectors/http.js';
import { type PlatformAnswer, PlatformUnreachable } from '../../src/publish/platform-http.js';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const SECRET = 'tok-3f9a1c';
const call: FailedCall = {
  what: 'status',
  address: 'https://social.example',
  account: '@ada@social.example',
  nowMs: NOW,
  secrets: [SECRET],
};
const hooks: PlatformHooks = {
  name: 'Example',
  said: (answer) => String((answer.json as { error?: string } | undefined)?.error ?? ''),
};
const answer = (status: number, error = 'Nope', headers: PlatformAnswer['headers'] = {}): PlatformAnswer => ({
  status,
  headers,
  text: JSON.stringify({ error }),
  json: { error },
});

describe('classifyHttpFailure', () => {
  it('401 asks for a reconnect; 408 and 5xx are transient; any other refusal is refused', () => {
    expect(classifyHttpFailure(answer(401, 'The access token is invalid'), hooks, call)).toEqual({
      ok: false,
      kind: 'reconnect',
      reason:
        'Example refused the credentials of @ada@social.example (The access token is invalid): connect the channel again.',
    });
    for (const status of [408, 500, 502, 503, 504]) {
      expect(classifyHttpFailure(answer(status, 'Busy'), hooks, call)).toEqual({
        ok: false,
        kind: 'transient',
        reason: `Example failed the status (HTTP ${status}: Busy).`,
      });
    }
    for (const status of [400, 403, 404, 413, 422]) {
      expect(classifyHttpFailure(answer(status, 'Text too long'), hooks, call)).toEqual({
        ok: false,
        kind: 'refused',
        reason: 'Example refused the status: Text too long',
      });
    }
  });

  it('429 waits as long as Retry-After (seconds or an HTTP date) or the reset header says, else null', () => {
    const limited = (headers: PlatformAnswer['headers']) =>
      classifyHttpFailure(answer(429, 'Too many requests', headers), hooks, call);
    expect(limited({ 'retry-after': '30' })).toMatchObject({ kind: 'rate_limited', retryAfterMs: 30_000 });
    expect(limited({ 'retry-after': new Date(NOW + 90_000).toUTCString() })).toMatchObject({
      retryAfterMs: 90_000,
    });
    expect(limited({ 'x-ratelimit-reset': new Date(NOW + 45_000).toISOString() })).toMatchObject({
      retryAfterMs: 45_000,
    });
    expect(limited({})).toEqual({
      ok: false,
      kind: 'rate_limited',
      reason: 'Example is rate limiting @ada@social.example (Too many requests).',
      retryAfterMs: null,
    });
  });

  it("reads the account's rate limit from every refusal's headers", () => {
    const headers = {
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': new Date(NOW + 60_000).toISOString(),
    };
    expect(classifyHttpFailure(answer(422, 'Bad', headers), hooks, call)).toMatchObject({
      kind: 'refused',
      limit: { remaining: 0, resetAtMs: NOW + 60_000 },
    });
  });

  it('a request that never left is transient; one sent without an answer is unknown, or transient when repeatable', () => {
    expect(classifyHttpFailure(new PlatformUnreachable('connect ECONNREFUSED', false), hooks, call)).toEqual({
      ok: false,
      kind: 'transient',
      reason: 'Example (https://social.example) could not be reached: connect ECONNREFUSED.',
    });
    const lost = new PlatformUnreachable('no answer within 300 ms', true, true);
    expect(classifyHttpFailure(lost, hooks, call)).toEqual({
      ok: false,
      kind: 'unknown',
      reason:
        'Example (https://social.example) did not answer the status (no answer within 300 ms): it may have been carried out.',
    });
    expect(classifyHttpFailure(lost, hooks, { ...call, what: 'media upload', repeatable: true })).toEqual({
      ok: false,
      kind: 'transient',
      reason: 'Example (https://social.example) did not answer the media upload (no answer within 300 ms).',
    });
  });

  it('a quirk of the platform decides first: its status, its kind, its wait, its words', () => {
    const quirky: PlatformHooks = {
      ...hooks,
      mask: '<token>',
      quirk: (given, said) => {
        const { code, wait } = given.json as { code?: number; wait?: number };
        if (said.includes('revoked')) return { kind: 'reconnect' };
        if (code === 429) return { status: 429, retryAfterMs: (wait ?? 0) * 1000 };
        return undefined;
      },
      wording: { reconnect: (failed, said) => `Revoked for ${failed.account}: ${said}` },
    };
    expect(classifyHttpFailure(answer(403, 'Token revoked'), quirky, call)).toEqual({
      ok: false,
      kind: 'reconnect',
      reason: 'Revoked for @ada@social.example: Token revoked',
    });
    const inBody: PlatformAnswer = {
      status: 400,
      headers: {},
      text: '',
      json: { error: 'slow', code: 429, wait: 7 },
    };
    expect(classifyHttpFailure(inBody, quirky, call)).toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 7_000,
    });
  });

  it('never repeats a secret, in what the platform said or in the message of a failure to reach it', () => {
    const echoed = classifyHttpFailure(answer(400, `bad token ${SECRET}`), hooks, call);
    expect(echoed.reason).toBe('Example refused the status: bad token <secret>');
    const masked = classifyHttpFailure(answer(401, `bot${SECRET}`), { ...hooks, mask: '<token>' }, call);
    expect(masked.reason).toContain('bot<token>');
    const unreachable = new PlatformUnreachable(`getaddrinfo ENOTFOUND ${SECRET}.example`, false);
    expect(classifyHttpFailure(unreachable, hooks, call).reason).not.toContain(SECRET);
  });
});

describe('rateLimitOf', () => {
  it("Mastodon's X-RateLimit-* (an ISO reset), Bluesky's RateLimit-* and X's x-rate-limit-* (unix seconds), the draft's seconds", () => {
    expect(
      rateLimitOf({ 'x-ratelimit-remaining': '299', 'x-ratelimit-reset': '2026-11-25T12:05:00.000Z' }, NOW),
    ).toEqual({ remaining: 299, resetAtMs: Date.UTC(2026, 10, 25, 12, 5) });
    expect(
      rateLimitOf({ 'ratelimit-remaining': '4', 'ratelimit-reset': String(NOW / 1000 + 300) }, NOW),
    ).toEqual({
      remaining: 4,
      resetAtMs: NOW + 300_000,
    });
    expect(
      rateLimitOf({ 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(NOW / 1000 + 900) }, NOW),
    ).toEqual({ remaining: 0, resetAtMs: NOW + 900_000 });
    expect(rateLimitOf({ 'ratelimit-remaining': '10', 'ratelimit-reset': '60' }, NOW)).toEqual({
      remaining: 10,
      resetAtMs: NOW + 60_000,
    });
  });

  it('says nothing unless both headers are there and readable', () => {
    expect(rateLimitOf(undefined, NOW)).toBeUndefined();
    expect(rateLimitOf({}, NOW)).toBeUndefined();
    expect(rateLimitOf({ 'x-ratelimit-remaining': '5' }, NOW)).toBeUndefined();
    expect(rateLimitOf({ 'x-ratelimit-remaining': 'many', 'x-ratelimit-reset': '60' }, NOW)).toBeUndefined();
    expect(rateLimitOf({ 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': 'soon' }, NOW)).toBeUndefined();
  });
});
