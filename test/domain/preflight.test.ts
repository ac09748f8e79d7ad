/** Pre-flight per channel: what each platform will refuse or change, told before publishing. */
import { describe, expect, it } from 'vitest';
import { PLATFORM_CAPABILITIES } from '../../src/domain/capabilities.js';
import { planDelivery } from '../../src/domain/platform-rules.js';
import type { PostPayload } from '../../src/domain/post-schemas.js';
import { type PreflightChannel, preflightChannel, textLength } from '../../src/domain/preflight.js';
import type { ChannelType } from '../../src/domain/schemas.js';

const channel = (type: ChannelType, extra: Partial<PreflightChannel> = {}): PreflightChannel => ({
  id: 7,
  name: `Acme on ${type}`,
  type,
  status: 'ACTIVE',
  connector: 'sandbox',
  capabilities: PLATFORM_CAPABILITIES[type],
  ...extra,
});
const mastodon = (textLimit = 500) =>
  channel('Mastodon', {
    connector: 'mastodon',
    capabilities: { ...PLATFORM_CAPABILITIES.Mastodon, textLimit },
  });
const post = (extra: Partial<PostPayload>): PostPayload => ({ publishMode: 'IMMEDIATE', ...extra });
const none = new Map<string, { type: string; size: number }>();

