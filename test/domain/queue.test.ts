import { describe, expect, it } from 'vitest';
import { queueSlotsAfter } from '../../src/domain/queue.js';
import { cachedQueueSlotsAfter } from '../../src/service/queue-slot.js';

const utc = (text: string) => Date.parse(text);

function firstSlots(afterIso: string, timezone: string, times: string[], count: number): string[] {
  const slots: string[] = [];
  for (const slot of queueSlotsAfter(utc(afterIso), timezone, times)) {
    slots.push(new Date(slot).toISOString());
    if (slots.length === count) break;
  }
  return slots;
}

describe('queueSlotsAfter', () => {
  it('yields the local queue times strictly after now, in order', () => {
    // 07:00 in New York.
    expect(firstSlots('2026-11-21T12:00:00Z', 'America/New_York', ['17:00', '09:00', '12:00'], 4)).toEqual([
      '2026-11-21T14:00:00.000Z',
      '2026-11-21T17:00:00.000Z',
      '2026-11-21T22:00:00.000Z',
      '2026-11-22T14:00:00.000Z',
    ]);
  });

  it('skips a slot at exactly now', () => {
    expect(firstSlots('2026-11-21T14:00:00Z', 'America/New_York', ['09:00'], 1)).toEqual([
      '2026-11-22T14:00:00.000Z',
    ]);
  });

  it('keeps local times across spring-forward and fall-back (New York)', () => {
    expect(firstSlots('2027-03-13T12:00:00Z', 'America/New_York', ['09:00'], 3)).toEqual([
      '2027-03-13T14:00:00.000Z', // EST
      '2027-03-14T13:00:00.000Z', // EDT from that day on
      '2027-03-15T13:00:00.000Z',
    ]);
    expect(firstSlots('2027-11-06T12:00:00Z', 'America/New_York', ['09:00'], 2)).toEqual([
      '2027-11-06T13:00:00.000Z',
      '2027-11-07T14:00:00.000Z',
    ]);
  });

  it('gives no slot for a queue time inside a DST gap, one slot (the earlier) in an overlap', () => {
    // 02:30 on March 14 does not exist in New York: that day has no slot.
    expect(firstSlots('2027-03-13T12:00:00Z', 'America/New_York', ['02:30'], 2)).toEqual([
      '2027-03-15T06:30:00.000Z',
      '2027-03-16T06:30:00.000Z',
    ]);
    expect(firstSlots('2027-11-06T12:00:00Z', 'America/New_York', ['01:30'], 2)).toEqual([
      '2027-11-07T05:30:00.000Z',
      '2027-11-08T06:30:00.000Z',
    ]);
  });

  it('follows a southern-hemisphere zone (Sydney) across its October change', () => {
    expect(firstSlots('2026-10-02T12:00:00Z', 'Australia/Sydney', ['09:00'], 3)).toEqual([
      '2026-10-02T23:00:00.000Z', // Oct 3, AEST (+10)
      '2026-10-03T22:00:00.000Z', // Oct 4, AEDT (+11)
      '2026-10-04T22:00:00.000Z',
    ]);
  });

  it('yields nothing without queue times', () => {
    expect(firstSlots('2026-11-21T12:00:00Z', 'UTC', [], 1)).toEqual([]);
  });
});

describe('cachedQueueSlotsAfter (the service-side walk with slots kept per day)', () => {
  const take = (slots: Iterable<number>, count: number) => {
    const out: number[] = [];
    for (const slot of slots) {
      out.push(slot);
      if (out.length === count) break;
    }
    return out;
  };

  it('yields exactly the slots of queueSlotsAfter, around DST changes and local midnights', () => {
    const cases: Array<[string, string[]]> = [
      ['America/New_York', ['09:00', '12:00', '17:00']],
      ['America/New_York', ['01:30', '02:30', '23:59']],
      ['Europe/London', ['00:30', '01:30']],
      ['Australia/Lord_Howe', ['01:45', '02:15']],
      ['America/Santiago', ['00:00', '23:30']],
      ['Asia/Tokyo', ['00:00']],
    ];
    const starts = [
      '2026-03-07T12:00:00Z',
      '2026-03-29T00:59:59Z',
      '2026-10-31T23:00:00Z',
      '2026-04-04T13:30:00Z',
    ];
    for (const [timezone, times] of cases) {
      for (const start of starts) {
        const after = utc(start);
        expect(take(cachedQueueSlotsAfter(after, timezone, times), 20)).toEqual(
          take(queueSlotsAfter(after, timezone, times), 20),
        );
      }
    }
  });
});
