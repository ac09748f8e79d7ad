/**
 * Time rules: the interface's timestamp format, scheduledAt read as a wall-clock time in a brand's
 * timezone (a time in a DST gap does not exist; an ambiguous one means the earlier instant), and the
 * human description of an instant used in results.
 */
import { DateTime, IANAZone } from 'luxon';
import { TIMESTAMP_END_MS } from './timestamps.js';

export { formatTimestamp, isValidTimezone, TIMESTAMP_END_MS } from './timestamps.js';

export const SCHEDULED_AT_FORMAT = 'Y-m-d H:i:s';
const SCHEDULED_AT_PATTERN = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Wall-clock fields of a local date-time, as if it were UTC: the key used for DST arithmetic. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Parses `Y-m-d H:i:s`; undefined when the text does not match or names an impossible date. */
export function parseWallClock(text: string): WallClock | undefined {
  const match = SCHEDULED_AT_PATTERN.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const wall = { year, month, day, hour, minute, second };
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(asUtc);
  // Date.UTC rolls 2026-02-30 over to March; an impossible date does not survive the round trip.
  if (
    year < 1 ||
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    check.getUTCHours() !== hour ||
    check.getUTCMinutes() !== minute
  ) {
    return undefined;
  }
  return wall;
}

/**
 * The instants at which a wall-clock time happens in `timezone`, earliest first: none in a DST gap,
 * two in a DST overlap, one otherwise.
 */
export function instantsOfWallClock(wall: WallClock, timezone: string): number[] {
  const zone = IANAZone.create(timezone);
  const wallAsUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  // The offsets in force a day either side cover every transition that matters for one local time.
  const offsets = new Set([
    zone.offset(wallAsUtc - DAY_MS),
    zone.offset(wallAsUtc),
    zone.offset(wallAsUtc + DAY_MS),
  ]);
  const instants = new Set<number>();
  for (const offsetMinutes of offsets) {
    const candidate = wallAsUtc - offsetMinutes * 60_000;
    if (zone.offset(candidate) === offsetMinutes) instants.add(candidate);
  }
  return [...instants].sort((a, b) => a - b);
}

/** The two instants either side of a DST gap: its last second before and its first after. */
export interface DstGap {
  lastBeforeMs: number;
  firstAfterMs: number;
}

/**
 * The DST gap a wall-clock time falls in, for telling which times exist around it: 2027-03-14 02:30:00
 * in America/New_York lies between 01:59:59 and 03:00:00. Undefined when the time exists.
 */
export function dstGapAround(wall: WallClock, timezone: string): DstGap | undefined {
  if (instantsOfWallClock(wall, timezone).length > 0) return undefined;
  const zone = IANAZone.create(timezone);
  const wallAsUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  const before = zone.offset(wallAsUtc - DAY_MS);
  const after = zone.offset(wallAsUtc + DAY_MS);
  // The clocks jump at an instant read as earlier than the wall time with the offset after the jump and
  // as later with the offset before it: search that span, to the second, for the change of offset.
  let old = Math.floor((wallAsUtc - after * 60_000) / 1000) * 1000;
  let jumped = Math.ceil((wallAsUtc - before * 60_000) / 1000) * 1000;
  const oldOffset = zone.offset(old);
  if (!(jumped > old) || zone.offset(jumped) === oldOffset) return undefined;
  while (jumped - old > 1000) {
    const middle = old + Math.floor((jumped - old) / 2000) * 1000;
    if (zone.offset(middle) === oldOffset) old = middle;
    else jumped = middle;
  }
  return { lastBeforeMs: old, firstAfterMs: jumped };
}

export type ResolvedLocalTime =
  | { ok: true; epochMs: number }
  | { ok: false; reason: 'format' | 'gap' | 'range' };

