/**
 * Instants as the interface writes them, and timezone names: what the brands, profile and lists need,
 * without the date library (time.ts), which only scheduling and local times load.
 */

/** `2026-11-21T10:43:00.123000Z`: UTC, six fractional digits (our clock has millisecond precision). */
export function formatTimestamp(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, -1)}000Z`;
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
