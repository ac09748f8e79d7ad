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
import { youtubeProblems } from './youtube-rules.js';

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

/**
 * What is known of a media element of the post, for uploaded media: its type and size, and a video's
 * duration when its upload measured it (MP4, QuickTime).
 */
export type MediaFacts = ReadonlyMap<string, { type: string; size: number; durationMs?: number | null }>;

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
  if (platform === 'YouTube') for (const problem of youtubeProblems(content)) fail(problem);
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
    const length = videoLengthProblem(facts.durationMs, caps);
    if (length) {
      fail(`media.${index} is a video of ${length}; ${platform} takes videos ${videoLengthsTaken(caps)}.`);
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
    // in UTF-16 units, which count an emoji twice. X and Threads do not say that their options are
    // counted like their text: they are counted in code points, the lenient reading.
    const longest = caps.maxPollOptionLength;
    const unit = caps.textUnit === 'graphemes' ? 'graphemes' : 'characters';
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
const QUESTION_PLATFORMS = new Set(['Mastodon', 'X/Twitter', 'Threads']);

const UNIT_WORDS: Record<Capabilities['textUnit'], string> = {
  characters: 'characters',
  graphemes: 'characters (as people see them)',
  weighted: 'characters as X counts them (CJK characters and emoji count 2)',
  'emoji-bytes': 'characters as Threads counts them (an emoji counts its UTF-8 bytes)',
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
  if (caps.textUnit === 'emoji-bytes') return threadsLength(text);
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

/** An emoji's parts: a pictograph, the joiner and the selector between them, a skin tone. */
const EMOJI_PART = /\p{Extended_Pictographic}|\u200d|\ufe0f|\p{Emoji_Modifier}/u;

/**
 * A text's length as Threads counts it (developers.facebook.com/documentation/threads/overview,
 * limitations: 500 characters, emoji "counted by their UTF-8 byte length"): each code point one, each
 * part of an emoji its UTF-8 bytes. Unconfirmed beyond that sentence: how a sequence of several emoji
 * code points counts exactly; this counts each part's bytes, the stricter reading.
 */
export function threadsLength(text: string): number {
  let count = 0;
  for (const char of text) count += EMOJI_PART.test(char) ? utf8.encode(char).length : 1;
  return count;
}

/** Whole mebibytes as "16 MB" (what the platforms' documents say), anything else exactly. */
/** A measured video outside the platform's bounds, as its length in words; undefined when within. */
function videoLengthProblem(durationMs: number | null | undefined, caps: Capabilities): string | undefined {
  if (durationMs === null || durationMs === undefined) return undefined;
  const seconds = durationMs / 1000;
  const short = caps.minVideoSeconds !== undefined && seconds < caps.minVideoSeconds;
  const long = caps.maxVideoSeconds !== undefined && seconds > caps.maxVideoSeconds;
  return short || long ? duration(seconds) : undefined;
}

/** The video lengths a platform takes, in words (`of 3 seconds to 15 min`); undefined when unbounded. */
export function videoLengthsTaken(
  caps: Pick<Capabilities, 'minVideoSeconds' | 'maxVideoSeconds'>,
): string | undefined {
  const { minVideoSeconds: min, maxVideoSeconds: max } = caps;
  if (min === undefined) return max === undefined ? undefined : `up to ${duration(max)}`;
  return max === undefined ? `of at least ${duration(min)}` : `of ${duration(min)} to ${duration(max)}`;
}

/** `0.5 seconds`, `2 min 20 s`, `2 min 20.4 s`, `15 min`: to a tenth of a second. */
function duration(seconds: number): string {
  const tenths = Math.round(seconds * 10);
  if (tenths < 600) return `${tenths / 10} seconds`;
  const minutes = Math.floor(tenths / 600);
  const rest = (tenths % 600) / 10;
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
}

function megabytes(bytes: number): string {
  return bytes % 1_048_576 === 0 ? `${bytes / 1_048_576} MB` : `${bytes.toLocaleString('en-US')} bytes`;
}
