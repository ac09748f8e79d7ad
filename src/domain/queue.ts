/**
 * Queue-slot rules. A brand's queue times are local `HH:MM` wall-clock times, every day. A queue time
 * that does not exist on a day (DST gap) gives no slot that day; one that happens twice (DST overlap)
 * gives one slot, at the earlier instant, like scheduledAt.
 */
import { DateTime } from 'luxon';
import { instantsOfWallClock } from './time.js';

export const DEFAULT_QUEUE_TIMES = ['09:00', '12:00', '17:00'] as const;
export const QUEUE_TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Sorted, without duplicates. */
export function normalizeQueueTimes(times: readonly string[]): string[] {
  return [...new Set(times)].sort();
}

/** Every queue slot strictly after `afterMs`, in order, without end. */
export function* queueSlotsAfter(
  afterMs: number,
  timezone: string,
  queueTimes: readonly string[],
): Generator<number> {
  const times = normalizeQueueTimes(queueTimes).map((t) => t.split(':').map(Number) as [number, number]);
  if (times.length === 0) return;
  // Start one local day early: an overlap can put a slot of "yesterday" after `afterMs`.
  let day = DateTime.fromMillis(afterMs, { zone: timezone }).startOf('day').minus({ days: 1 });
  for (;;) {
    for (const [hour, minute] of times) {
      const [instant] = instantsOfWallClock(
        { year: day.year, month: day.month, day: day.day, hour, minute, second: 0 },
        timezone,
      );
      if (instant !== undefined && instant > afterMs) yield instant;
    }
    day = day.plus({ days: 1 });
  }
}
