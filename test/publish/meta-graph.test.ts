/**
 * The shared Meta module (src/publish/connectors/meta/graph.ts): the Graph version of a connection, the
 * error envelope read, the usage headers, and Meta's codes classified through the one classification
 * (connectors/http.ts) into the kinds the engine acts on.
 */
import { describe, expect, it } from 'vitest';
import { classifyHttpFailure } from '../../src/publish/connectors/http.js';
import {
  GRAPH_API_VERSION,
  graphSaid,
  graphVersionOf,
  metaHooks,
  metaLimitOf,
  metaUsage,
  stillProcessing,
  videoRootOf,
} from '../../src/publish/connectors/meta/graph.js';
import type { PlatformAnswer } from '../../src/publish/platform-http.js';

const NOW = Date.UTC(2026, 10, 26, 9);
const HOOKS = metaHooks({
  name: 'Facebook',
  reconnect: 'social-publisher-mcp connect facebook',
  permissions: 'pages_manage_posts',
});
const call = {
  what: 'post',
  address: 'https://graph.facebook.com',
  account: 'Acme Coffee',
  nowMs: NOW,
  secrets: ['EAAB-secret-token'],
};

function answer(
  error: Record<string, unknown>,
  status = 400,
  headers: Record<string, string> = {},
): PlatformAnswer {
  const json = { error: { type: 'OAuthException', fbtrace_id: 'A1', ...error } };
  return { status, headers, text: JSON.stringify(json), json };
}
const classify = (failure: PlatformAnswer) => classifyHttpFailure(failure, HOOKS, call);

describe('the Graph version', () => {
  it('is v25.0 unless the connection names another, with or without its v', () => {
    expect(GRAPH_API_VERSION).toBe('v25.0');
    expect(graphVersionOf({})).toBe('v25.0');
    expect(graphVersionOf({ graphVersion: 'v26.0' })).toBe('v26.0');
    expect(graphVersionOf({ graphVersion: '24.0' })).toBe('v24.0');
    expect(graphVersionOf({ graphVersion: 'latest' })).toBe('v25.0');
  });

  it('sends videos to graph-video.facebook.com only for Meta’s own API root', () => {
    expect(videoRootOf('https://graph.facebook.com')).toBe('https://graph-video.facebook.com');
    expect(videoRootOf('http://127.0.0.1:9000')).toBe('http://127.0.0.1:9000');
  });
});

describe('what Meta said', () => {
  it('prefers the message for people, with the code and subcode', () => {
    expect(
      graphSaid(
        answer({
          message: 'Invalid parameter',
          code: 100,
          error_subcode: 1366046,
          error_user_msg: 'Photos must be smaller than 4 MB.',
        }),
      ),
    ).toBe('Photos must be smaller than 4 MB. (code 100, subcode 1366046)');
    expect(graphSaid(answer({ message: '(#100) Missing message', code: 100 }))).toBe(
      '(#100) Missing message (code 100)',
    );
    expect(
      graphSaid({ status: 502, headers: {}, text: '<html>Bad gateway</html>', json: undefined }),
    ).toMatch(/Bad gateway/);
  });

  it('tells media still processing (9007)', () => {
    expect(
      stillProcessing(
        answer({ code: 9007, message: 'The media is not ready for publishing, please wait for a moment' }),
      ),
    ).toBe(true);
    expect(stillProcessing(answer({ code: 100, message: 'x' }))).toBe(false);
  });
});

