/**
 * What a platform takes: the limits the pre-flight checks read. A channel without a connection has its
 * platform's documented defaults (PLATFORM_CAPABILITIES); a connected channel has what its connector
 * learned from the account when it was connected (a Mastodon instance's own character limit), stored
 * with the connection.
 */
import type { ChannelType } from './schemas.js';

export interface Capabilities {
  /** Longest text of a post without media, counted in `textUnit`. */
  textLimit: number;
  /** Longest text of a post with media (Telegram's captions), when it differs from `textLimit`. */
  captionLimit?: number;
  /**
   * `characters` = Unicode code points; `graphemes` = what a reader sees as one character (Bluesky);
   * `weighted` = X's count (twitter-text v3, preflight.ts `weightedLength`): most scripts beyond Latin,
   * Greek and Cyrillic count 2, an emoji 2, a link `linkLength`; `emoji-bytes` = Threads' count
   * (preflight.ts `threadsLength`): code points, an emoji its UTF-8 bytes.
   */
  textUnit: 'characters' | 'graphemes' | 'weighted' | 'emoji-bytes';
  /** A link counts as this many characters, whatever its length (Mastodon and X count 23). */
  linkLength?: number;
  /** Most media of one post. */
  maxMedia: number;
  /** MIME types a post may carry; media of other types are refused. */
  mediaTypes: readonly string[];
  /** Largest image, in bytes, when the platform sets a limit below ours. */
  maxImageBytes?: number;
  /** Largest video, in bytes, when the platform sets a limit below ours. */
  maxVideoBytes?: number;
  /** Shortest and longest video, in seconds, where the platform bounds them (pre-flight, on upload's measure). */
  minVideoSeconds?: number;
  maxVideoSeconds?: number;
  /** The platform publishes nothing without media (Instagram, TikTok, YouTube, Pinterest). */
  requiresMedia: boolean;
  /** Native polls. */
  polls: boolean;
  /** A poll and media in one post. */
  pollWithMedia: boolean;
  /** Most poll options, and the longest option. */
  maxPollOptions?: number;
  maxPollOptionLength?: number;
  /** Longest title, in characters, where posts have one and the platform bounds it (Pinterest: 100). */
  titleLimit?: number;
  /** Longest alt text, in characters, where the platform bounds it (Pinterest: 500). */
  altLimit?: number;
  /** Longest link, in characters, where the platform sends it apart from the text (Pinterest: 2,048). */
  linkLimit?: number;
  /**
   * False where the connected platform has no way to comment on a post (Google Business Profile,
   * Pinterest, TikTok): the auto-comment is not posted, and pre-flight says so. Absent: comments work.
   */
  comments?: boolean;
}

/**
 * The most UTF-8 bytes of a Bluesky post's text (lexicon app.bsky.feed.post), beside its 300 graphemes:
 * 300 emoji of several code points each pass the one and not the other.
 */
export const BLUESKY_TEXT_BYTES = 3000;

const IMAGES = ['image/png', 'image/jpeg'];
const VIDEOS = ['video/mp4', 'video/quicktime'];
const MB = 1024 * 1024;

/**
 * Each platform's documented limits, for channels without a connection of their own (the sandbox and
 * the webhook stand in for them): what the platform would accept if it were sent there.
 */
