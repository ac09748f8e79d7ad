/**
 * The zod schemas of the interface: resources as the service returns them, and the requests it accepts.
 * They are the single source for validation, the MCP tools' JSON Schema, REST and the remote client.
 */
import { z } from 'zod';
import type { CustomRule } from './messages.js';
import { isValidTimezone, parseWallClock, SCHEDULED_AT_FORMAT } from './time.js';

export const CHANNEL_TYPES = [
  'Facebook',
  'Instagram',
  'Threads',
  'LinkedIn',
  'Google Business',
  'YouTube',
  'TikTok',
  'Pinterest',
  'X/Twitter',
  'Mastodon',
  'Bluesky',
  'Telegram',
] as const;
export const CHANNEL_STATUSES = ['ACTIVE', 'INACTIVE'] as const;
export const COLLECTION_STATUSES = ['ACTIVE'] as const;
export const PUBLISH_MODES = ['QUEUE', 'SCHEDULE', 'IMMEDIATE', 'DRAFT'] as const;
export const POLL_PERIODS = ['1d', '3d', '7d'] as const;
export const PER_PAGE_DEFAULT = 10;
export const PER_PAGE_MAX = 100;

export type ChannelType = (typeof CHANNEL_TYPES)[number];
export type PublishMode = (typeof PUBLISH_MODES)[number];

function issue(rule: CustomRule, input: unknown) {
  return { code: 'custom' as const, input, params: rule };
}

/** Characters are counted as Unicode code points (an emoji is one), as Laravel's `mb_strlen` does. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * A string of `min`..`max` characters. A blank string fails as missing: callers drop blank optional
 * properties before validation, so only required fields and array items get here blank.
 */
export function text(limits: { max: number; min?: number }) {
  const min = limits.min ?? 1;
  return z
    .string()
    .check((ctx) => {
      const value = ctx.value;
      if (value.trim() === '') {
        ctx.issues.push(issue({ rule: 'required' }, value));
        return;
      }
      const length = characterCount(value);
      if (length < min) ctx.issues.push(issue({ rule: 'min_chars', limit: min }, value));
      if (length > limits.max) ctx.issues.push(issue({ rule: 'max_chars', limit: limits.max }, value));
    })
    .meta({ minLength: min, maxLength: limits.max });
}

/** An absolute http(s) URL of at most `max` characters. */
export function httpUrl(max: number) {
  return z
    .url({ protocol: /^https?$/, hostname: /^[^\s]+$/ })
    .check((ctx) => {
      if (characterCount(ctx.value) > max)
        ctx.issues.push(issue({ rule: 'max_chars', limit: max }, ctx.value));
    })
    .meta({ maxLength: max });
}

export const Timezone = z
  .string()
  .check((ctx) => {
    if (!isValidTimezone(ctx.value)) ctx.issues.push(issue({ rule: 'timezone' }, ctx.value));
  })
  .meta({ description: 'IANA timezone name, e.g. America/New_York' });

const Id = z.number().int().min(1);

// ---------------------------------------------------------------- resources (responses)

/** `<YYYY-MM-DD>T<HH:MM:SS>.<microseconds>Z`, UTC. */
export const Timestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

export const User = z.object({
  id: z.string(),
  name: z.string(),
  joinedAt: Timestamp,
  timezone: z.string(),
});

