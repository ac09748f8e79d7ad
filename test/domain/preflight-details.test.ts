/**
 * The pre-flight's smaller promises, each found unguarded by the mutation run of 2026-11-25
 * (docs/mutation.md): the note a Bluesky poll gets and only it, the webhook named as the stand-in, a
 * platform that requires media given some, media sizes at their limits and their wording, the first
 * poll option, what the text's message says is included, http links; and the texts each platform
 * receives (platformText) where a caption already asks the poll's question or there is no caption.
 */
import { describe, expect, it } from 'vitest';
import { type Capabilities, PLATFORM_CAPABILITIES } from '../../src/domain/capabilities.js';
import type { PlatformContent } from '../../src/domain/delivery.js';
import { platformText } from '../../src/domain/platform-rules.js';
import type { PostPayload } from '../../src/domain/post-schemas.js';
import { type MediaFacts, type PreflightChannel, preflightChannel } from '../../src/domain/preflight.js';
import type { ChannelType } from '../../src/domain/schemas.js';
import { capabilitiesOfBluesky } from '../../src/publish/connectors/bluesky/bluesky-connector.js';
import { capabilitiesOfMastodon } from '../../src/publish/connectors/mastodon/mastodon-connector.js';
import { capabilitiesOfTelegram } from '../../src/publish/connectors/telegram/telegram-connector.js';

const MB = 1_048_576;
const post = (extra: Partial<PostPayload>): PostPayload => ({ publishMode: 'IMMEDIATE', ...extra });
const poll = (options: string[], question = 'Which roast?') => ({ question, options, period: '1d' as const });
const channel = (type: ChannelType, connector: string, capabilities: Capabilities): PreflightChannel => ({
  id: 3,
  name: `Northwind on ${type}`,
  type,
  status: 'ACTIVE',
  connector,
  capabilities,
});
const mastodon = channel('Mastodon', 'mastodon', capabilitiesOfMastodon({}));
const bluesky = channel('Bluesky', 'bluesky', capabilitiesOfBluesky());
const messages = (payload: PostPayload, to: PreflightChannel, media: MediaFacts = new Map()) =>
  preflightChannel(payload, to, media).map((warning) => `${warning.outcome}: ${warning.message}`);
const one = (type: string, size: number): MediaFacts => new Map([['m', { type, size }]]);
const withMedia = (caption = 'Beans') => post({ caption, media: [{ id: 'm' }] });

