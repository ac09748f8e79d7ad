import { DateTime } from 'luxon';
import { normalizeQueueTimes } from '../domain/queue.js';
import { instantsOfWallClock } from '../domain/time.js';
import type { BrandRecord, Store } from '../ports.js';

const BATCH = 256;
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/**
 * The slots of each local day already worked out, earliest first, by timezone and queue times, the day
 * being its calendar date as a UTC day number. Working one out reads the zone's offset four times per
 * queue time, each an Intl formatting call (about 10 µs), and a long queue walks the same days on every
 * call; the answers never change, so they are kept, within bounds.
 */
const daySlots = new Map<string, Map<number, number[]>>();
const SCHEDULES_KEPT = 256;
const DAYS_KEPT = 10_000;

function slotsOfDay(
  schedule: string,
  timezone: string,
  minutes: readonly number[],
  dayUtc: number,
): number[] {
  let days = daySlots.get(schedule);
  if (!days) {
    if (daySlots.size >= SCHEDULES_KEPT) daySlots.delete(daySlots.keys().next().value!);
    days = new Map();
    daySlots.set(schedule, days);
  }
  const dayNumber = dayUtc / DAY_MS;
  let slots = days.get(dayNumber);
  if (!slots) {
    slots = [];
    for (const minute of minutes) {
      const wall = new Date(dayUtc + minute * MINUTE_MS);
      const [earliest] = instantsOfWallClock(
        {
          year: wall.getUTCFullYear(),
          month: wall.getUTCMonth() + 1,
          day: wall.getUTCDate(),
          hour: wall.getUTCHours(),
          minute: wall.getUTCMinutes(),
          second: 0,
        },
        timezone,
      );
      if (earliest !== undefined) slots.push(earliest);
    }
    if (days.size >= DAYS_KEPT) days.delete(days.keys().next().value!);
    days.set(dayNumber, slots);
  }
  return slots;
}

/**
 * The same slots as `queueSlotsAfter` (domain/queue.ts), in the same order: local days are stepped as
 * calendar dates (UTC arithmetic, no zone) and each day's slots come from `slotsOfDay`.
 */
export function* cachedQueueSlotsAfter(
  afterMs: number,
  timezone: string,
  queueTimes: readonly string[],
): Generator<number> {
  const times = normalizeQueueTimes(queueTimes);
  if (times.length === 0) return;
  const minutes = times.map((t) => {
    const [hour, minute] = t.split(':').map(Number) as [number, number];
    return hour * 60 + minute;
  });
  const schedule = `${timezone} ${times.join(' ')}`;
  // Start one local day early: an overlap can put a slot of "yesterday" after `afterMs`.
  const start = DateTime.fromMillis(afterMs, { zone: timezone }).startOf('day').minus({ days: 1 });
  if (!start.isValid) return;
  for (let day = Date.UTC(start.year, start.month - 1, start.day); ; day += DAY_MS) {
    for (const instant of slotsOfDay(schedule, timezone, minutes, day)) {
      if (instant > afterMs) yield instant;
    }
  }
}

/**
 * The earliest queue time of the brand after `nowMs` that no queued or scheduled post of the brand
 * holds. Walks the brand's slots and its planned due times (an index range, read in batches) side by
 * side, so the cost grows with the run of taken slots ahead, not with the number of posts stored.
 */
export function nextFreeQueueSlot(store: Store, brand: BrandRecord, nowMs: number): number | undefined {
  let taken = store.posts.plannedTimesFrom(brand.id, nowMs + 1, BATCH);
  let index = 0;
  for (const slot of cachedQueueSlotsAfter(nowMs, brand.timezone, brand.queueTimes)) {
    for (;;) {
      while (index < taken.length && taken[index]! < slot) index++;
      if (index < taken.length || taken.length < BATCH) break;
      taken = store.posts.plannedTimesFrom(brand.id, slot, BATCH);
      index = 0;
    }
    if (taken[index] !== slot) return slot;
  }
  return undefined;
}
