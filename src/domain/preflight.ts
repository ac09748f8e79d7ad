/**
 * Pre-flight: what will happen to a post on each channel of its collection, told before anything is
 * published. The platform rules (platform-rules.ts) decide what each channel receives; the channel's
 * capabilities (its connection's, or its platform's documented limits) decide whether the platform will
 * take it. Each warning says what to change, and for text, how to change it for one platform only
 * (`platforms.<key>.caption`).
 */
import { BLUESKY_TEXT_BYTES, type Capabilities } from './capabilities.js';
import { OVERRIDE_KEYS, type PlatformContent, TITLE_PLATFORMS } from './delivery.js';
import { type DeliveryChannel, planDelivery, platformText } from './platform-rules.js';
import type { PostPayload } from './post-schemas.js';

/**
 * `fail`: the delivery will fail (on a channel without a connection of its own: the platform would
 * refuse it); `skip`: nothing goes to the channel; `change`: it goes, altered.
 */
export interface PreflightWarning {
  channelId: number;
  channelName: string;
  outcome: 'fail' | 'skip' | 'change';
  message: string;
}

export interface PreflightChannel extends DeliveryChannel {
  id: number;
  /** Who publishes to it: a connector of its own (`mastodon`…) or the default (`sandbox`, `webhook`). */
  connector: string;
  capabilities: Capabilities;
}

/** What is known of a media element of the post: its type and size, for uploaded media. */
export type MediaFacts = ReadonlyMap<string, { type: string; size: number }>;

export function preflightChannel(
  payload: PostPayload,
  channel: PreflightChannel,
  media: MediaFacts,
): PreflightWarning[] {
  const warn = (outcome: PreflightWarning['outcome'], message: string): PreflightWarning => ({
    channelId: channel.id,
    channelName: channel.name,
    outcome,
    message,
  });
  // The media's types are read from `media` below, not from the planned content.
  const plan = planDelivery(payload, channel);
  if (plan.action !== 'send') return [warn(plan.action, plan.reason)];
  const warnings = plan.notes.map((note) => warn('change', note));
  const { content } = plan;
  const platform = channel.type;
  const caps = channel.capabilities;
  if (payload.title !== undefined && !TITLE_PLATFORMS.has(platform)) {
    warnings.push(warn('change', `${platform} posts have no title: the title is not sent.`));
  }
  if (content.poll && !caps.polls && channel.connector === 'bluesky') {
    warnings.push(
      warn('change', 'Bluesky has no polls: the question and the options are added to the text instead.'),
    );
  }
  if (payload.comment && caps.comments === false) {
    warnings.push(warn('change', `${platform} has no comments: the auto-comment is not posted there.`));
  }
  // A channel without a connection of its own stands in for its platform: what the platform would refuse
  // is told as such, though the sandbox records it anyway.
  const standIn = channel.connector === 'sandbox' || channel.connector === 'webhook';
  const fail = (message: string) =>
    warnings.push(
      warn(
        'fail',
        standIn
          ? `${message} (${platform} would refuse it; this channel publishes to the ${channel.connector}, which takes it anyway.)`
          : message,
      ),
    );
  checkText(content, caps, platform, fail);
  checkFields(content, caps, platform, fail);
  const count = content.media.length;
  if (caps.requiresMedia && count === 0) {
    fail(`${platform} publishes nothing without media: add an image or a video, or leave this channel out.`);
  }
  if (count > caps.maxMedia) {
    fail(`The post has ${count} media; ${platform} takes at most ${caps.maxMedia} in one post.`);
  }
  content.media.forEach((element, index) => {
    const facts = element.id === undefined ? undefined : media.get(element.id);
    if (!facts) return;
    if (!caps.mediaTypes.includes(facts.type)) {
      fail(
        `${platform} does not take ${facts.type} (media.${index}); it takes ${caps.mediaTypes.join(', ')}.`,
      );
      return;
    }
    const limit = facts.type.startsWith('image/') ? caps.maxImageBytes : caps.maxVideoBytes;
    if (limit !== undefined && facts.size > limit) {
      fail(
        `media.${index} is ${megabytes(facts.size)}; ${platform} takes ${facts.type.startsWith('image/') ? 'images' : 'videos'} up to ${megabytes(limit)}.`,
      );
    }
  });
  if (content.poll && caps.polls) {
    if (count > 0 && !caps.pollWithMedia) {
      fail(`${platform} cannot carry a poll and media in one post: remove the media or the poll.`);
    }
    const { options } = content.poll;
    if (caps.maxPollOptions !== undefined && options.length > caps.maxPollOptions) {
      fail(`The poll has ${options.length} options; ${platform} takes at most ${caps.maxPollOptions}.`);
    }
    // Counted as the platform counts its text: Telegram in code points, Mastodon in graphemes; never
    // in UTF-16 units, which count an emoji twice. X does not say that its options are weighted like
    // its text: they are counted in code points, the lenient reading.
    const longest = caps.maxPollOptionLength;
    const unit = caps.textUnit === 'weighted' ? 'characters' : caps.textUnit;
    const tooLong = options.findIndex(
      (option) => longest !== undefined && textLength(option, { textUnit: unit }) > longest,
    );
    if (tooLong >= 0) {
      fail(`Poll option ${tooLong + 1} is longer than the ${longest} characters ${platform} takes.`);
    }
  }
  return warnings;
}

/**
 * The text measured is the text sent (platformText): the caption and the link, on Mastodon the poll's
 * question, on a Bluesky account the whole poll written out. A platform that counts links as a fixed
 * length (Mastodon, X) counts each so; Bluesky also bounds the text's UTF-8 bytes.
 */
