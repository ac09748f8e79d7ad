import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  describeLocalTime,
  dstGapAround,
  formatLocalTime,
  formatTimestamp,
  instantsOfWallClock,
  localDateUtc,
  parseWallClock,
  resolveLocalTime,
} from '../../src/domain/time.js';

const utc = (text: string) => Date.parse(text);

describe('formatTimestamp', () => {
  it('writes UTC with six fractional digits', () => {
    expect(formatTimestamp(utc('2026-11-21T10:43:00.123Z'))).toBe('2026-11-21T10:43:00.123000Z');
    expect(formatTimestamp(0)).toBe('1970-01-01T00:00:00.000000Z');
  });
});

describe('parseWallClock', () => {
  it('reads Y-m-d H:i:s', () => {
    expect(parseWallClock('2026-11-24 09:05:07')).toEqual({
      year: 2026,
      month: 11,
      day: 24,
      hour: 9,
      minute: 5,
      second: 7,
    });
  });

  it.each([
    '2026-11-24T09:00:00',
    '2026-11-24 09:00',
    '2026-11-24 9:00:00',
    '2026-02-30 09:00:00',
    '2026-13-01 09:00:00',
    '2026-11-24 24:00:00',
    '2026-11-24 09:60:00',
    ' 2026-11-24 09:00:00',
    '2026-11-24 09:00:00Z',
  ])('rejects %j', (text) => {
    expect(parseWallClock(text)).toBeUndefined();
  });

  it('accepts a leap day only in a leap year', () => {
    expect(parseWallClock('2028-02-29 12:00:00')).toBeDefined();
    expect(parseWallClock('2027-02-29 12:00:00')).toBeUndefined();
  });
});

describe('instantsOfWallClock', () => {
  const wall = (text: string) => parseWallClock(text)!;

  it('gives one instant on an ordinary day, read in the zone', () => {
    expect(instantsOfWallClock(wall('2026-11-24 09:00:00'), 'America/New_York')).toEqual([
      utc('2026-11-24T14:00:00Z'),
    ]);
    expect(instantsOfWallClock(wall('2026-11-24 09:00:00'), 'Asia/Tokyo')).toEqual([
      utc('2026-11-24T00:00:00Z'),
    ]);
  });

  it('gives none in a spring-forward gap', () => {
    expect(instantsOfWallClock(wall('2027-03-14 02:30:00'), 'America/New_York')).toEqual([]);
    expect(instantsOfWallClock(wall('2027-03-28 01:30:00'), 'Europe/London')).toEqual([]);
    // Southern hemisphere: Sydney springs forward in October.
    expect(instantsOfWallClock(wall('2026-10-04 02:30:00'), 'Australia/Sydney')).toEqual([]);
  });

  it('gives both instants, earliest first, in a fall-back overlap', () => {
    expect(instantsOfWallClock(wall('2027-11-07 01:30:00'), 'America/New_York')).toEqual([
      utc('2027-11-07T05:30:00Z'),
      utc('2027-11-07T06:30:00Z'),
    ]);
    expect(instantsOfWallClock(wall('2027-10-31 01:30:00'), 'Europe/London')).toEqual([
      utc('2027-10-31T00:30:00Z'),
      utc('2027-10-31T01:30:00Z'),
    ]);
  });

  it('handles a zone with a half-hour DST shift (Lord Howe)', () => {
    expect(instantsOfWallClock(wall('2026-10-04 02:15:00'), 'Australia/Lord_Howe')).toEqual([]);
    expect(instantsOfWallClock(wall('2027-04-04 01:45:00'), 'Australia/Lord_Howe')).toHaveLength(2);
  });
});

describe('dstGapAround', () => {
  /** The gap's neighbours as the brand would write them. */
  const around = (text: string, timezone: string) => {
    const gap = dstGapAround(parseWallClock(text)!, timezone);
    return gap && [formatLocalTime(gap.lastBeforeMs, timezone), formatLocalTime(gap.firstAfterMs, timezone)];
  };

  it('gives the last second before and the first after a one-hour gap, wherever in the gap', () => {
    for (const text of ['2027-03-14 02:00:00', '2027-03-14 02:30:00', '2027-03-14 02:59:59']) {
      expect(dstGapAround(parseWallClock(text)!, 'America/New_York'), text).toEqual({
        lastBeforeMs: utc('2027-03-14T06:59:59Z'),
        firstAfterMs: utc('2027-03-14T07:00:00Z'),
      });
    }
    expect(around('2027-03-28 01:30:00', 'Europe/London')).toEqual([
      '2027-03-28 00:59:59',
      '2027-03-28 02:00:00',
    ]);
    expect(around('2026-10-04 02:30:00', 'Australia/Sydney')).toEqual([
      '2026-10-04 01:59:59',
      '2026-10-04 03:00:00',
    ]);
  });

  it('handles a half-hour shift (Lord Howe), a gap across midnight and a skipped day', () => {
    expect(around('2027-10-03 02:15:00', 'Australia/Lord_Howe')).toEqual([
      '2027-10-03 01:59:59',
      '2027-10-03 02:30:00',
    ]);
    // Chile springs forward at midnight: 00:00 to 00:59:59 does not exist.
    expect(around('2022-09-11 00:30:00', 'America/Santiago')).toEqual([
      '2022-09-10 23:59:59',
      '2022-09-11 01:00:00',
    ]);
    // Samoa skipped 2011-12-30 when it crossed the date line.
    expect(around('2011-12-30 12:00:00', 'Pacific/Apia')).toEqual([
      '2011-12-29 23:59:59',
      '2011-12-31 00:00:00',
    ]);
  });

  it('names two times that exist, one second apart in real time', () => {
    const gap = dstGapAround(parseWallClock('2027-10-03 02:15:00')!, 'Australia/Lord_Howe')!;
    expect(gap.firstAfterMs - gap.lastBeforeMs).toBe(1000);
    for (const instant of [gap.lastBeforeMs, gap.firstAfterMs]) {
      expect(
        resolveLocalTime(formatLocalTime(instant, 'Australia/Lord_Howe'), 'Australia/Lord_Howe'),
      ).toEqual({
        ok: true,
        epochMs: instant,
      });
    }
  });

  it('is undefined for a time that exists, an ambiguous one included', () => {
    expect(dstGapAround(parseWallClock('2027-03-14 03:00:00')!, 'America/New_York')).toBeUndefined();
    expect(dstGapAround(parseWallClock('2027-03-14 01:59:59')!, 'America/New_York')).toBeUndefined();
    expect(dstGapAround(parseWallClock('2027-11-07 01:30:00')!, 'America/New_York')).toBeUndefined();
    expect(dstGapAround(parseWallClock('2027-03-14 02:30:00')!, 'Asia/Tokyo')).toBeUndefined();
  });
});

