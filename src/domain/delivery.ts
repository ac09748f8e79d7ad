/**
 * What a delivery is: one post going to one channel. The content is exactly what that channel's
 * platform receives once the platform rules (platform-rules.ts) have been applied.
 */
import type { ChannelType } from './schemas.js';

export const DELIVERY_STATUSES = ['pending', 'sending', 'sent', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const COMMENT_STATUSES = ['none', 'pending', 'sending', 'sent', 'failed'] as const;
export type CommentStatus = (typeof COMMENT_STATUSES)[number];

/** The platforms that take polls and quizzes. */
export const POLL_PLATFORMS: ReadonlySet<ChannelType> = new Set([
  'LinkedIn',
  'X/Twitter',
  'Telegram',
  'Threads',
  'Mastodon',
  'Bluesky',
]);

/** The platforms that publish Stories. */
export const STORY_PLATFORMS: ReadonlySet<ChannelType> = new Set(['Instagram', 'Facebook']);

/** The platforms whose posts have a title (video and pin platforms; TikTok's photo posts). */
export const TITLE_PLATFORMS: ReadonlySet<ChannelType> = new Set(['YouTube', 'TikTok', 'Pinterest']);

/** The key of `platforms` that holds each platform's overrides (at least its own `caption`). */
export const OVERRIDE_KEYS = {
  Facebook: 'facebook',
  Instagram: 'instagram',
  Threads: 'threads',
  LinkedIn: 'linkedin',
  'Google Business': 'googlebusiness',
  YouTube: 'youtube',
  TikTok: 'tiktok',
  Pinterest: 'pinterest',
  'X/Twitter': 'x',
  Mastodon: 'mastodon',
  Bluesky: 'bluesky',
  Telegram: 'telegram',
} as const satisfies Record<ChannelType, string>;
export type OverrideKey = (typeof OVERRIDE_KEYS)[ChannelType];

export interface PlatformMedia {
  /** A media id of the brand, or undefined for a URL. */
  id?: string;
  url?: string;
  /** MIME type, when known (uploaded media). */
  type?: string;
}

/** What one platform receives. Absent members are not sent. */
export interface PlatformContent {
  platform: ChannelType;
  /** `feed` or, on Instagram and Facebook with postAsStory, `story`. */
  format: 'feed' | 'story';
  caption?: string;
  title?: string;
  alt?: string;
  link?: string;
  media: PlatformMedia[];
  poll?: {
    question: string;
    options: string[];
    period: '1d' | '3d' | '7d';
    correctOptionIndex?: number;
    explanation?: string;
  };
  /** This platform's overrides only (from `platforms.<key>`). */
  overrides?: Record<string, unknown>;
}

/** The outcome of planning a delivery: send this content, or fail / skip it with a reason. */
export type DeliveryPlan =
  | { action: 'send'; content: PlatformContent; notes: string[] }
  | { action: 'fail'; reason: string }
  | { action: 'skip'; reason: string };
