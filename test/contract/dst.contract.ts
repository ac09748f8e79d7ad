/**
 * Daylight saving time, for SCHEDULE and QUEUE, in three timezones: America/New_York (the demo
 * brand), Europe/Paris (Harbor Bakery) and Australia/Sydney (Harbour Sydney, queue times 02:30 and
 * 09:00, so that one queue time falls in the DST gap and the overlap).
 *
 * 2027 changes: New York 03-14 02:00 → 03:00 and 11-07 02:00 → 01:00; Paris 03-28 02:00 → 03:00 and
 * 10-31 03:00 → 02:00; Sydney 10-03 02:00 → 03:00 and 04-04 03:00 → 02:00.
 */
import { describe, expect, it } from 'vitest';
import type { PublishingService } from '../../src/service/publishing-service.js';
import { BRAND, COLLECTION, expectErrors, postRequest } from './support.js';
import type { ContractContext } from './world.js';

const gapMessage = (timezone: string) => `The scheduled at does not exist in the ${timezone} timezone.`;

interface Target {
  service: PublishingService;
  brandId: number;
  collectionId: number;
}

export function dstContract(ctx: ContractContext): void {
  const northwind = (): Target => ({
    service: ctx.service,
    brandId: BRAND.northwind,
    collectionId: COLLECTION.everywhere,
  });
  const firstBrandOf = async (service: PublishingService): Promise<Target> => {
    const [brand] = (await service.listBrands()).data;
    const [collection] = (await service.listCollections({ brandId: brand!.id })).data;
    return { service, brandId: brand!.id, collectionId: collection!.id };
  };
  const paris = () => firstBrandOf(ctx.other);
  const sydney = () => firstBrandOf(ctx.southern);

  let serial = 0;
  const create = async (target: Target, changes: Record<string, unknown>) => {
    const { service, brandId, collectionId } = target;
    const request = postRequest({ brandId, collectionId, caption: `DST post ${++serial}`, ...changes });
    const created = await service.createPost(request);
    return service.getPost({ brandId, postId: created.id! });
  };
  const schedule = (target: Target, scheduledAt: string) =>
    create(target, { publishMode: 'SCHEDULE', scheduledAt });
  /** [local, UTC] of `count` new QUEUE posts. */
  const fillQueue = async (target: Target, count: number) => {
    const times: string[][] = [];
    for (let i = 0; i < count; i++) {
      const post = await create(target, { publishMode: 'QUEUE' });
      times.push([post.scheduledAt!, post.dueAt!]);
    }
    return times;
  };

  describe('SCHEDULE across DST', () => {
    it.each([
      ['America/New_York', ['2027-03-14 02:00:00', '2027-03-14 02:30:00', '2027-03-14 02:59:59'], northwind],
      ['Europe/Paris', ['2027-03-28 02:00:00', '2027-03-28 02:30:00'], paris],
      ['Australia/Sydney', ['2027-10-03 02:00:00', '2027-10-03 02:30:00'], sydney],
    ] as const)('rejects a local time in the spring-forward gap of %s', async (timezone, times, target) => {
      const t = await target();
      for (const scheduledAt of times) {
        await expectErrors(schedule(t, scheduledAt), { scheduledAt: [gapMessage(timezone)] });
        // A DRAFT's planned time is read the same way.
        await expectErrors(create(t, { scheduledAt }), { scheduledAt: [gapMessage(timezone)] });
      }
      expect((await t.service.listPosts({ brandId: t.brandId })).pagination.total).toBe(0);
    });

    it.each([
      // [timezone, local, UTC, target]: just before the gap, and the first second after it
      ['America/New_York', '2027-03-14 01:59:59', '2027-03-14T06:59:59.000000Z', northwind],
      ['America/New_York', '2027-03-14 03:00:00', '2027-03-14T07:00:00.000000Z', northwind],
      ['Europe/Paris', '2027-03-28 01:59:59', '2027-03-28T00:59:59.000000Z', paris],
      ['Europe/Paris', '2027-03-28 03:00:00', '2027-03-28T01:00:00.000000Z', paris],
      ['Australia/Sydney', '2027-10-03 01:59:59', '2027-10-02T15:59:59.000000Z', sydney],
      ['Australia/Sydney', '2027-10-03 03:00:00', '2027-10-02T16:00:00.000000Z', sydney],
      // the fall-back overlap: the earlier instant; then the first second after it
      ['America/New_York', '2027-11-07 01:00:00', '2027-11-07T05:00:00.000000Z', northwind],
      ['America/New_York', '2027-11-07 01:30:00', '2027-11-07T05:30:00.000000Z', northwind],
      ['America/New_York', '2027-11-07 01:59:59', '2027-11-07T05:59:59.000000Z', northwind],
      ['America/New_York', '2027-11-07 02:00:00', '2027-11-07T07:00:00.000000Z', northwind],
      ['Europe/Paris', '2027-10-31 02:30:00', '2027-10-31T00:30:00.000000Z', paris],
      ['Europe/Paris', '2027-10-31 03:00:00', '2027-10-31T02:00:00.000000Z', paris],
      ['Australia/Sydney', '2027-04-04 02:30:00', '2027-04-03T15:30:00.000000Z', sydney],
      ['Australia/Sydney', '2027-04-04 03:00:00', '2027-04-03T17:00:00.000000Z', sydney],
    ] as const)('%s: %s is due at %s', async (timezone, local, utc, target) => {
      const post = await schedule(await target(), local);
      expect(post).toMatchObject({ timezone, status: 'scheduled', scheduledAt: local, dueAt: utc });
    });

    it('applies the same rules when a post is moved', async () => {
      const t = await sydney();
      const post = await schedule(t, '2027-10-02 09:00:00');
      const move = (scheduledAt: string) =>
        ctx.southern.updatePost({ brandId: t.brandId, postId: post.id, scheduledAt });
      await expectErrors(move('2027-10-03 02:30:00'), { scheduledAt: [gapMessage('Australia/Sydney')] });
      expect(await move('2027-04-04 02:30:00')).toMatchObject({
        scheduledAt: '2027-04-04 02:30:00',
        dueAt: '2027-04-03T15:30:00.000000Z',
      });
    });
  });

  if (!ctx.options.clock) return;

  describe('QUEUE across DST', () => {
    it('keeps the local queue times across spring-forward in New York', async () => {
      ctx.clock().set(Date.UTC(2027, 2, 13, 12)); // Saturday 07:00 EST
      expect(await fillQueue(northwind(), 4)).toEqual([
        ['2027-03-13 09:00:00', '2027-03-13T14:00:00.000000Z'],
        ['2027-03-13 12:00:00', '2027-03-13T17:00:00.000000Z'],
        ['2027-03-13 17:00:00', '2027-03-13T22:00:00.000000Z'],
        ['2027-03-14 09:00:00', '2027-03-14T13:00:00.000000Z'], // EDT: one hour earlier in UTC
      ]);
      const queue = await ctx.service.getQueue({ brandId: BRAND.northwind, count: 1 });
      expect(queue.localNow).toBe('2027-03-13 07:00:00');
      expect(queue.nextSlots).toEqual([
        { scheduledAt: '2027-03-14 12:00:00', at: '2027-03-14T16:00:00.000000Z' },
      ]);
    });

    it('keeps the local queue times across fall-back in New York', async () => {
      ctx.clock().set(Date.UTC(2027, 10, 6, 11)); // Saturday 07:00 EDT
      expect(await fillQueue(northwind(), 4)).toEqual([
        ['2027-11-06 09:00:00', '2027-11-06T13:00:00.000000Z'],
        ['2027-11-06 12:00:00', '2027-11-06T16:00:00.000000Z'],
        ['2027-11-06 17:00:00', '2027-11-06T21:00:00.000000Z'],
        ['2027-11-07 09:00:00', '2027-11-07T14:00:00.000000Z'], // EST: one hour later in UTC
      ]);
    });

    it('reads the local time after the change', async () => {
      ctx.clock().set(Date.UTC(2027, 2, 14, 7, 30)); // 03:30 EDT, an hour after 01:30 EST
      const queue = await ctx.service.getQueue({ brandId: BRAND.northwind, count: 1 });
      expect(queue).toMatchObject({ localNow: '2027-03-14 03:30:00', now: '2027-03-14T07:30:00.000000Z' });
      expect(queue.nextSlots).toEqual([
        { scheduledAt: '2027-03-14 09:00:00', at: '2027-03-14T13:00:00.000000Z' },
      ]);
    });

    it('keeps the local queue times across spring-forward in Paris', async () => {
      ctx.clock().set(Date.UTC(2027, 2, 27, 6)); // Saturday 07:00 CET
      expect(await fillQueue(await paris(), 4)).toEqual([
        ['2027-03-27 09:00:00', '2027-03-27T08:00:00.000000Z'],
        ['2027-03-27 12:00:00', '2027-03-27T11:00:00.000000Z'],
        ['2027-03-27 17:00:00', '2027-03-27T16:00:00.000000Z'],
        ['2027-03-28 09:00:00', '2027-03-28T07:00:00.000000Z'], // CEST
      ]);
    });

    it('gives one slot, at the earlier instant, for a queue time in the Sydney fall-back overlap', async () => {
      ctx.clock().set(Date.UTC(2027, 3, 3, 12)); // 2027-04-03 23:00 AEDT
      expect(await fillQueue(await sydney(), 3)).toEqual([
        ['2027-04-04 02:30:00', '2027-04-03T15:30:00.000000Z'], // AEDT, the first 02:30
        ['2027-04-04 09:00:00', '2027-04-03T23:00:00.000000Z'], // AEST
        ['2027-04-05 02:30:00', '2027-04-04T16:30:00.000000Z'],
      ]);
    });

    it('gives no slot for a queue time in the Sydney spring-forward gap', async () => {
      ctx.clock().set(Date.UTC(2027, 9, 2, 12)); // 2027-10-02 22:00 AEST
      const t = await sydney();
      const expected = [
        { scheduledAt: '2027-10-03 09:00:00', at: '2027-10-02T22:00:00.000000Z' }, // AEDT; 02:30 does not exist
        { scheduledAt: '2027-10-04 02:30:00', at: '2027-10-03T15:30:00.000000Z' },
      ];
      const queue = await ctx.southern.getQueue({ brandId: t.brandId, count: 2 });
      expect(queue).toMatchObject({ timezone: 'Australia/Sydney', localNow: '2027-10-02 22:00:00' });
      expect(queue.nextSlots).toEqual(expected);
      expect(await fillQueue(t, 2)).toEqual(expected.map((slot) => [slot.scheduledAt, slot.at]));
    });
  });
}