/** Reads a `Y-m-d H:i:s` text in `timezone`; an ambiguous local time resolves to the earlier instant. */
export function resolveLocalTime(text: string, timezone: string): ResolvedLocalTime {
  const wall = parseWallClock(text);
  if (!wall) return { ok: false, reason: 'format' };
  const [earliest] = instantsOfWallClock(wall, timezone);
  if (earliest === undefined) return { ok: false, reason: 'gap' };
  return earliest < TIMESTAMP_END_MS ? { ok: true, epochMs: earliest } : { ok: false, reason: 'range' };
}

/** `2026-11-24 09:00:00` in the zone: the `Y-m-d H:i:s` form of an instant. */
export function formatLocalTime(epochMs: number, timezone: string): string {
  return DateTime.fromMillis(epochMs, { zone: timezone }).toFormat('yyyy-MM-dd HH:mm:ss');
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * Per timezone, a formatter giving the wall-clock fields and the short zone name of an instant at once:
 * luxon builds one for every `ZZZZ` (its `parseZoneInfo`), which costs about 90 µs; using one, a few.
 */
const wallClockFormats = new Map<string, Intl.DateTimeFormat>();
const WALL_CLOCK_FORMATS_KEPT = 512;

function wallClockFormat(timezone: string): Intl.DateTimeFormat {
  let format = wallClockFormats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      timeZoneName: 'short',
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    if (wallClockFormats.size >= WALL_CLOCK_FORMATS_KEPT) {
      wallClockFormats.delete(wallClockFormats.keys().next().value!);
    }
    wallClockFormats.set(timezone, format);
  }
  return format;
}

/** luxon's `padStart`: a minus sign ahead of the padded digits. */
function pad(value: number, length: number): string {
  return value < 0 ? `-${String(-value).padStart(length, '0')}` : String(value).padStart(length, '0');
}

/** luxon's text, for what the fast path does not read (an invalid zone or instant, a year BC). */
function describeWithLuxon(epochMs: number, timezone: string): string {
  const local = DateTime.fromMillis(epochMs, { zone: timezone }).setLocale('en-US');
  return `${local.toFormat("cccc, LLLL d, yyyy 'at' HH:mm ZZZZ")} (${timezone})`;
}

/**
 * `Tuesday, November 24, 2026 at 09:00 EST (America/New_York)`, for humans and assistants. The same
 * text as luxon's `cccc, LLLL d, yyyy 'at' HH:mm ZZZZ` in en-US (a test holds them together), read
 * from one formatting of the instant in the zone.
 */
export function describeLocalTime(epochMs: number, timezone: string): string {
  if (!Number.isFinite(epochMs) || !IANAZone.create(timezone).isValid)
    return describeWithLuxon(epochMs, timezone);
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let zoneName = '';
  for (const part of wallClockFormat(timezone).formatToParts(epochMs)) {
    switch (part.type) {
      case 'era':
        if (part.value !== 'AD') return describeWithLuxon(epochMs, timezone);
        break;
      case 'year':
        year = Number(part.value);
        break;
      case 'month':
        month = Number(part.value);
        break;
      case 'day':
        day = Number(part.value);
        break;
      case 'hour':
        hour = Number(part.value) % 24;
        break;
      case 'minute':
        minute = Number(part.value);
        break;
      case 'timeZoneName':
        zoneName = part.value;
        break;
    }
  }
  const weekday = new Date(0);
  weekday.setUTCFullYear(year, month - 1, day);
  const date = `${WEEKDAYS[weekday.getUTCDay()]}, ${MONTHS[month - 1]} ${day}, ${pad(year, 4)}`;
  return `${date} at ${pad(hour, 2)}:${pad(minute, 2)} ${zoneName} (${timezone})`;
}

/** The calendar date (as a UTC midnight) of the instant in the zone; undefined for an invalid zone. */
export function localDateUtc(epochMs: number, timezone: string): number | undefined {
  const zone = IANAZone.create(timezone);
  if (!zone.isValid) return undefined;
  const offsetMinutes = zone.offset(epochMs);
  if (!Number.isFinite(offsetMinutes)) return undefined;
  return Math.floor((epochMs + offsetMinutes * 60_000) / DAY_MS) * DAY_MS;
}