describe('resolveLocalTime', () => {
  it('takes the earlier instant of an ambiguous time', () => {
    expect(resolveLocalTime('2027-11-07 01:30:00', 'America/New_York')).toEqual({
      ok: true,
      epochMs: utc('2027-11-07T05:30:00Z'),
    });
  });

  it('tells a gap from a bad format', () => {
    expect(resolveLocalTime('2027-03-14 02:30:00', 'America/New_York')).toEqual({ ok: false, reason: 'gap' });
    expect(resolveLocalTime('2027-03-14', 'America/New_York')).toEqual({ ok: false, reason: 'format' });
    expect(resolveLocalTime('9999-12-31 19:00:00', 'America/New_York')).toEqual({
      ok: false,
      reason: 'range',
    });
  });

  it('round-trips through formatLocalTime', () => {
    const resolved = resolveLocalTime('2026-12-31 23:59:59', 'Pacific/Kiritimati');
    expect(resolved.ok && formatLocalTime(resolved.epochMs, 'Pacific/Kiritimati')).toBe(
      '2026-12-31 23:59:59',
    );
  });
});

describe('describeLocalTime', () => {
  const zones = [
    'America/New_York',
    'Asia/Tokyo',
    'Europe/London',
    'Australia/Lord_Howe',
    'America/Santiago',
    'Asia/Kolkata',
    'Pacific/Chatham',
    'Africa/Casablanca',
    'UTC',
  ];
  const luxonText = (epochMs: number, timezone: string) =>
    `${DateTime.fromMillis(epochMs, { zone: timezone })
      .setLocale('en-US')
      .toFormat("cccc, LLLL d, yyyy 'at' HH:mm ZZZZ")} (${timezone})`;

  it('writes the weekday, date, time and short zone name', () => {
    expect(describeLocalTime(utc('2026-11-24T14:00:00Z'), 'America/New_York')).toBe(
      'Tuesday, November 24, 2026 at 09:00 EST (America/New_York)',
    );
    expect(describeLocalTime(utc('2026-07-01T00:30:00Z'), 'Asia/Tokyo')).toBe(
      'Wednesday, July 1, 2026 at 09:30 GMT+9 (Asia/Tokyo)',
    );
  });

  it("is luxon's cccc, LLLL d, yyyy 'at' HH:mm ZZZZ in en-US, across DST changes and centuries", () => {
    const instants = [
      0,
      utc('1890-03-01T12:00:00Z'),
      utc('2099-12-31T23:59:59Z'),
      utc('3000-02-28T05:00:00Z'),
    ];
    // Every 11 hours and 7 minutes through 2026: each zone's transitions, both sides.
    for (let t = utc('2026-01-01T00:00:00Z'); t < utc('2027-01-01T00:00:00Z'); t += 40_000_000)
      instants.push(t);
    for (const timezone of zones) {
      for (const epochMs of instants)
        expect(describeLocalTime(epochMs, timezone)).toBe(luxonText(epochMs, timezone));
    }
  });

  it('falls back to luxon for a zone or an instant it cannot read', () => {
    expect(describeLocalTime(Number.NaN, 'America/New_York')).toBe(luxonText(Number.NaN, 'America/New_York'));
    expect(describeLocalTime(0, 'Not/AZone')).toBe(luxonText(0, 'Not/AZone'));
  });
});

describe('localDateUtc', () => {
  it("is the instant's calendar date in the zone, as UTC midnight", () => {
    expect(localDateUtc(utc('2026-11-24T03:00:00Z'), 'America/New_York')).toBe(utc('2026-11-23T00:00:00Z'));
    expect(localDateUtc(utc('2026-11-24T16:00:00Z'), 'Asia/Tokyo')).toBe(utc('2026-11-25T00:00:00Z'));
    expect(localDateUtc(0, 'Not/AZone')).toBeUndefined();
  });
});
