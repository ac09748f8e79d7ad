/**
 * Pre-flight at each limit of each connected platform, exactly at it and one past it, with the limits
 * the connectors give a connected channel (capabilitiesOf…) and those a stand-in channel has
 * (PLATFORM_CAPABILITIES). The text measured is the text the connector sends: caption and link joined by
 * one newline on Telegram and Bluesky and a blank line on Mastodon, the poll's question on Mastodon, the
 * whole poll written out on Bluesky. test/publish/preflight-sent-text.test.ts checks that the connectors
 * send those very texts.
 */
import { describe, expect, it } from 'vitest';
import { type Capabilities, PLATFORM_CAPABILITIES } from '../../src/domain/capabilities.js';
import type { PostPayload } from '../../src/domain/post-schemas.js';
import {
  type MediaFacts,
  type PreflightChannel,
  type PreflightWarning,
  preflightChannel,
} from '../../src/domain/preflight.js';
import type { ChannelType } from '../../src/domain/schemas.js';
import { capabilitiesOfBluesky } from '../../src/publish/connectors/bluesky/bluesky-connector.js';
import { capabilitiesOfMastodon } from '../../src/publish/connectors/mastodon/mastodon-connector.js';
import { capabilitiesOfTelegram } from '../../src/publish/connectors/telegram/telegram-connector.js';

const LINK = `https://northwind.example/${'roast/'.repeat(10)}`;
const FAMILY = '👨‍👩‍👧'; // one grapheme, five code points, eight UTF-16 units, 18 bytes
const GRIN = '😀'; // one grapheme, one code point, two UTF-16 units
const IMAGES: MediaFacts = new Map(
  ['i1', 'i2', 'i3', 'i4', 'i5'].map((id) => [id, { type: 'image/png', size: 1000 }]),
);
const images = (count: number) => ['i1', 'i2', 'i3', 'i4', 'i5'].slice(0, count).map((id) => ({ id }));
const a = (count: number) => 'a'.repeat(count);
const post = (extra: Partial<PostPayload>): PostPayload => ({ publishMode: 'IMMEDIATE', ...extra });
const poll = (options: string[], question = 'Which roast?') => ({ question, options, period: '1d' as const });
const ROASTS = ['Light', 'Medium', 'Dark', 'Decaf'];

function channel(type: ChannelType, connector: string, capabilities: Capabilities): PreflightChannel {
  return { id: 3, name: `Northwind on ${type}`, type, status: 'ACTIVE', connector, capabilities };
}

const mastodon = channel('Mastodon', 'mastodon', capabilitiesOfMastodon({}));
const bluesky = channel('Bluesky', 'bluesky', capabilitiesOfBluesky());
const telegram = channel('Telegram', 'telegram', capabilitiesOfTelegram());
const standIn = (type: ChannelType) => channel(type, 'sandbox', PLATFORM_CAPABILITIES[type]);

const failures = (payload: PostPayload, to: PreflightChannel): string[] =>
  preflightChannel(payload, to, IMAGES)
    .filter((warning: PreflightWarning) => warning.outcome === 'fail')
    .map((warning) => warning.message);

/** Nothing fails at the limit; one past it, exactly `message` does. */
function expectBoundary(to: PreflightChannel, atLimit: PostPayload, over: PostPayload, message: string) {
  expect(failures(atLimit, to), 'at the limit').toEqual([]);
  expect(failures(over, to), 'one past the limit').toEqual([message]);
}