function checkText(
  content: PlatformContent,
  caps: Capabilities,
  platform: string,
  fail: (message: string) => void,
): void {
  const text = platformText(content, caps.polls);
  const limit =
    content.media.length > 0 && caps.captionLimit !== undefined ? caps.captionLimit : caps.textLimit;
  const length = textLength(text, caps);
  const pollCounted = text !== platformText({ ...content, poll: undefined }, caps.polls);
  const parts = [
    ...(content.link ? ['the link'] : []),
    ...(pollCounted
      ? [QUESTION_PLATFORMS.has(platform) ? "the poll's question" : 'the poll written out']
      : []),
  ];
  const included = parts.length > 0 ? `, ${parts.join(' and ')} included` : '';
  const fix = `Shorten the caption${pollCounted ? ' or the poll' : ''}, or give ${platform} its own with platforms.${OVERRIDE_KEYS[content.platform]}.caption.`;
  if (length > limit) {
    const unit = UNIT_WORDS[caps.textUnit];
    const withMedia = limit === caps.captionLimit ? ' with media' : '';
    fail(`The text is ${length} ${unit}${included}; ${platform} takes at most ${limit}${withMedia}. ${fix}`);
    return;
  }
  const bytes = content.platform === 'Bluesky' ? utf8.encode(text).length : 0;
  if (bytes > BLUESKY_TEXT_BYTES) {
    fail(
      `The text is ${bytes} bytes in UTF-8${included}; ${platform} takes at most ${BLUESKY_TEXT_BYTES}. ${fix}`,
    );
  }
}

/** The fields a platform sends apart from the text, each within its own limit (Pinterest's pins). */
function checkFields(
  content: PlatformContent,
  caps: Capabilities,
  platform: string,
  fail: (message: string) => void,
): void {
  const fields = [
    { name: 'title', value: content.title, limit: caps.titleLimit },
    { name: 'alt text', value: content.alt, limit: caps.altLimit },
    { name: 'link', value: content.link, limit: caps.linkLimit },
  ];
  for (const { name, value, limit } of fields) {
    const length = value === undefined ? 0 : [...value].length;
    if (limit !== undefined && length > limit) {
      fail(`The ${name} is ${length} characters; ${platform} takes at most ${limit}: shorten it.`);
    }
  }
}

const utf8 = new TextEncoder();

/** Platforms whose polls have no question of their own: it is written in the text. */
const QUESTION_PLATFORMS = new Set(['Mastodon', 'X/Twitter']);

const UNIT_WORDS: Record<Capabilities['textUnit'], string> = {
  characters: 'characters',
  graphemes: 'characters (as people see them)',
  weighted: 'characters as X counts them (CJK characters and emoji count 2)',
};

const URL_PATTERN = /https?:\/\/[^\s]+/g;
/** Made once: making a segmenter resolves its locale, which costs as much as counting a caption. */
let segmenter: Intl.Segmenter | undefined;

/**
 * Beyond ASCII: what needs the segmenter. In ASCII each character is a grapheme of its own, but CR LF
 * is one (UAX #29, rule GB3); counting so is a hundred times quicker than segmenting.
 */
const NOT_ASCII = /[\u0080-\uffff]/;

function graphemeCount(text: string): number {
  if (!NOT_ASCII.test(text)) return text.length - (text.split('\r\n').length - 1);
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return [...segmenter.segment(text)].length;
}

export function textLength(text: string, caps: Pick<Capabilities, 'textUnit' | 'linkLength'>): number {
  if (caps.textUnit === 'weighted') return weightedLength(text, caps.linkLength ?? 23);
  let counted = text;
  let links = 0;
  if (caps.linkLength !== undefined) {
    counted = text.replace(URL_PATTERN, () => {
      links++;
      return '';
    });
  }
  const base = caps.textUnit === 'graphemes' ? graphemeCount(counted) : [...counted].length;
  return base + links * (caps.linkLength ?? 0);
}

/**
 * The code points twitter-text v3 weighs 1 (`config/v3.json`: scale 100, default weight 200, ranges
 * of weight 100): Latin, Greek, Cyrillic and most scripts before Hangul Jamo, and some punctuation.
 */
const LIGHT_RANGES: readonly [number, number][] = [
  [0, 4351],
  [8192, 8205],
  [8208, 8223],
  [8242, 8247],
];
/** An emoji, counted 2 whatever its code points (a ZWJ sequence, a flag, a keycap, a skin tone). */
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

/**
 * A text's length as X counts it (docs.x.com/fundamentals/counting-characters, twitter-text v3): the
 * text normalised to NFC, every URL `linkLength` (23), every emoji 2, each other code point 1 in
 * LIGHT_RANGES and 2 beyond. Only http(s) URLs are counted as links (X also links a bare domain; its
 * count is then lower than ours, never higher).
 */
export function weightedLength(text: string, linkLength = 23): number {
  let links = 0;
  const rest = text.normalize('NFC').replace(URL_PATTERN, () => {
    links++;
    return '';
  });
  let length = links * linkLength;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of segmenter.segment(rest)) {
    if (EMOJI.test(segment)) {
      length += 2;
      continue;
    }
    for (const char of segment) {
      const point = char.codePointAt(0)!;
      length += LIGHT_RANGES.some(([low, high]) => point >= low && point <= high) ? 1 : 2;
    }
  }
  return length;
}

/** Whole mebibytes as "16 MB" (what the platforms' documents say), anything else exactly. */
function megabytes(bytes: number): string {
  return bytes % 1_048_576 === 0 ? `${bytes / 1_048_576} MB` : `${bytes.toLocaleString('en-US')} bytes`;
}
