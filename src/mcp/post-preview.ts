/**
 * What the post preview page (post-preview-app.ts) shows: a post as each channel of its collection will
 * receive it, computed here with the pre-flight's own rules and counting (domain/platform-rules.ts,
 * domain/preflight.ts) so that the page counts nothing itself. Read through the service only: the
 * collection's channels, each channel's connector and limits (get_channel), the brand's time (get_queue).
 */
import type { Capabilities } from '../domain/capabilities.js';
import { BLUESKY_TEXT_BYTES } from '../domain/capabilities.js';
import { planDelivery, platformText } from '../domain/platform-rules.js';
import type { Post, PostPayload, PreflightWarning } from '../domain/post-schemas.js';
import { EDITABLE_STATUSES } from '../domain/post-schemas.js';
import { textLength } from '../domain/preflight.js';
import { PER_PAGE_MAX } from '../domain/schemas.js';
import { describeLocalTime, resolveLocalTime } from '../domain/time.js';
import type { PublishingService } from '../service/publishing-service.js';

/** A tool call a button of the page makes through the host; `scheduledAt` is added by the page. */
export interface PreviewAction {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ChannelPreview {
  channelId: number;
  name: string;
  type: string;
  connector: string;
  /** What happens on this channel: sent, skipped (nothing goes), or failed before sending. */
  action: 'send' | 'skip' | 'fail';
  reason?: string;
  format: 'feed' | 'story';
  title?: string;
  /** The text the platform receives, and its count as the platform counts it. */
  text: string;
  length: number;
  limit: number;
  unit: string;
  /** The UTF-16 index where the platform's limit ends: `text.length` when all of it fits. */
  fits: number;
  /** Bluesky also bounds the text's UTF-8 bytes. */
  bytes?: { count: number; limit: number };
  media: Array<{ label: string; beyondLimit: boolean }>;
  maxMedia: number;
  /** native: the platform's own poll; text: written into the text; dropped: not sent. */
  poll?: { question: string; options: string[]; period: string; as: 'native' | 'text' | 'dropped' };
  link?: string;
  comment?: { text: string; delaySeconds: number; posted: boolean };
  warnings: PreflightWarning[];
}

export interface PostPreview {
  postId: number | null;
  status: string;
  brandId: number;
  collectionId: number;
  publishMode: string;
  timezone: string;
  /** The brand's wall-clock time (Y-m-d H:i:s), in words with the zone, and UTC; null without a time. */
  time: { scheduledAt: string; local: string; utc: string } | null;
  channels: ChannelPreview[];
  /**
   * Uploaded images small enough to show, by their index in the post's media, as `data:` URLs: the page
   * loads no address, so the host's default CSP (images from `data:` only) holds.
   */
  thumbnails: Record<number, string>;
  /** The media's accessibility text, for the thumbnails. */
  alt?: string;
  /** The buttons; absent when the post can no longer be changed. */
  actions?: { publishNow: PreviewAction; schedule: PreviewAction; saveDraft: PreviewAction };
}

const UNITS: Record<Capabilities['textUnit'], string> = {
  characters: 'characters',
  graphemes: 'characters (as people see them)',
  weighted: 'characters as X counts them',
  'emoji-bytes': 'characters as Threads counts them (an emoji counts its UTF-8 bytes)',
};

let segmenter: Intl.Segmenter | undefined;

/** The longest prefix of `text`, cut between graphemes, that the platform's count keeps within `limit`. */
export function fittingLength(text: string, limit: number, caps: Capabilities): number {
  if (textLength(text, caps) <= limit) return text.length;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const ends = [0, ...[...segmenter.segment(text)].map(({ index, segment }) => index + segment.length)];
  let low = 0;
  let high = ends.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (textLength(text.slice(0, ends[middle]), caps) <= limit) low = middle;
    else high = middle - 1;
  }
  return ends[low]!;
}

function mediaLabel(element: { id?: string; url?: string }): string {
  if (element.id !== undefined) return `Uploaded media ${element.id}`;
  // The page loads no address: it shows where the file is, not the file.
  try {
    return `From ${new URL(element.url!).host}`;
  } catch {
    return 'Media by URL';
  }
}