export const Brand = z.object({
  id: z.number().int(),
  title: z.string(),
  description: z.string().nullable(),
  timezone: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const Channel = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.enum(CHANNEL_STATUSES),
  type: z.enum(CHANNEL_TYPES),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const Collection = z.object({
  id: z.number().int(),
  title: z.string(),
  description: z.string().nullable(),
  status: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  channels: z.array(Channel),
});

export const Media = z.object({
  id: z.string(),
  type: z.string(),
  size: z.number().int(),
});

export const CreatedPost = z.object({
  id: z.number().int(),
  message: z.string(),
});

export const Pagination = z.object({
  currentPage: z.number().int(),
  perPage: z.number().int(),
  total: z.number().int(),
  lastPage: z.number().int(),
  nextPageUrl: z.string().nullable(),
  prevPageUrl: z.string().nullable(),
});

export type User = z.infer<typeof User>;
export type Brand = z.infer<typeof Brand>;
export type Channel = z.infer<typeof Channel>;
export type Collection = z.infer<typeof Collection>;
export type Media = z.infer<typeof Media>;
export type CreatedPost = z.infer<typeof CreatedPost>;
export type Pagination = z.infer<typeof Pagination>;

// ---------------------------------------------------------------- requests

export const PageQuery = {
  page: Id.optional().describe('Page number, from 1 (default 1)'),
  per_page: z
    .number()
    .int()
    .min(1)
    .max(PER_PAGE_MAX)
    .optional()
    .describe(`Items per page, 1 to ${PER_PAGE_MAX} (default ${PER_PAGE_DEFAULT})`),
};

export const GetProfileRequest = z.strictObject({});
export const ListBrandsRequest = z.strictObject({ ...PageQuery });
export const BrandPageRequest = z.strictObject({
  brandId: Id.describe('Brand id, from list_brands'),
  ...PageQuery,
});

export const UploadMediaRequest = z.strictObject({
  brandId: Id.describe('Brand id, from list_brands: the media belongs to this brand'),
  path: text({ max: 4096 }).describe(
    'Absolute path of a local file: png, jpg/jpeg, mp4, mov or pdf, at most 100 MB. The type is read from the bytes.',
  ),
});

export const Poll = z.strictObject({
  question: text({ max: 280 }),
  options: z
    .array(text({ max: 30 }))
    .min(2)
    .max(4),
  period: z.enum(POLL_PERIODS).describe('How long the poll is open'),
  correctOptionIndex: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Zero-based index of the correct option (quiz)'),
  explanation: text({ max: 512 }).optional().describe('Shown after voting'),
});

export const Comment = z.strictObject({
  comment: text({ max: 1000 }),
  delay: z.number().int().min(0).describe('Seconds after publishing before the comment is posted'),
});

export const MediaElement = z
  .strictObject({
    id: text({ max: 255 }).optional().describe('A media id returned by upload_media for the same brand'),
    url: httpUrl(2048).optional().describe('A direct public http(s) URL of the file'),
  })
  .describe('Exactly one of id or url');

const Location = z.strictObject({ id: text({ max: 255 }), name: text({ max: 255 }) });

export const PlatformOverrides = z.strictObject({
  instagram: z
    .strictObject({
      collab: text({ max: 255 }).optional(),
      location: Location.optional(),
      trialReel: text({ max: 255 }).optional().describe('MANUAL is a value in use'),
      shareToFeed: z.boolean().optional(),
    })
    .optional(),
  facebook: z
    .strictObject({ collab: text({ max: 255 }).optional(), location: Location.optional() })
    .optional(),
  tiktok: z.strictObject({ sendToInbox: z.boolean().optional() }).optional(),
  youtube: z
    .strictObject({
      tags: z.array(text({ max: 500 })).optional(),
      playlists: z
        .array(
          z.strictObject({
            channelId: Id.describe('A YouTube channel of the brand'),
            playlistIds: z.array(text({ max: 255 })),
          }),
        )
        .optional(),
    })
    .optional(),
});

export const ScheduledAt = z
  .string()
  .check((ctx) => {
    if (!parseWallClock(ctx.value))
      ctx.issues.push(issue({ rule: 'date_format', format: SCHEDULED_AT_FORMAT }, ctx.value));
  })
  .meta({
    pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
    description:
      "Local wall-clock time in the BRAND's timezone (not UTC, not the user's), format Y-m-d H:i:s, e.g. 2026-11-24 09:00:00. Required when publishMode is SCHEDULE; must be in the future.",
  });

/** The post creation payload of http-interface.md. */
export const PostPayload = z.strictObject({
  publishMode: z
    .enum(PUBLISH_MODES)
    .describe(
      'QUEUE: next free queue time of the brand; SCHEDULE: at scheduledAt; IMMEDIATE: publish now; DRAFT: save only',
    ),
  caption: text({ max: 3000 })
    .optional()
    .describe('Post text, 1 to 3000 characters; required unless poll is set'),
  poll: Poll.optional().describe('Poll or quiz (LinkedIn, X/Twitter, Telegram, Threads, Mastodon, Bluesky)'),
  title: text({ max: 255 })
    .optional()
    .describe('Title for platforms that have titles (YouTube, Pinterest, ...)'),
  alt: text({ max: 255 }).optional().describe('Accessibility text for the media'),
  link: httpUrl(1000).optional().describe('URL attached to the post'),
  scheduledAt: ScheduledAt.optional(),
  postAsStory: z.boolean().optional().describe('Publish as a Story on Instagram and Facebook channels'),
  comment: Comment.optional().describe('Auto-comment posted delay seconds after publishing'),
  media: z.array(MediaElement).optional(),
  platforms: PlatformOverrides.optional().describe(
    'Platform-specific overrides, keyed by lowercase platform',
  ),
});

export const CreatePostRequest = z.strictObject({
  brandId: Id.describe('Brand id, from list_brands'),
  collectionId: Id.describe('Collection id, from list_collections: the post goes to every channel in it'),
  ...PostPayload.shape,
});

export type PostPayload = z.infer<typeof PostPayload>;
export type CreatePostRequest = z.infer<typeof CreatePostRequest>;
