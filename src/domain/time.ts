/**
 * Time rules: the interface's timestamp format, scheduledAt read as a wall-clock time in a brand's
 * timezone (a time in a DST gap does not exist; an ambiguous one means the earlier instant), and the
 * human description of an instant used in results.
 */
import { DateTime, IANAZone } from 'luxon';

export const SCHEDULED_AT_FORMAT = 'Y-m-d H:i:s';
const SCHEDULED_AT_PATTERN = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** `2026-11-21T10:43:00.123000Z`: UTC, six fractional digits (our clock has millisecond precision). */
export function formatTimestamp(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, -1)}000Z`;
}

export function isValidTimezone(name: string): boolean {
  return IANAZone.isValidZone(name);
}

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

export type ResolvedLocalTime = { ok: true; epochMs: number } | { ok: false; reason: 'format' | 'gap' };

/** Reads a `Y-m-d H:i:s` text in `timezone`; an ambiguous local time resolves to the earlier instant. */
export function resolveLocalTime(text: string, timezone: string): ResolvedLocalTime {
  const wall = parseWallClock(text);
  if (!wall) return { ok: false, reason: 'format' };
  const [earliest] = instantsOfWallClock(wall, timezone);
  return earliest === undefined ? { ok: false, reason: 'gap' } : { ok: true, epochMs: earliest };
}

/** `2026-11-24 09:00:00` in the zone: the `Y-m-d H:i:s` form of an instant. */
export function formatLocalTime(epochMs: number, timezone: string): string {
  return DateTime.fromMillis(epochMs, { zone: timezone }).toFormat('yyyy-MM-dd HH:mm:ss');
}

/** `Tuesday, November 24, 2026 at 09:00 EST (America/New_York)`, for humans and assistants. */
export function describeLocalTime(epochMs: number, timezone: string): string {
  const local = DateTime.fromMillis(epochMs, { zone: timezone }).setLocale('en-US');
  return `${local.toFormat("cccc, LLLL d, yyyy 'at' HH:mm ZZZZ")} (${timezone})`;
}
