import { DateTime } from 'luxon';
import { normalizeQueueTimes } from '../domain/queue.js';
import { instantsOfWallClock } from '../domain/time.js';
import type { BrandRecord, Store } from '../ports.js';

const BATCH = 256;
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/**
 * The slot instant of each local wall-clock time already worked out, by timezone and wall-clock minute
 * (read as UTC, in minutes: a small integer key); NaN when that time does not exist (DST gap). Reading a zone's offset costs an Intl formatting call
 * (about 10 µs, four per wall-clock time), and a long queue walks the same slots on every call: the
 * answers never change, so they are kept, within a bound.
 */
const slotInstants = new Map<string, Map<number, number>>();
const SLOT_INSTANTS_KEPT = 50_000;

function slotInstant(timezone: string, wallAsUtc: number): number {
  let zone = slotInstants.get(timezone);
  if (!zone) {
    zone = new Map();
    slotInstants.set(timezone, zone);
  }
  const key = wallAsUtc / MINUTE_MS;
  let instant = zone.get(key);
  if (instant === undefined) {
    const wall = new Date(wallAsUtc);
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
    instant = earliest ?? Number.NaN;
    if (zone.size >= SLOT_INSTANTS_KEPT) zone.delete(zone.keys().next().value!);
    zone.set(key, instant);
  }
  return instant;
}

/**
 * The same slots as `queueSlotsAfter` (domain/queue.ts), in the same order: local days are stepped as
 * calendar dates (UTC arithmetic, no zone) and each slot's instant comes from `slotInstant`.
 */
export function* cachedQueueSlotsAfter(
  afterMs: number,
  timezone: string,
  queueTimes: readonly string[],
): Generator<number> {
  const minutes = normalizeQueueTimes(queueTimes).map((t) => {
    const [hour, minute] = t.split(':').map(Number) as [number, number];
    return hour * 60 + minute;
  });
  if (minutes.length === 0) return;
  // Start one local day early: an overlap can put a slot of "yesterday" after `afterMs`.
  const start = DateTime.fromMillis(afterMs, { zone: timezone }).startOf('day').minus({ days: 1 });
  if (!start.isValid) return;
  for (let day = Date.UTC(start.year, start.month - 1, start.day); ; day += DAY_MS) {
    for (const minute of minutes) {
      const instant = slotInstant(timezone, day + minute * MINUTE_MS);
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
