/**
 * The zod schemas of the interface: resources as the service returns them, and the requests it accepts.
 * They are the single source for validation, the MCP tools' JSON Schema, REST and the remote client.
 */
import { z } from 'zod';
import type { CustomRule } from './messages.js';
import { isValidTimezone } from './timestamps.js';

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

/** A zod `custom` issue carrying one of our rules; messages.ts words it. */
export function customIssue(rule: CustomRule, input: unknown) {
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
        ctx.issues.push(customIssue({ rule: 'required' }, value));
        return;
      }
      const length = characterCount(value);
      if (length < min) ctx.issues.push(customIssue({ rule: 'min_chars', limit: min }, value));
      if (length > limits.max) ctx.issues.push(customIssue({ rule: 'max_chars', limit: limits.max }, value));
    })
    .meta({ minLength: min, maxLength: limits.max });
}

/** An absolute http(s) URL of at most `max` characters. */
export function httpUrl(max: number) {
  return z
    .url({ protocol: /^https?$/, hostname: /^[^\s]+$/ })
    .check((ctx) => {
      if (characterCount(ctx.value) > max)
        ctx.issues.push(customIssue({ rule: 'max_chars', limit: max }, ctx.value));
    })
    .meta({ maxLength: max });
}

export const Timezone = z
  .string()
  .check((ctx) => {
    if (!isValidTimezone(ctx.value)) ctx.issues.push(customIssue({ rule: 'timezone' }, ctx.value));
  })
  .meta({ description: 'IANA timezone name, e.g. America/New_York' });

export const Id = z.number().int().min(1);

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

/** Base64 (standard or URL-safe alphabet, padding optional), whitespace allowed between lines. */
const BASE64_PATTERN = /^[A-Za-z0-9+/_\-\s]*={0,2}\s*$/;

export const UploadMediaRequest = z.strictObject({
  brandId: Id.describe('Brand id, from list_brands: the media belongs to this brand'),
  path: text({ max: 4096 })
    .optional()
    .describe('Absolute path of a file on the machine running this server (stdio only; refused over HTTP)'),
  url: httpUrl(2048).optional().describe('A public http(s) URL the server downloads the file from'),
  base64: z
    .string()
    .check((ctx) => {
      if (!BASE64_PATTERN.test(ctx.value)) {
        ctx.issues.push(
          customIssue({ rule: 'message', message: (a) => `The ${a} must be valid base64.` }, ctx.value),
        );
      }
    })
    .optional()
    .describe('The file content in base64, for small files; needs filename'),
  filename: text({ max: 255 })
    .optional()
    .describe('The file name, with base64 (the type is still read from the bytes)'),
});
