/**
 * What the queue calendar page (queue-calendar-app.ts) shows: one week of a brand, Monday to Sunday in
 * its timezone, with its queue slots (free or taken), its posts at their local times with the channels
 * of their collections, and the tool calls that move a post or turn the week. All computed here through
 * the service (get_queue for the brand's time and queue times, list_posts for the week's posts,
 * list_collections for their channels), so that the page computes no time itself.
 */
import { DateTime } from 'luxon';
import { EDITABLE_STATUSES, type Post } from '../domain/post-schemas.js';
import { normalizeQueueTimes } from '../domain/queue.js';
import { PER_PAGE_MAX } from '../domain/schemas.js';
import { formatTimestamp, resolveLocalTime } from '../domain/time.js';
import type { PublishingService } from '../service/publishing-service.js';
import type { PreviewAction } from './post-preview.js';

export interface CalendarSlot {
  /** The brand's wall-clock time (Y-m-d H:i:s): what update_post's scheduledAt takes; and UTC. */
  scheduledAt: string;
  utc: string;
  /** Index of the day in `days`, and the local time of day (HH:MM). */
  day: number;
  time: string;
  /** No queued or scheduled post at this time: a gap. */
  free: boolean;
  /** Already gone by: not offered as a place to move a post to. */
  past: boolean;
}

export interface CalendarPost {
  id: number;
  status: string;
  publishMode: string;
  scheduledAt: string;
  utc: string;
  day: number;
  time: string;
  /** The beginning of the caption, for the page to name the post by. */
  caption: string;
  channels: Array<{ name: string; type: string }>;
  /** Still draft, queued or scheduled: it may be moved. */
  movable: boolean;
}

export interface QueueCalendar {
  brandId: number;
  timezone: string;
  /** The brand's local time now, Y-m-d H:i:s. */
  localNow: string;
  /** The week's bounds as list_posts' `from` and `to` take them, and in words. */
  week: { from: string; to: string; label: string };
  days: Array<{ date: string; label: string; today: boolean }>;
  /** The hours the page draws as rows: every hour with a slot or a post, 9 to 17 at least. */
  hours: number[];
  queueTimes: string[];
  slots: CalendarSlot[];
  posts: CalendarPost[];
  /** The week's channels with how many of its posts each receives. */
  channels: Array<{ name: string; type: string; posts: number }>;
  /** Posts of the week beyond what one calendar shows, if any. */
  more: number;
  actions: {
    /** list_posts for the previous, this and the next week. */
    previous: PreviewAction;
    refresh: PreviewAction;
    next: PreviewAction;
    /** update_post: the page adds `postId` and the slot's `scheduledAt`. */
    move: PreviewAction;
  };
}

const CAPTION_SHOWN = 60;
/** At most this many posts in one calendar: 7 days × 96 queue times would be more than anyone draws. */
const POSTS_SHOWN = 500;
const WALL_CLOCK = 'yyyy-MM-dd HH:mm:ss';

function excerpt(caption: string | undefined): string {
  const text = (caption ?? '').replace(/\s+/g, ' ').trim();
  const chars = [...text];
  return chars.length > CAPTION_SHOWN
    ? `${chars.slice(0, CAPTION_SHOWN - 1).join('')}…`
    : text || '(no caption)';
}

async function collectionChannels(service: PublishingService, brandId: number) {
  const channels = new Map<number, Array<{ name: string; type: string }>>();
  for (let page = 1; ; page += 1) {
    const { data, pagination } = await service.listCollections({ brandId, page, per_page: PER_PAGE_MAX });
    for (const collection of data) {
      channels.set(
        collection.id,
        collection.channels.map((channel) => ({ name: channel.name, type: channel.type })),
      );
    }
    if (page >= pagination.lastPage) return channels;
  }
}

async function weekPosts(service: PublishingService, brandId: number, from: string, to: string) {
  const posts: Post[] = [];
  for (let page = 1; ; page += 1) {
    const request = { brandId, from, to, order: 'calendar', page, per_page: PER_PAGE_MAX };
    const { data, pagination } = await service.listPosts(request);
    posts.push(...data);
    if (page >= pagination.lastPage || posts.length >= POSTS_SHOWN) {
      return { posts: posts.slice(0, POSTS_SHOWN), total: pagination.total };
    }
  }
}