describe("Meta's codes as the engine's kinds", () => {
  it('190 and its subcodes: reconnect, saying why; 102 too; never the token', () => {
    for (const [subcode, why] of [
      [458, 'the app was removed'],
      [459, 'checkpointed'],
      [460, 'the password was changed'],
      [463, 'the sign-in expired'],
      [464, 'not confirmed'],
      [467, 'the token is invalid'],
    ] as const) {
      const outcome = classify(
        answer({
          code: 190,
          error_subcode: subcode,
          message: 'Error validating access token EAAB-secret-token',
        }),
      );
      expect(outcome).toMatchObject({ kind: 'reconnect', reason: expect.stringContaining(why) });
      expect(outcome.reason).toContain('connect facebook');
      expect(outcome.reason).not.toContain('EAAB-secret-token');
    }
    expect(classify(answer({ code: 102, message: 'Session key invalid' }))).toMatchObject({
      kind: 'reconnect',
    });
  });

  it('10 and 200–299: reconnect approving the permissions', () => {
    for (const code of [10, 200, 299]) {
      expect(classify(answer({ code, message: 'Permission denied' }))).toMatchObject({
        kind: 'reconnect',
        reason: expect.stringContaining('approve pages_manage_posts'),
      });
    }
  });

  it('4, 17, 32, 613, 80001–80014 and 1390008: rate limited, an hour when Meta names no time', () => {
    for (const error of [
      { code: 4 },
      { code: 17 },
      { code: 32 },
      { code: 613 },
      { code: 80_001 },
      { code: 80_014 },
      { code: 368, error_subcode: 1_390_008 },
    ]) {
      expect(classify(answer({ ...error, message: 'limit' }))).toMatchObject({
        kind: 'rate_limited',
        retryAfterMs: 3_600_000,
      });
    }
  });

  it('waits the longest time to regain access of X-Business-Use-Case-Usage, or Retry-After first', () => {
    const usage = JSON.stringify({
      '1010': [
        {
          type: 'pages',
          call_count: 100,
          total_cputime: 20,
          total_time: 30,
          estimated_time_to_regain_access: 12,
        },
      ],
      '2020': [{ type: 'pages', call_count: 10, estimated_time_to_regain_access: 3 }],
    });
    const limited = answer({ code: 80_001, message: 'Too many calls' }, 400, {
      'x-business-use-case-usage': usage,
    });
    expect(classify(limited)).toMatchObject({ kind: 'rate_limited', retryAfterMs: 12 * 60_000 });
    const named = answer({ code: 4, message: 'limit' }, 400, {
      'x-business-use-case-usage': usage,
      'retry-after': '30',
    });
    expect(classify(named)).toMatchObject({ retryAfterMs: 30_000 });
  });

  it('368 and the policy subcodes: refused in Meta’s words for people', () => {
    const blocked = classify(
      answer({ code: 368, message: 'Deemed abusive', error_user_msg: 'This looks like spam.' }),
    );
    expect(blocked).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('This looks like spam.'),
    });
    expect(
      classify(answer({ code: 100, error_subcode: 1_404_078, message: 'Publishing authorization required' })),
    ).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('policies'),
    });
  });

  it('1, 2, 9007 and is_transient: transient; 506 refused as a duplicate; 100 refused', () => {
    expect(classify(answer({ code: 2, message: 'Service temporarily unavailable' }, 500))).toMatchObject({
      kind: 'transient',
    });
    expect(classify(answer({ code: 1, message: 'Unknown error' }, 400))).toMatchObject({ kind: 'transient' });
    expect(classify(answer({ code: 9007, message: 'not ready' }))).toMatchObject({ kind: 'transient' });
    expect(classify(answer({ code: 100, is_transient: true, message: 'try again' }))).toMatchObject({
      kind: 'transient',
    });
    expect(classify(answer({ code: 506, message: 'Duplicate status message' }))).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('duplicate'),
    });
    expect(classify(answer({ code: 100, message: '(#100) Invalid parameter' }))).toMatchObject({
      kind: 'refused',
      reason: 'Facebook refused the post: (#100) Invalid parameter (code 100)',
    });
  });
});

describe('the usage headers', () => {
  it('reads X-App-Usage and X-Business-Use-Case-Usage: the highest percent, the longest wait', () => {
    expect(metaUsage({ 'x-app-usage': '{"call_count":28,"total_cputime":5,"total_time":40}' })).toEqual({
      percent: 40,
      regainMinutes: 0,
    });
    expect(metaUsage({ 'x-app-usage': 'not json' })).toBeUndefined();
  });

  it('reports the account spent until Meta’s time once a usage reaches 100 %, and nothing before', () => {
    expect(metaLimitOf({ 'x-app-usage': '{"call_count":99}' }, NOW)).toEqual({});
    expect(metaLimitOf({ 'x-app-usage': '{"call_count":100}' }, NOW)).toEqual({
      limit: { remaining: 0, resetAtMs: NOW + 3_600_000 },
    });
    const usage = JSON.stringify({ '1': [{ call_count: 80, estimated_time_to_regain_access: 5 }] });
    expect(metaLimitOf({ 'x-business-use-case-usage': usage }, NOW)).toEqual({
      limit: { remaining: 0, resetAtMs: NOW + 300_000 },
    });
  });
});
