/** The zod schemas of posts: the creation payload of http-interface.md, and our post lifecycle. */
import { z } from 'zod';
import { COMMENT_STATUSES, DELIVERY_STATUSES } from './delivery.js';
import {
  CHANNEL_TYPES,
  customIssue,
  httpUrl,
  Id,
  PageQuery,
  POLL_PERIODS,
  PUBLISH_MODES,
  Timestamp,
  text,
} from './schemas.js';
import { parseWallClock, SCHEDULED_AT_FORMAT } from './time.js';

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

/**
 * A year. The spec gives no limit; without one, a delay of 10^13 s put the comment's due time past any
 * date the interface can write. A year covers every real use and keeps the due time writable.
 */
export const COMMENT_DELAY_MAX_SECONDS = 31_536_000;

export const Comment = z.strictObject({
  comment: text({ max: 1000 }),
  delay: z
    .number()
    .int()
    .min(0)
    .max(COMMENT_DELAY_MAX_SECONDS)
    .describe('Seconds after publishing (at most 31536000, a year)'),
});

export const MediaElement = z
  .strictObject({
    id: text({ max: 255 }).optional().describe('A media id returned by upload_media for the same brand'),
    url: httpUrl(2048).optional().describe('A direct public http(s) URL of the file'),
  })
  .describe('Exactly one of id or url');

const Location = z.strictObject({ id: text({ max: 255 }), name: text({ max: 255 }) });

/** A platform's own caption: the same rules as `caption`, used on that platform instead of it. */
const OwnCaption = text({ max: 3000 }).optional();
const captionOnly = () => z.strictObject({ caption: OwnCaption }).optional();