async function collectionChannels(service: PublishingService, brandId: number, collectionId: number) {
  for (let page = 1; ; page += 1) {
    const { data, pagination } = await service.listCollections({ brandId, page, per_page: PER_PAGE_MAX });
    const found = data.find((collection) => collection.id === collectionId);
    if (found) return found.channels;
    if (page >= pagination.lastPage) return [];
  }
}

/** Every channel of the collection as it will receive `payload`. */
async function channelPreviews(
  service: PublishingService,
  brandId: number,
  collectionId: number,
  payload: PostPayload,
  warnings: readonly PreflightWarning[],
): Promise<ChannelPreview[]> {
  const channels = await collectionChannels(service, brandId, collectionId);
  const details = await Promise.all(
    channels.map((channel) => service.getChannel({ brandId, channelId: channel.id })),
  );
  return details.map((channel): ChannelPreview => {
    const caps = channel.connection.limits as Capabilities;
    const plan = planDelivery(payload, channel);
    const own = warnings.filter((warning) => warning.channelId === channel.id);
    const base = {
      channelId: channel.id,
      name: channel.name,
      type: channel.type,
      connector: channel.connection.connector,
      warnings: own,
      maxMedia: caps.maxMedia,
    };
    if (plan.action !== 'send') {
      return {
        ...base,
        action: plan.action,
        reason: plan.reason,
        format: 'feed',
        text: '',
        length: 0,
        limit: caps.textLimit,
        unit: UNITS[caps.textUnit],
        fits: 0,
        media: [],
      };
    }
    const { content } = plan;
    const text = platformText(content, caps.polls);
    const limit =
      content.media.length > 0 && caps.captionLimit !== undefined ? caps.captionLimit : caps.textLimit;
    const fits = fittingLength(text, limit, caps);
    const bytes = content.platform === 'Bluesky' ? new TextEncoder().encode(text).length : undefined;
    const pollAs = !payload.poll ? undefined : !content.poll ? 'dropped' : caps.polls ? 'native' : 'text';
    return {
      ...base,
      action: own.some((warning) => warning.outcome === 'fail') ? 'fail' : 'send',
      format: content.format,
      ...(content.title !== undefined ? { title: content.title } : {}),
      text,
      length: textLength(text, caps),
      limit,
      unit: UNITS[caps.textUnit],
      fits,
      ...(bytes !== undefined ? { bytes: { count: bytes, limit: BLUESKY_TEXT_BYTES } } : {}),
      media: (payload.media ?? []).map((element, index) => ({
        label: mediaLabel(element),
        beyondLimit: index >= caps.maxMedia,
      })),
      ...(payload.poll && pollAs
        ? {
            poll: {
              question: payload.poll.question,
              options: payload.poll.options,
              period: payload.poll.period,
              as: pollAs,
            },
          }
        : {}),
      ...(content.link !== undefined ? { link: content.link } : {}),
      ...(payload.comment
        ? {
            comment: {
              text: payload.comment.comment,
              delaySeconds: payload.comment.delay,
              posted: caps.comments !== false,
            },
          }
        : {}),
    };
  });
}

/** A thumbnail is the file itself, when it is this small; all of one preview's together at most the second. */
const THUMBNAIL_MAX_BYTES = 96 * 1024;
const THUMBNAILS_MAX_BYTES = 384 * 1024;

async function thumbnailsOf(
  service: PublishingService,
  brandId: number,
  media: PostPayload['media'],
): Promise<Record<number, string>> {
  const thumbnails: Record<number, string> = {};
  if (!service.mediaThumbnail) return thumbnails;
  let budget = THUMBNAILS_MAX_BYTES;
  for (const [index, element] of (media ?? []).entries()) {
    if (element.id === undefined) continue;
    const found = await service.mediaThumbnail(brandId, element.id, Math.min(THUMBNAIL_MAX_BYTES, budget));
    if (!found?.bytes) continue;
    budget -= found.bytes.length;
    thumbnails[index] = `data:${found.type};base64,${Buffer.from(found.bytes).toString('base64')}`;
  }
  return thumbnails;
}

function timeOf(scheduledAt: string, epochMs: number, timezone: string): NonNullable<PostPreview['time']> {
  return { scheduledAt, local: describeLocalTime(epochMs, timezone), utc: new Date(epochMs).toISOString() };
}