/**
 * The calendar of the week (Monday to Sunday, in the brand's timezone) that holds `around` (the brand's
 * wall-clock time, Y-m-d H:i:s); without it, the week of the brand's today.
 */
export async function queueCalendar(
  service: PublishingService,
  brandId: number,
  around?: string,
): Promise<QueueCalendar> {
  const queue = await service.getQueue({ brandId, count: 1 });
  const zone = queue.timezone;
  const nowMs = Date.parse(queue.now);
  const today = queue.localNow.slice(0, 10);
  const start = DateTime.fromISO((around ?? queue.localNow).slice(0, 10), { zone }).startOf('week');
  const from = start.toFormat(WALL_CLOCK);
  const to = start.plus({ weeks: 1 }).toFormat(WALL_CLOCK);
  const days = Array.from({ length: 7 }, (_, index) => {
    const day = start.plus({ days: index });
    const date = day.toFormat('yyyy-MM-dd');
    return { date, label: day.setLocale('en-US').toFormat('ccc d LLL'), today: date === today };
  });
  const dayOf = (scheduledAt: string) => days.findIndex((day) => scheduledAt.startsWith(day.date));

  const [{ posts, total }, channelsOf] = await Promise.all([
    weekPosts(service, brandId, from, to),
    collectionChannels(service, brandId),
  ]);
  const planned = posts.filter((post) => post.scheduledAt !== null && post.dueAt !== null);
  const taken = new Set(
    planned
      .filter((post) => post.status === 'queued' || post.status === 'scheduled')
      .map((post) => Date.parse(post.dueAt!)),
  );

  const queueTimes = normalizeQueueTimes(queue.queueTimes);
  const slots: CalendarSlot[] = days.flatMap(({ date }, day) =>
    queueTimes.flatMap((time) => {
      const scheduledAt = `${date} ${time}:00`;
      const resolved = resolveLocalTime(scheduledAt, zone);
      // A queue time in a DST gap gives no slot that day.
      if (!resolved.ok) return [];
      const utc = formatTimestamp(resolved.epochMs);
      return [
        { scheduledAt, utc, day, time, free: !taken.has(resolved.epochMs), past: resolved.epochMs <= nowMs },
      ];
    }),
  );

  const calendarPosts = planned.map((post): CalendarPost => {
    const scheduledAt = post.scheduledAt!;
    return {
      id: post.id,
      status: post.status,
      publishMode: post.publishMode,
      scheduledAt,
      utc: post.dueAt!,
      day: dayOf(scheduledAt),
      time: scheduledAt.slice(11, 16),
      caption: excerpt(post.content.caption),
      channels: channelsOf.get(post.collectionId) ?? [],
      movable: EDITABLE_STATUSES.has(post.status),
    };
  });

  const counts = new Map<string, { name: string; type: string; posts: number }>();
  for (const post of calendarPosts) {
    for (const channel of post.channels) {
      const seen = counts.get(channel.name) ?? { ...channel, posts: 0 };
      seen.posts += 1;
      counts.set(channel.name, seen);
    }
  }
  const hours = new Set([
    9,
    17,
    ...[...slots, ...calendarPosts].map((item) => Number(item.time.slice(0, 2))),
  ]);
  const low = Math.min(...hours);
  const high = Math.max(...hours);

  const weekOf = (weeks: number): PreviewAction => {
    const other = start.plus({ weeks });
    return {
      name: 'list_posts',
      arguments: {
        brandId,
        from: other.toFormat(WALL_CLOCK),
        to: other.plus({ weeks: 1 }).toFormat(WALL_CLOCK),
        order: 'calendar',
        per_page: PER_PAGE_MAX,
      },
    };
  };
  const end = start.plus({ days: 6 });
  return {
    brandId,
    timezone: zone,
    localNow: queue.localNow,
    week: {
      from,
      to,
      label: `${start.setLocale('en-US').toFormat('cccc, LLLL d')} to ${end.setLocale('en-US').toFormat('cccc, LLLL d, yyyy')}`,
    },
    days,
    hours: Array.from({ length: high - low + 1 }, (_, index) => low + index),
    queueTimes,
    slots,
    posts: calendarPosts,
    channels: [...counts.values()],
    more: Math.max(0, total - posts.length),
    actions: {
      previous: weekOf(-1),
      refresh: weekOf(0),
      next: weekOf(1),
      move: { name: 'update_post', arguments: { brandId, publishMode: 'SCHEDULE' } },
    },
  };
}