describe('preflightChannel', () => {
  it('says nothing of a post the platform takes as it is', () => {
    expect(preflightChannel(post({ caption: 'Fresh beans' }), mastodon(), none)).toEqual([]);
  });

  it("fails text over a connected instance's own limit, and names the override that fixes it for that platform alone", () => {
    const [warning, ...rest] = preflightChannel(post({ caption: 'x'.repeat(501) }), mastodon(), none);
    expect(rest).toEqual([]);
    expect(warning).toEqual({
      channelId: 7,
      channelName: 'Acme on Mastodon',
      outcome: 'fail',
      message:
        'The text is 501 characters (as people see them); Mastodon takes at most 500. Shorten the caption, or give Mastodon its own with platforms.mastodon.caption.',
    });
    expect(preflightChannel(post({ caption: 'x'.repeat(501) }), mastodon(1000), none)).toEqual([]);
  });

  it("uses the platform's own caption: an override within the limit clears the warning for that platform only", () => {
    const long = post({ caption: 'y'.repeat(400), platforms: { bluesky: { caption: 'Short for Bluesky' } } });
    expect(preflightChannel(long, channel('Bluesky', { connector: 'bluesky' }), none)).toEqual([]);
    expect(preflightChannel(long, channel('X/Twitter'), none).map((w) => w.outcome)).toEqual(['fail']);
    expect(
      planDelivery(long, channel('Bluesky')).action === 'send' && planDelivery(long, channel('Bluesky')),
    ).toMatchObject({
      content: { caption: 'Short for Bluesky' },
    });
  });

  it('counts a link on its own line, and counts links as 23 where the platform does', () => {
    const caps = PLATFORM_CAPABILITIES['X/Twitter'];
    const link = `https://example.com/${'a'.repeat(200)}`;
    expect(textLength(`Hello ${link}`, caps)).toBe(6 + 23);
    const added = post({ caption: 'z'.repeat(260), link });
    expect(preflightChannel(added, channel('X/Twitter'), none)[0]?.message).toMatch(
      /^The text is 285 characters as X counts them \(CJK characters and emoji count 2\), the link included; X\/Twitter takes at most 280/,
    );
  });

  it('counts ASCII text in graphemes as the segmenter does: CR LF is one, every other character one each', () => {
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    const alphabet = ['a', ' ', '\r', '\n', '\t', '\u0000', '\u007f', '.', 'Z'];
    let seed = 7;
    for (let i = 0; i < 500; i++) {
      let text = '';
      for (let j = i % 40; j > 0; j--) {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        text += alphabet[seed % alphabet.length];
      }
      const expected = [...segmenter.segment(text)].length;
      expect(textLength(text, PLATFORM_CAPABILITIES.Bluesky), JSON.stringify(text)).toBe(expected);
    }
    expect(textLength('one\r\ntwo\n\rthree', PLATFORM_CAPABILITIES.Bluesky)).toBe(14);
  });

  it('counts Bluesky in graphemes: an emoji family is one', () => {
    expect(textLength('👨‍👩‍👧'.repeat(300), PLATFORM_CAPABILITIES.Bluesky)).toBe(300);
    // 150 families of 18 bytes and 150 letters: 300 graphemes in 2,850 bytes, within both limits.
    expect(
      preflightChannel(
        post({ caption: `${'👨‍👩‍👧'.repeat(150)}${'a'.repeat(150)}` }),
        channel('Bluesky', { connector: 'bluesky' }),
        none,
      ),
    ).toEqual([]);
  });

  it("checks Telegram's caption limit only when media is attached", () => {
    const media = new Map([['m1', { type: 'image/png', size: 1000 }]]);
    const telegram = channel('Telegram', { connector: 'telegram' });
    expect(preflightChannel(post({ caption: 'c'.repeat(2000) }), telegram, media)).toEqual([]);
    expect(
      preflightChannel(post({ caption: 'c'.repeat(2000), media: [{ id: 'm1' }] }), telegram, media)[0]
        ?.message,
    ).toMatch(/takes at most 1024 with media/);
  });

  it('fails media a platform requires, refuses, cannot hold so many of, or takes smaller', () => {
    const media = new Map([
      ['big', { type: 'image/png', size: 3_000_000 }],
      ['pdf', { type: 'application/pdf', size: 1000 }],
    ]);
    const bluesky = channel('Bluesky', { connector: 'bluesky' });
    expect(preflightChannel(post({ caption: 'a', media: [{ id: 'big' }] }), bluesky, media)[0]?.message).toBe(
      'media.0 is 3,000,000 bytes; Bluesky takes images up to 2,000,000 bytes.',
    );
    expect(preflightChannel(post({ caption: 'a', media: [{ id: 'pdf' }] }), bluesky, media)[0]?.message).toBe(
      'Bluesky does not take application/pdf (media.0); it takes image/png, image/jpeg.',
    );
    const five = post({ caption: 'a', media: Array(5).fill({ url: 'https://example.com/a.png' }) });
    expect(preflightChannel(five, mastodon(), none)[0]?.message).toBe(
      'The post has 5 media; Mastodon takes at most 4 in one post.',
    );
    expect(preflightChannel(post({ caption: 'a' }), channel('Instagram'), none)[0]?.message).toBe(
      'Instagram publishes nothing without media: add an image or a video, or leave this channel out. (Instagram would refuse it; this channel publishes to the sandbox, which takes it anyway.)',
    );
  });

  it('fails a poll with media on Mastodon, and says a Bluesky poll becomes text', () => {
    const poll = { question: 'Which roast?', options: ['Light', 'Dark'], period: '1d' as const };
    const withMedia = post({ caption: 'Vote', poll, media: [{ url: 'https://example.com/a.png' }] });
    expect(preflightChannel(withMedia, mastodon(), none).map((w) => w.message)).toEqual([
      'Mastodon cannot carry a poll and media in one post: remove the media or the poll.',
    ]);
    const bluesky = channel('Bluesky', {
      connector: 'bluesky',
      capabilities: { ...PLATFORM_CAPABILITIES.Bluesky, polls: false },
    });
    expect(preflightChannel(post({ caption: 'Vote', poll }), bluesky, none)).toEqual([
      expect.objectContaining({ outcome: 'change', message: expect.stringMatching(/^Bluesky has no polls/) }),
    ]);
  });

  it('tells an INACTIVE channel as failing, a skipped poll as skipped, and a dropped title as a change', () => {
    expect(
      preflightChannel(post({ caption: 'a' }), channel('X/Twitter', { status: 'INACTIVE' }), none),
    ).toEqual([expect.objectContaining({ outcome: 'fail', message: expect.stringContaining('INACTIVE') })]);
    const poll = { question: 'Q?', options: ['A', 'B'], period: '1d' as const };
    expect(preflightChannel(post({ poll }), channel('Facebook'), none)).toEqual([
      expect.objectContaining({ outcome: 'skip' }),
    ]);
    expect(preflightChannel(post({ caption: 'a', title: 'T' }), channel('Facebook'), none)).toEqual([
      expect.objectContaining({
        outcome: 'change',
        message: 'Facebook posts have no title: the title is not sent.',
      }),
    ]);
  });
});
