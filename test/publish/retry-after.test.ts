/**
 * How long a platform asks us to wait, read from each header form platforms use (platform-http.ts
 * `retryAfterMs`): the StrykerJS run of 2026-11-25 found the HTTP-date and unix-seconds forms unguarded
 * (a wait counted from 1970 instead of from now, seconds read as milliseconds went unnoticed).
 */
import { expect, it } from 'vitest';
import { retryAfterMs } from '../../src/publish/platform-http.js';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

it('reads Retry-After as seconds or as an HTTP date, counted from now', () => {
  expect(retryAfterMs({ 'retry-after': '120' }, NOW)).toBe(120_000);
  expect(retryAfterMs({ 'retry-after': new Date(NOW + 90_000).toUTCString() }, NOW)).toBe(90_000);
  // A date already past: no wait, never a negative one.
  expect(retryAfterMs({ 'retry-after': new Date(NOW - 5_000).toUTCString() }, NOW)).toBe(0);
});

it("reads a reset time as Mastodon's ISO time, Bluesky's unix seconds or the draft's seconds from now", () => {
  expect(retryAfterMs({ 'x-ratelimit-reset': new Date(NOW + 300_000).toISOString() }, NOW)).toBe(300_000);
  expect(retryAfterMs({ 'ratelimit-reset': String((NOW + 45_000) / 1000) }, NOW)).toBe(45_000);
  expect(retryAfterMs({ 'ratelimit-reset': String((NOW - 45_000) / 1000) }, NOW)).toBe(0);
  expect(retryAfterMs({ 'ratelimit-reset': '30' }, NOW)).toBe(30_000);
  expect(retryAfterMs({ 'ratelimit-reset': ['15', '99'] }, NOW)).toBe(15_000);
});

it('says nothing when no header is there or none can be read', () => {
  expect(retryAfterMs({}, NOW)).toBeUndefined();
  expect(retryAfterMs({ 'retry-after': 'soon', 'x-ratelimit-reset': 'later' }, NOW)).toBeUndefined();
  // An unreadable Retry-After falls back to a readable reset.
  expect(retryAfterMs({ 'retry-after': 'soon', 'ratelimit-reset': '7' }, NOW)).toBe(7_000);
});