describe('pre-flight details', () => {
  it('notes that a Bluesky poll becomes text only when there is a poll', () => {
    expect(messages(post({ caption: 'No poll here' }), bluesky)).toEqual([]);
    expect(messages(post({ caption: 'Vote', poll: poll(['A', 'B']) }), bluesky)).toEqual([
      'change: Bluesky has no polls: the question and the options are added to the text instead.',
    ]);
  });

  it('names the webhook as the stand-in that takes what the platform would refuse', () => {
    const x = channel('X/Twitter', 'webhook', PLATFORM_CAPABILITIES['X/Twitter']);
    expect(messages(post({ caption: 'a'.repeat(281) }), x)).toEqual([
      'fail: The text is 281 characters as X counts them (CJK characters and emoji count 2); X/Twitter takes at most 280. Shorten the caption, or give X/Twitter its own with platforms.x.caption. (X/Twitter would refuse it; this channel publishes to the webhook, which takes it anyway.)',
    ]);
  });

  it('says nothing of a platform that requires media when the post has some', () => {
    const instagram = channel('Instagram', 'sandbox', PLATFORM_CAPABILITIES.Instagram);
    expect(messages(withMedia(), instagram, one('image/jpeg', 1000))).toEqual([]);
  });

  it('takes media of exactly the size limit, refuses one byte more, and words images and videos apart', () => {
    expect(messages(withMedia(), bluesky, one('image/png', 2_000_000))).toEqual([]);
    expect(messages(withMedia(), bluesky, one('image/png', 2_000_001))).toEqual([
      'fail: media.0 is 2,000,001 bytes; Bluesky takes images up to 2,000,000 bytes.',
    ]);
    const instance = channel(
      'Mastodon',
      'mastodon',
      capabilitiesOfMastodon({
        configuration: { media_attachments: { image_size_limit: 16 * MB, video_size_limit: 99 * MB } },
      }),
    );
    // A video is held to the video limit, not the image one.
    expect(messages(withMedia(), instance, one('video/mp4', 20 * MB))).toEqual([]);
    expect(messages(withMedia(), instance, one('video/mp4', 100 * MB))).toEqual([
      'fail: media.0 is 100 MB; Mastodon takes videos up to 99 MB.',
    ]);
    expect(messages(withMedia(), instance, one('image/png', 17 * MB))).toEqual([
      'fail: media.0 is 17 MB; Mastodon takes images up to 16 MB.',
    ]);
  });

  it("holds a measured video to each platform's shortest and longest, and says nothing unmeasured", () => {
    const video = (durationMs: number | null, type = 'video/mp4'): MediaFacts =>
      new Map([['m', { type, size: 1000, durationMs }]]);
    const on = (type: ChannelType) => channel(type, 'sandbox', PLATFORM_CAPABILITIES[type]);
    const standIn =
      ' (X/Twitter would refuse it; this channel publishes to the sandbox, which takes it anyway.)';
    // X: 0.5 s to 140 s, both ends included.
    expect(messages(withMedia(), on('X/Twitter'), video(140_000))).toEqual([]);
    expect(messages(withMedia(), on('X/Twitter'), video(500))).toEqual([]);
    expect(messages(withMedia(), on('X/Twitter'), video(140_400))).toEqual([
      `fail: media.0 is a video of 2 min 20.4 s; X/Twitter takes videos of 0.5 seconds to 2 min 20 s.${standIn}`,
    ]);
    expect(messages(withMedia(), on('X/Twitter'), video(400, 'video/quicktime'))).toEqual([
      `fail: media.0 is a video of 0.4 seconds; X/Twitter takes videos of 0.5 seconds to 2 min 20 s.${standIn}`,
    ]);
    // A duration the upload could not read (WebM, media of before) is left for the platform to judge.
    expect(messages(withMedia(), on('X/Twitter'), video(null))).toEqual([]);
    expect(messages(withMedia(), on('X/Twitter'), one('video/mp4', 1000))).toEqual([]);
    // Only a maximum: Threads (5 min), TikTok (10 min); a minimum and a maximum: LinkedIn (3 s to 30 min).
    expect(messages(withMedia(), on('Threads'), video(301_000))[0]).toContain(
      'media.0 is a video of 5 min 1 s; Threads takes videos up to 5 min.',
    );
    expect(messages(withMedia(), on('TikTok'), video(600_000))).toEqual([]);
    expect(messages(withMedia(), on('TikTok'), video(600_100))[0]).toContain(
      'TikTok takes videos up to 10 min.',
    );
    expect(messages(withMedia(), on('LinkedIn'), video(2_900))[0]).toContain(
      'media.0 is a video of 2.9 seconds; LinkedIn takes videos of 3 seconds to 30 min.',
    );
    expect(messages(withMedia(), on('Instagram'), video(900_000))).toEqual([]);
    // Platforms that bound no length (Mastodon, YouTube) take any.
    expect(messages(withMedia(), mastodon, video(3_600_000))).toEqual([]);
    expect(messages(withMedia(), on('YouTube'), video(3_600_000))).toEqual([]);
  });

  it('Telegram takes PDFs and QuickTime videos, and no poll with media', () => {
    const telegram = channel('Telegram', 'telegram', capabilitiesOfTelegram());
    for (const type of ['image/png', 'image/jpeg', 'video/mp4', 'video/quicktime', 'application/pdf']) {
      expect(messages(withMedia(), telegram, one(type, 1000)), type).toEqual([]);
    }
    expect(messages(withMedia(), telegram, one('image/gif', 1000))).toEqual([
      'fail: Telegram does not take image/gif (media.0); it takes image/png, image/jpeg, video/mp4, video/quicktime, application/pdf.',
    ]);
    const pollWithMedia = post({ caption: 'Vote', poll: poll(['A', 'B']), media: [{ id: 'm' }] });
    expect(messages(pollWithMedia, telegram, one('image/png', 1000))).toEqual([
      'fail: Telegram cannot carry a poll and media in one post: remove the media or the poll.',
    ]);
  });

  it('finds the first poll option too long as option 1', () => {
    expect(messages(post({ caption: 'Vote', poll: poll(['x'.repeat(51), 'B']) }), mastodon)).toEqual([
      'fail: Poll option 1 is longer than the 50 characters Mastodon takes.',
    ]);
  });

  it("says the poll's question is included only when it was added to the text", () => {
    // The caption asks the question: Mastodon's status does not repeat it, and the message does not claim it.
    const caption = `${'a'.repeat(489)} Which roast?`;
    expect(messages(post({ caption, poll: poll(['A', 'B']) }), mastodon)).toEqual([
      'fail: The text is 502 characters (as people see them); Mastodon takes at most 500. Shorten the caption, or give Mastodon its own with platforms.mastodon.caption.',
    ]);
  });

  it('counts an http link as 23 too', () => {
    const link = `http://northwind.example/${'a'.repeat(100)}`;
    expect(messages(post({ caption: 'a'.repeat(475), link }), mastodon)).toEqual([]);
    expect(messages(post({ caption: 'a'.repeat(476), link }), mastodon)).toHaveLength(1);
  });
});

describe('platformText', () => {
  const content = (
    platform: PlatformContent['platform'],
    extra: Partial<PlatformContent>,
  ): PlatformContent => ({
    platform,
    format: 'feed',
    media: [],
    ...extra,
  });
  const roast = poll(['Light', 'Dark']);

  it('Bluesky: a poll without caption is its question and numbered options; a caption that asks it keeps only the options', () => {
    expect(platformText(content('Bluesky', { poll: roast }), false)).toBe('Which roast?\n1. Light\n2. Dark');
    expect(platformText(content('Bluesky', { caption: 'Which roast? Vote!', poll: roast }), false)).toBe(
      'Which roast? Vote!\n\n1. Light\n2. Dark',
    );
    expect(platformText(content('Bluesky', { caption: 'Vote', poll: roast }), true)).toBe('Vote');
  });

  it("Telegram: a poll's text is its description, none when it only repeats the question", () => {
    expect(platformText(content('Telegram', { caption: 'Which roast?', poll: roast }), true)).toBe('');
    expect(platformText(content('Telegram', { caption: 'Vote', poll: roast }), true)).toBe('Vote');
    expect(platformText(content('Telegram', { caption: 'Vote', link: 'https://a.example' }), true)).toBe(
      'Vote\nhttps://a.example',
    );
  });

  it('Mastodon and the platforms without a connector: a blank line between the parts', () => {
    expect(platformText(content('Mastodon', { link: 'https://a.example', poll: roast }), true)).toBe(
      'https://a.example\n\nWhich roast?',
    );
    expect(platformText(content('LinkedIn', { caption: 'Beans', link: 'https://a.example' }), true)).toBe(
      'Beans\n\nhttps://a.example',
    );
  });
});