/**
 * get_post carries no warnings: a dry run of the same content tells them, storing nothing. Content that
 * no longer passes (a rule changed since it was stored) is previewed without them.
 */
async function warningsOfStored(
  service: PublishingService,
  post: Post,
): Promise<readonly PreflightWarning[]> {
  const request = { brandId: post.brandId, collectionId: post.collectionId, ...post.content };
  const checked = await service
    .createPost({ ...request, publishMode: 'DRAFT', dryRun: true })
    .catch(() => undefined);
  return checked?.warnings ?? [];
}

/** The preview of a stored post, with the actions that change it while it may still be changed. */
export async function previewStoredPost(service: PublishingService, post: Post): Promise<PostPreview> {
  const content: PostPayload = { ...post.content, publishMode: post.publishMode };
  const warnings = post.warnings ?? (await warningsOfStored(service, post));
  const ids = { brandId: post.brandId, postId: post.id };
  return {
    postId: post.id,
    status: post.status,
    brandId: post.brandId,
    collectionId: post.collectionId,
    publishMode: post.publishMode,
    timezone: post.timezone,
    time:
      post.dueAt === null || post.scheduledAt === null
        ? null
        : timeOf(post.scheduledAt, Date.parse(post.dueAt), post.timezone),
    ...(await Promise.all([
      channelPreviews(service, post.brandId, post.collectionId, content, warnings),
      thumbnailsOf(service, post.brandId, content.media),
    ]).then(([channels, thumbnails]) => ({ channels, thumbnails }))),
    ...(content.alt !== undefined ? { alt: content.alt } : {}),
    ...(EDITABLE_STATUSES.has(post.status)
      ? {
          actions: {
            publishNow: { name: 'publish_post', arguments: ids },
            schedule: { name: 'update_post', arguments: { ...ids, publishMode: 'SCHEDULE' } },
            saveDraft: { name: 'update_post', arguments: { ...ids, publishMode: 'DRAFT' } },
          },
        }
      : {}),
  };
}

/**
 * The preview of a dry run of create_post: its arguments as each channel will receive them; the actions
 * create the post, each with one idempotency key, so that pressing twice creates it once.
 */
export async function previewDryRun(
  service: PublishingService,
  args: Record<string, unknown>,
  warnings: readonly PreflightWarning[],
): Promise<PostPreview> {
  const { brandId, collectionId, ...payload } = args as PostPayload & {
    brandId: number;
    collectionId: number;
    dryRun?: boolean;
    idempotencyKey?: string;
  };
  const queue = await service.getQueue({ brandId, count: 1 });
  let time: PostPreview['time'] = null;
  if (payload.publishMode === 'QUEUE' && queue.nextSlots[0]) {
    const slot = queue.nextSlots[0];
    time = timeOf(slot.scheduledAt, Date.parse(slot.at), queue.timezone);
  } else if (payload.scheduledAt !== undefined) {
    const resolved = resolveLocalTime(payload.scheduledAt, queue.timezone);
    if (resolved.ok) time = timeOf(payload.scheduledAt, resolved.epochMs, queue.timezone);
  }
  // One key for every button: once one has created the post, another returns that post.
  const idempotencyKey = crypto.randomUUID();
  const { dryRun: _dry, scheduledAt: _at, ...kept } = args;
  const create = (publishMode: string): PreviewAction => ({
    name: 'create_post',
    arguments: { ...kept, publishMode, idempotencyKey },
  });
  return {
    postId: null,
    status: 'preview',
    brandId,
    collectionId,
    publishMode: payload.publishMode,
    timezone: queue.timezone,
    time,
    ...(await Promise.all([
      channelPreviews(service, brandId, collectionId, payload, warnings),
      thumbnailsOf(service, brandId, payload.media),
    ]).then(([channels, thumbnails]) => ({ channels, thumbnails }))),
    ...(payload.alt !== undefined ? { alt: payload.alt } : {}),
    actions: {
      publishNow: create('IMMEDIATE'),
      schedule: create('SCHEDULE'),
      saveDraft: create('DRAFT'),
    },
  };
}