export const PlatformOverrides = z.strictObject({
  instagram: z
    .strictObject({
      caption: OwnCaption,
      collab: text({ max: 255 }).optional(),
      location: Location.optional(),
      trialReel: text({ max: 255 }).optional().describe('MANUAL is a value in use'),
      shareToFeed: z.boolean().optional(),
    })
    .optional(),
  facebook: z
    .strictObject({
      caption: OwnCaption,
      collab: text({ max: 255 }).optional(),
      location: Location.optional(),
      reel: z.boolean().optional(),
    })
    .optional(),
  tiktok: z.strictObject({ caption: OwnCaption, sendToInbox: z.boolean().optional() }).optional(),
  youtube: z
    .strictObject({
      caption: OwnCaption,
      tags: z.array(text({ max: 500 })).optional(),
      // Default public (as YouTube's privacyStatus).
      privacy: z.enum(['public', 'unlisted', 'private']).optional(),
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
  threads: captionOnly(),
  linkedin: captionOnly(),
  googlebusiness: captionOnly(),
  pinterest: captionOnly(),
  x: captionOnly(),
  mastodon: captionOnly(),
  bluesky: captionOnly(),
  telegram: captionOnly(),
});

export const ScheduledAt = z
  .string()
  .check((ctx) => {
    if (!parseWallClock(ctx.value))
      ctx.issues.push(customIssue({ rule: 'date_format', format: SCHEDULED_AT_FORMAT }, ctx.value));
  })
  .meta({
    pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
    description:
      "Wall-clock time in the BRAND's timezone (not UTC, not the user's), Y-m-d H:i:s, e.g. 2026-11-24 09:00:00; in the future; required for SCHEDULE",
  });

/** The post creation payload of http-interface.md. */
export const PostPayload = z.strictObject({
  publishMode: z
    .enum(PUBLISH_MODES)
    .describe(
      'QUEUE: next free queue time of the brand; SCHEDULE: at scheduledAt; IMMEDIATE: publish now; DRAFT: save only',
    ),
  caption: text({ max: 3000 }).optional().describe('Post text; required unless poll is set'),
  poll: Poll.optional().describe('Poll or quiz (LinkedIn, X/Twitter, Telegram, Threads, Mastodon, Bluesky)'),
  title: text({ max: 255 }).optional().describe('Title where posts have one (YouTube, Pinterest, ...)'),
  alt: text({ max: 255 }).optional().describe('Accessibility text for the media'),
  link: httpUrl(1000).optional().describe('URL attached to the post'),
  scheduledAt: ScheduledAt.optional(),
  postAsStory: z.boolean().optional().describe('As a Story on Instagram and Facebook channels'),
  comment: Comment.optional().describe('Auto-comment posted delay seconds after publishing'),
  media: z.array(MediaElement).optional(),
  platforms: PlatformOverrides.optional().describe(
    "Per-platform overrides, keyed by lowercase platform; a platform's caption is sent there instead of caption",
  ),
});

export const CreatePostRequest = z.strictObject({
  brandId: Id.describe('Brand id, from list_brands'),
  collectionId: Id.describe('Collection id, from list_collections'),
  ...PostPayload.shape,
  idempotencyKey: text({ max: 255 })
    .optional()
    .describe('The same key again returns the first post instead of a new one'),
  dryRun: z.boolean().optional().describe('Check and tell what would happen; store and publish nothing'),
});

export type PostPayload = z.infer<typeof PostPayload>;
export type CreatePostRequest = z.infer<typeof CreatePostRequest>;

/** What will happen to the post on one channel, told before publishing (domain/preflight.ts). */
export const PreflightWarning = z.object({
  channelId: z.number().int(),
  channelName: z.string(),
  outcome: z.enum(['fail', 'skip', 'change']),
  message: z.string(),
});
export type PreflightWarning = z.infer<typeof PreflightWarning>;

/**
 * `id` is null only for a dry run; `duplicate` marks an answer that returns an earlier post; `warnings`
 * (only when there is one) says, per channel, what will fail, be skipped or be changed.
 */
export const CreatedPost = z.object({
  id: z.number().int().nullable(),
  message: z.string(),
  duplicate: z.boolean().optional(),
  dryRun: z.boolean().optional(),
  warnings: z.array(PreflightWarning).optional(),
});
export type CreatedPost = z.infer<typeof CreatedPost>;

// ---------------------------------------------------------------- the post lifecycle (our extension)

export const POST_STATUSES = [
  'draft',
  'queued',
  'scheduled',
  'publishing',
  'published',
  'partially_published',
  'failed',
  'cancelled',
] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/** Statuses in which a post may still be changed, published now or deleted. */
export const EDITABLE_STATUSES: ReadonlySet<PostStatus> = new Set(['draft', 'queued', 'scheduled']);

export const Delivery = z.object({
  id: z.number().int(),
  channelId: z.number().int(),
  channelName: z.string(),
  channelType: z.enum(CHANNEL_TYPES),
  status: z.enum(DELIVERY_STATUSES),
  reason: z.string().nullable(),
  notes: z.array(z.string()),
  content: z.record(z.string(), z.unknown()).nullable(),
  externalId: z.string().nullable().describe("The platform's id of the published post"),
  // Optional: a server of an earlier version does not send them.
  url: z
    .string()
    .nullable()
    .optional()
    .describe('The public address of the published post, to open or share'),
  attempts: z.number().int(),
  retryAt: Timestamp.nullable()
    .optional()
    .describe('A delivery waiting after a rate limit or a fault is sent again then'),
  sentAt: Timestamp.nullable(),
  comment: z.object({
    status: z.enum(COMMENT_STATUSES),
    dueAt: Timestamp.nullable(),
    sentAt: Timestamp.nullable(),
    reason: z.string().nullable(),
  }),
});

const { publishMode: _mode, scheduledAt: _scheduledAt, ...contentShape } = PostPayload.shape;
export const PostContent = z.object(contentShape);

export const Post = z.object({
  id: z.number().int(),
  brandId: z.number().int(),
  collectionId: z.number().int(),
  status: z.enum(POST_STATUSES),
  publishMode: z.enum(PUBLISH_MODES),
  timezone: z.string(),
  scheduledAt: z.string().nullable().describe("When it goes out, in the brand's timezone (Y-m-d H:i:s)"),
  dueAt: Timestamp.nullable().describe('When it goes out, UTC'),
  content: PostContent,
  deliveries: z.array(Delivery),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  publishedAt: Timestamp.nullable(),
  warnings: z
    .array(PreflightWarning)
    .optional()
    .describe('After a change (update_post), per channel: what will fail, be skipped or be changed'),
});

export const DeletedPost = z.object({
  id: z.number().int(),
  status: z.enum(['deleted', 'cancelled']),
  message: z.string(),
});

export const QueueSlot = z.object({ scheduledAt: z.string(), at: Timestamp });

export const Queue = z.object({
  brandId: z.number().int(),
  timezone: z.string(),
  localNow: z.string().describe("The brand's current local time, Y-m-d H:i:s"),
  now: Timestamp,
  queueTimes: z.array(z.string()),
  nextSlots: z.array(QueueSlot).describe('The next free queue times a QUEUE post would take, in order'),
  queued: z.array(Post).describe('Posts of the queue (QUEUE mode) still to go out, soonest first'),
});

export type Delivery = z.infer<typeof Delivery>;
export type Post = z.infer<typeof Post>;
export type DeletedPost = z.infer<typeof DeletedPost>;
export type Queue = z.infer<typeof Queue>;

const LocalTime = z
  .string()
  .check((ctx) => {
    if (!parseWallClock(ctx.value))
      ctx.issues.push(customIssue({ rule: 'date_format', format: SCHEDULED_AT_FORMAT }, ctx.value));
  })
  .meta({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' });

const PostId = Id.describe('Post id, from create_post or list_posts');

export const ListPostsRequest = z.strictObject({
  brandId: Id.describe('Brand id, from list_brands'),
  status: z.enum(POST_STATUSES).optional().describe('Only posts in this status'),
  collectionId: Id.optional().describe('Only posts of this collection'),
  from: LocalTime.optional().describe(
    "Only posts going out at or after this local time (brand's timezone, Y-m-d H:i:s)",
  ),
  to: LocalTime.optional().describe(
    "Only posts going out before this local time (brand's timezone, Y-m-d H:i:s)",
  ),
  order: z
    .enum(['newest', 'calendar'])
    .optional()
    .describe('newest: latest planned time first (default); calendar: soonest first'),
  ...PageQuery,
});

export const PostRequest = z.strictObject({
  brandId: Id.describe('Brand id, from list_brands'),
  postId: PostId,
});

export const UpdatePostRequest = z.strictObject({
  brandId: Id.describe('Brand id, from list_brands'),
  postId: PostId,
  ...PostPayload.partial().shape,
});

export const QueueRequest = z.strictObject({
  brandId: Id.describe('Brand id, from list_brands'),
  count: z.number().int().min(1).max(50).optional().describe('How many free slots to show (default 5)'),
});
