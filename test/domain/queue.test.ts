import { describe, expect, it } from 'vitest';
import { queueSlotsAfter } from '../../src/domain/queue.js';

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
