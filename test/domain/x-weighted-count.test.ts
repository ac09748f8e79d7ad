/**
 * X counts a post's text weighted (twitter-text v3, docs.x.com/fundamentals/counting-characters): code
 * points 0–4351 and three punctuation ranges weigh 1, everything else 2, an emoji 2 whatever its code
 * points, a URL 23, after NFC. The pre-flight measures X channels so, and nobody else's.
 */
import { describe, expect, it } from 'vitest';
import { PLATFORM_CAPABILITIES } from '../../src/domain/capabilities.js';
import { preflightChannel, textLength, weightedLength } from '../../src/domain/preflight.js';

const X = PLATFORM_CAPABILITIES['X/Twitter'];

describe("X's weighted count", () => {
  it('weighs Latin, Greek, Cyrillic 1 and CJK, Hangul and Japanese 2', () => {
    expect(weightedLength('hello')).toBe(5);
    expect(weightedLength('Ωμέγα привет')).toBe(12);
    expect(weightedLength('日本語')).toBe(6);
    expect(weightedLength('한국어')).toBe(6);
    expect(weightedLength('カタカナ')).toBe(8);
  });

  it('weighs the ranges at their edges as v3.json says', () => {
    const at = (point: number) => weightedLength(String.fromCodePoint(point));
    expect([at(4351), at(4352)]).toEqual([1, 2]);
    expect([at(8191), at(8192), at(8205), at(8206)]).toEqual([2, 1, 1, 2]);
    expect([at(8207), at(8208), at(8223), at(8224)]).toEqual([2, 1, 1, 2]);
    expect([at(8241), at(8242), at(8247), at(8248)]).toEqual([2, 1, 1, 2]);
  });

  it('counts each emoji 2, a ZWJ family, a flag and a skin tone included', () => {
    expect(weightedLength('😀')).toBe(2);
    expect(weightedLength('👨‍👩‍👧‍👦')).toBe(2);
    expect(weightedLength('🇫🇷')).toBe(2);
    expect(weightedLength('👍🏽')).toBe(2);
    expect(weightedLength('a😀b')).toBe(4);
  });

  it('counts every URL 23, however long', () => {
    expect(weightedLength(`see https://example.com/${'a'.repeat(300)}`)).toBe(4 + 23);
    expect(weightedLength('http://a.b and https://c.d')).toBe(23 + 5 + 23);
  });

  it('normalises to NFC first: a decomposed é counts 1', () => {
    expect(weightedLength('e\u0301')).toBe(1);
  });

  it("is X's unit and no one else's", () => {
    expect(X.textUnit).toBe('weighted');
    expect(textLength('日本語', X)).toBe(6);
    expect(PLATFORM_CAPABILITIES.Mastodon.textUnit).toBe('graphemes');
    expect(PLATFORM_CAPABILITIES.Telegram.textUnit).toBe('characters');
    expect(textLength('日本語', PLATFORM_CAPABILITIES.Telegram)).toBe(3);
  });

  const channel = { id: 1, name: 'Acme on X', type: 'X/Twitter' as const, status: 'ACTIVE' as const };
  const preflight = (caption: string) =>
    preflightChannel(
      { publishMode: 'IMMEDIATE', caption },
      { ...channel, connector: 'x', capabilities: X },
      new Map(),
    );

  it('lets 140 CJK characters through and stops the 141st', () => {
    expect(preflight('字'.repeat(140))).toEqual([]);
    expect(preflight('字'.repeat(141))[0]).toMatchObject({
      outcome: 'fail',
      message: expect.stringMatching(/^The text is 282 characters as X counts them/),
    });
    // In code points it would be within 280.
    expect(preflight('a'.repeat(280))).toEqual([]);
  });

  it('counts poll options in code points, at most 25', () => {
    const poll = (option: string) =>
      preflightChannel(
        {
          publishMode: 'IMMEDIATE',
          caption: 'Which?',
          poll: { question: 'Which?', options: ['yes', option], period: '1d' },
        },
        { ...channel, connector: 'x', capabilities: X },
        new Map(),
      );
    expect(poll('字'.repeat(25))).toEqual([]);
    expect(poll('a'.repeat(26))[0]?.message).toBe(
      'Poll option 2 is longer than the 25 characters X/Twitter takes.',
    );
  });
});