describe('Mastodon (a connected instance with the default limits)', () => {
  const fix = 'Shorten the caption, or give Mastodon its own with platforms.mastodon.caption.';

  it('text alone: 500 characters', () => {
    expectBoundary(
      mastodon,
      post({ caption: a(500) }),
      post({ caption: a(501) }),
      `The text is 501 characters (as people see them); Mastodon takes at most 500. ${fix}`,
    );
  });

  it('text and link: the link on its own paragraph (two newlines), counted as 23', () => {
    expectBoundary(
      mastodon,
      post({ caption: a(475), link: LINK }),
      post({ caption: a(476), link: LINK }),
      `The text is 501 characters (as people see them), the link included; Mastodon takes at most 500. ${fix}`,
    );
  });

  it('with media: the same 500, and at most 4 media', () => {
    expectBoundary(
      mastodon,
      post({ caption: a(500), media: images(4) }),
      post({ caption: a(501), media: images(4) }),
      `The text is 501 characters (as people see them); Mastodon takes at most 500. ${fix}`,
    );
    expect(failures(post({ caption: 'a', media: images(5) }), mastodon)).toEqual([
      'The post has 5 media; Mastodon takes at most 4 in one post.',
    ]);
  });

  it("with a poll: the question is part of the status's text", () => {
    // 486 + "\n\n" + "Which roast?" (12) = 500.
    expectBoundary(
      mastodon,
      post({ caption: a(486), poll: poll(ROASTS) }),
      post({ caption: a(487), poll: poll(ROASTS) }),
      "The text is 501 characters (as people see them), the poll's question included; Mastodon takes at most 500. Shorten the caption or the poll, or give Mastodon its own with platforms.mastodon.caption.",
    );
  });

  it('poll options: at most 4, each at most 50 characters as people see them (an emoji family is one)', () => {
    expectBoundary(
      mastodon,
      post({ caption: 'Vote', poll: poll([GRIN.repeat(50), FAMILY.repeat(50), 'C', 'D']) }),
      post({ caption: 'Vote', poll: poll([GRIN.repeat(50), FAMILY.repeat(51)]) }),
      'Poll option 2 is longer than the 50 characters Mastodon takes.',
    );
    expect(failures(post({ caption: 'Vote', poll: poll([...ROASTS, 'Iced']) }), mastodon)).toEqual([
      'The poll has 5 options; Mastodon takes at most 4.',
    ]);
  });
});

describe('Bluesky (a connected account)', () => {
  const fix = 'Shorten the caption, or give Bluesky its own with platforms.bluesky.caption.';

  it('text alone: 300 characters as people see them', () => {
    expectBoundary(
      bluesky,
      post({ caption: FAMILY.repeat(100) + a(200) }),
      post({ caption: FAMILY.repeat(100) + a(201) }),
      `The text is 301 characters (as people see them); Bluesky takes at most 300. ${fix}`,
    );
  });

  it('text and link: the link on the next line (one newline), counted in full', () => {
    const caption = a(300 - 1 - LINK.length);
    expectBoundary(
      bluesky,
      post({ caption, link: LINK }),
      post({ caption: `${caption}a`, link: LINK }),
      `The text is 301 characters (as people see them), the link included; Bluesky takes at most 300. ${fix}`,
    );
  });

  it('with media: the same 300, and at most 4 images', () => {
    expectBoundary(
      bluesky,
      post({ caption: a(300), media: images(4) }),
      post({ caption: a(301), media: images(4) }),
      `The text is 301 characters (as people see them); Bluesky takes at most 300. ${fix}`,
    );
    expect(failures(post({ caption: 'a', media: images(5) }), bluesky)).toEqual([
      'The post has 5 media; Bluesky takes at most 4 in one post.',
    ]);
  });

  it('with a poll: the poll written out is counted (250 + a 4-option poll of 50 = 300)', () => {
    // "\n\nWhich roast?\n1. Light\n2. Medium\n3. Dark\n4. Decaf" is 50 characters.
    expectBoundary(
      bluesky,
      post({ caption: a(250), poll: poll(ROASTS) }),
      post({ caption: a(251), poll: poll(ROASTS) }),
      'The text is 301 characters (as people see them), the poll written out included; Bluesky takes at most 300. Shorten the caption or the poll, or give Bluesky its own with platforms.bluesky.caption.',
    );
    // Options of emoji are counted as people see them inside the text, too: as long as Light and Medium.
    const emojiOptions = [FAMILY.repeat(5), GRIN.repeat(6), 'Dark', 'Decaf'];
    expect(failures(post({ caption: a(250), poll: poll(emojiOptions) }), bluesky)).toEqual([]);
    expect(failures(post({ caption: a(251), poll: poll(emojiOptions) }), bluesky)).toHaveLength(1);
  });

  it('at most 3,000 bytes in UTF-8, however few the characters', () => {
    // 166 families of 18 bytes = 2,988 bytes, and 12 letters: 3,000 bytes in 178 characters.
    expectBoundary(
      bluesky,
      post({ caption: FAMILY.repeat(166) + a(12) }),
      post({ caption: FAMILY.repeat(166) + a(13) }),
      `The text is 3001 bytes in UTF-8; Bluesky takes at most 3000. ${fix}`,
    );
  });
});