export const PLATFORM_CAPABILITIES: Readonly<Record<ChannelType, Capabilities>> = {
  Facebook: base(63_206, 10, [...IMAGES, ...VIDEOS]),
  // Videos 3 s to 15 min: since July 2023 a feed video is published as a reel (Meta's reels
  // specifications, as integrators quote them; a story's 60 s is not checked).
  Instagram: {
    ...base(2_200, 10, ['image/jpeg', ...VIDEOS]),
    requiresMedia: true,
    maxImageBytes: 8 * MB,
    ...videoSeconds(3, 900),
  },
  // Videos up to 5 min (Meta's Threads video specifications, as integrators quote them).
  Threads: {
    ...base(500, 20, [...IMAGES, ...VIDEOS]),
    textUnit: 'emoji-bytes',
    ...polls(4, 25),
    maxVideoSeconds: 300,
  },
  // Videos 3 s to 30 min (LinkedIn's video specifications, as integrators quote them).
  LinkedIn: {
    ...base(3_000, 20, [...IMAGES, ...VIDEOS, 'application/pdf']),
    ...polls(4, 30),
    ...videoSeconds(3, 1800),
  },
  // Local posts and TikTok's Content Posting API have no comments.
  'Google Business': { ...base(1_500, 1, [...IMAGES, ...VIDEOS]), comments: false },
  YouTube: { ...base(5_000, 1, VIDEOS), requiresMedia: true },
  // Videos up to 10 min by the API; each creator's own longest (`max_video_post_duration_sec`, often
  // 3 or 5 min) is checked by the connector when it posts.
  TikTok: {
    ...base(2_200, 35, ['image/jpeg', ...VIDEOS]),
    requiresMedia: true,
    comments: false,
    maxVideoSeconds: 600,
  },
  // API v5's PinCreate: title 100, description 800, alt_text 500, link 2048; carousel 2-5 images;
  // images 20 MB, videos 2 GB (help.pinterest.com, "Pin specs"); no comment endpoint.
  Pinterest: {
    ...base(800, 5, [...IMAGES, ...VIDEOS]),
    requiresMedia: true,
    maxImageBytes: 20 * MB,
    maxVideoBytes: 2048 * MB,
    titleLimit: 100,
    altLimit: 500,
    linkLimit: 2048,
    comments: false,
  },
  'X/Twitter': {
    ...base(280, 4, [...IMAGES, ...VIDEOS]),
    // docs.x.com/fundamentals/counting-characters; media: x-api/media/quickstart/best-practices.
    textUnit: 'weighted',
    linkLength: 23,
    maxImageBytes: 5 * MB,
    maxVideoBytes: 512 * MB,
    ...videoSeconds(0.5, 140),
    ...polls(4, 25),
  },
  Mastodon: {
    ...base(500, 4, [...IMAGES, ...VIDEOS]),
    textUnit: 'graphemes',
    linkLength: 23,
    maxImageBytes: 16 * MB,
    maxVideoBytes: 99 * MB,
    ...polls(4, 50),
  },
  // Bluesky has no polls: its connector sends the question and options as text; the sandbox and the
  // webhook receive the poll itself, as the interface's list of poll platforms has it.
  Bluesky: { ...base(300, 4, IMAGES), textUnit: 'graphemes', maxImageBytes: 2_000_000, ...polls(4, 30) },
  Telegram: {
    ...base(4_096, 10, [...IMAGES, ...VIDEOS, 'application/pdf']),
    captionLimit: 1_024,
    maxImageBytes: 10 * MB,
    maxVideoBytes: 50 * MB,
    ...polls(12, 100),
  },
};

/**
 * A channel's capabilities: its connection's, else its platform's. A connection keeps what was known
 * when it was made; the video length bounds came later (2026-11-26), so a connection without them
 * takes its platform's.
 */
export function capabilitiesOf(type: ChannelType, stored: Capabilities | undefined): Capabilities {
  if (!stored) return PLATFORM_CAPABILITIES[type];
  const { minVideoSeconds: min, maxVideoSeconds: max } = PLATFORM_CAPABILITIES[type];
  return {
    ...(min === undefined ? {} : { minVideoSeconds: min }),
    ...(max === undefined ? {} : { maxVideoSeconds: max }),
    ...stored,
  };
}

function base(textLimit: number, maxMedia: number, mediaTypes: string[]): Capabilities {
  return {
    textLimit,
    textUnit: 'characters',
    maxMedia,
    mediaTypes,
    requiresMedia: false,
    polls: false,
    pollWithMedia: false,
  };
}

function videoSeconds(minVideoSeconds: number, maxVideoSeconds: number): Partial<Capabilities> {
  return { minVideoSeconds, maxVideoSeconds };
}

function polls(maxPollOptions: number, maxPollOptionLength: number): Partial<Capabilities> {
  return { polls: true, maxPollOptions, maxPollOptionLength };
}
