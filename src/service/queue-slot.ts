import { normalizeQueueTimes } from '../domain/queue.js';
import { instantsOfWallClock, localDateUtc } from '../domain/time.js';
import type { BrandRecord, Store } from '../ports.js';

/**
 * Planned times read per batch after the first: a run of held slots is walked again whenever a change
 * may have freed one of them, and on PostgreSQL each batch is a round trip; 1,024 times (8 KB) cost little
 * more to read than 256.
 */
const BATCH = 1024;
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

/** Queue times as minutes of the day, and the key naming the schedule (timezone and times). */
export function scheduleOf(
  timezone: string,
  queueTimes: readonly string[],
): { minutes: number[]; key: string } {
  const times = normalizeQueueTimes(queueTimes);
  const minutes = times.map((t) => {
    const [hour, minute] = t.split(':').map(Number) as [number, number];
    return hour * 60 + minute;
  });
  return { minutes, key: `${timezone} ${times.join(' ')}` };
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
  const { minutes, key } = scheduleOf(timezone, queueTimes);
  if (minutes.length === 0) return;
  // Start one local day early: an overlap can put a slot of "yesterday" after `afterMs`.
  const today = localDateUtc(afterMs, timezone);
  if (today === undefined) return;
  for (let day = today - DAY_MS; ; day += DAY_MS) {
    for (const instant of slotsOfDay(key, timezone, minutes, day)) {
      if (instant > afterMs) yield instant;
    }
  }
}

/** Whether the instant is one of the schedule's slots (on its own local day). */
function isSlot(instant: number, schedule: string, timezone: string, minutes: readonly number[]): boolean {
  const day = localDateUtc(instant, timezone);
  return day !== undefined && slotsOfDay(schedule, timezone, minutes, day).includes(instant);
}

/** The first read of planned times is short: the free slot is usually right after the run. */
const FIRST_BATCH = 16;

/**
 * The earliest queue time of the brand after `nowMs` that no queued or scheduled post of the brand
 * holds. Walks the brand's slots and its planned due times (an index range, read in batches) side by
 * side, so the cost grows with the run of taken slots ahead, not with the number of posts stored. The
 * store remembers the run walked (every slot before the free one is taken) until a change could free
 * one of its times, so the next call starts where this one stopped.
 */
export async function nextFreeQueueSlot(
  store: Store,
  brand: BrandRecord,
  nowMs: number,
): Promise<number | undefined> {
  const { minutes, key: schedule } = scheduleOf(brand.timezone, brand.queueTimes);
  const held = await store.posts.heldQueueRun(brand.id, schedule);
  // A slot freed since ends the run there; a freed time that is no slot changes nothing.
  const freedSlot = held?.freedMs
    ?.filter((t) => t > nowMs && t < held.untilMs && isSlot(t, schedule, brand.timezone, minutes))
    .reduce((earliest, t) => Math.min(earliest, t), held.untilMs);
  const run = held && freedSlot !== undefined ? { ...held, untilMs: freedSlot } : held;
  // Every slot after run.afterMs and before run.untilMs is taken: the free one is at untilMs or later.
  const known = run !== undefined && run.afterMs <= nowMs && run.untilMs > nowMs ? run : undefined;
  const from = known ? known.untilMs - 1 : nowMs;
  let batch = FIRST_BATCH;
  let taken = await store.posts.plannedTimesFrom(brand.id, from + 1, batch);
  let index = 0;
  for (const slot of cachedQueueSlotsAfter(from, brand.timezone, brand.queueTimes)) {
    for (;;) {
      while (index < taken.length && taken[index]! < slot) index++;
      if (index < taken.length || taken.length < batch) break;
      batch = BATCH;
      taken = await store.posts.plannedTimesFrom(brand.id, slot, batch);
      index = 0;
    }
    if (taken[index] !== slot) {
      await store.posts.rememberHeldQueueRun(brand.id, {
        schedule,
        afterMs: known?.afterMs ?? nowMs,
        untilMs: slot,
      });
      return slot;
    }
  }
  return undefined;
}
