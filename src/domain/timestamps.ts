/**
 * Instants as the interface writes them, and timezone names: what the brands, profile and lists need,
 * without the date library (time.ts), which only scheduling and local times load.
 */

/** The first instant a four-digit-year timestamp cannot write: 9999-12-31 evening west of UTC reaches it. */
export const TIMESTAMP_END_MS = Date.UTC(10_000, 0, 1);
/** 0000-01-01T00:00:00Z, the first instant a four-digit-year timestamp can write. */
const TIMESTAMP_START_MS = -62_167_219_200_000;

/**
 * `2026-11-21T10:43:00.123000Z`: UTC, six fractional digits (our clock has millisecond precision).
 * Total: an instant outside the years 0000-9999 (a row stored before a limit existed) is written as the
 * nearest one the format holds, so that one such row never makes a post or a list unreadable.
 */
export function formatTimestamp(epochMs: number): string {
  const writable = Number.isNaN(epochMs)
    ? TIMESTAMP_END_MS - 1
    : Math.min(Math.max(epochMs, TIMESTAMP_START_MS), TIMESTAMP_END_MS - 1);
  return `${new Date(writable).toISOString().slice(0, -1)}000Z`;
}

/** Whether `name` is a timezone this runtime knows (the test luxon's IANAZone.isValidZone makes). */
export function isValidTimezone(name: string): boolean {
  if (!name) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name }).format();
    return true;
  } catch {
    return false;
  }
}