describe('Telegram (a connected chat)', () => {
  const fix = 'Shorten the caption, or give Telegram its own with platforms.telegram.caption.';

  it('text alone: 4,096 characters (code points)', () => {
    expectBoundary(
      telegram,
      post({ caption: GRIN.repeat(4096) }),
      post({ caption: GRIN.repeat(4097) }),
      `The text is 4097 characters; Telegram takes at most 4096. ${fix}`,
    );
  });

  it('text and link: the link on the next line (one newline), counted in full', () => {
    const caption = a(4096 - 1 - LINK.length);
    expectBoundary(
      telegram,
      post({ caption, link: LINK }),
      post({ caption: `${caption}a`, link: LINK }),
      `The text is 4097 characters, the link included; Telegram takes at most 4096. ${fix}`,
    );
  });

  it('with media: a caption of at most 1,024, the link included; at most 10 media', () => {
    expectBoundary(
      telegram,
      post({ caption: a(1024 - 1 - LINK.length), link: LINK, media: images(1) }),
      post({ caption: a(1024 - LINK.length), link: LINK, media: images(1) }),
      `The text is 1025 characters, the link included; Telegram takes at most 1024 with media. ${fix}`,
    );
    const eleven = Array.from({ length: 11 }, () => ({ url: 'https://example.com/a.png' }));
    expect(failures(post({ caption: 'a', media: eleven.slice(1) }), telegram)).toEqual([]);
    expect(failures(post({ caption: 'a', media: eleven }), telegram)).toEqual([
      'The post has 11 media; Telegram takes at most 10 in one post.',
    ]);
  });

  it('poll options: at most 12, each at most 100 characters counted in code points, not UTF-16 units', () => {
    const twelve = Array.from({ length: 12 }, (_, i) => `Roast ${i + 1}`);
    expectBoundary(
      telegram,
      post({ caption: 'Vote', poll: poll([GRIN.repeat(100), FAMILY.repeat(20), ...twelve.slice(2)]) }),
      post({ caption: 'Vote', poll: poll([GRIN.repeat(100), FAMILY.repeat(20) + GRIN]) }),
      'Poll option 2 is longer than the 100 characters Telegram takes.',
    );
    expect(failures(post({ caption: 'Vote', poll: poll([...twelve, 'Iced']) }), telegram)).toEqual([
      'The poll has 13 options; Telegram takes at most 12.',
    ]);
  });
});

describe('stand-in channels (sandbox) say the same of their platform', () => {
  const refuses = (type: ChannelType) =>
    ` (${type} would refuse it; this channel publishes to the sandbox, which takes it anyway.)`;

  it("Telegram's caption with media: 1,024", () => {
    expectBoundary(
      standIn('Telegram'),
      post({ caption: a(1024), media: images(1) }),
      post({ caption: a(1025), media: images(1) }),
      `The text is 1025 characters; Telegram takes at most 1024 with media. Shorten the caption, or give Telegram its own with platforms.telegram.caption.${refuses('Telegram')}`,
    );
  });

  it("Bluesky's text and link on two lines; its poll stays a poll there", () => {
    const caption = a(300 - 1 - LINK.length);
    expectBoundary(
      standIn('Bluesky'),
      post({ caption, link: LINK, poll: poll(ROASTS) }),
      post({ caption: `${caption}a`, link: LINK }),
      `The text is 301 characters (as people see them), the link included; Bluesky takes at most 300. Shorten the caption, or give Bluesky its own with platforms.bluesky.caption.${refuses('Bluesky')}`,
    );
    expect(
      failures(post({ caption: 'Vote', poll: poll([GRIN.repeat(30), 'B']) }), standIn('Bluesky')),
    ).toEqual([]);
  });

  it("Mastodon's text with its poll's question", () => {
    expectBoundary(
      standIn('Mastodon'),
      post({ caption: a(486), poll: poll(ROASTS) }),
      post({ caption: a(487), poll: poll(ROASTS) }),
      `The text is 501 characters (as people see them), the poll's question included; Mastodon takes at most 500. Shorten the caption or the poll, or give Mastodon its own with platforms.mastodon.caption.${refuses('Mastodon')}`,
    );
  });
});
