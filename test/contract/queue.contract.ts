/** getQueue: the brand's local time, its next free queue slots and the queued posts. */
import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/domain/post-schemas.js';
import { BRAND, expectBrandNotFound, expectErrors, postRequest } from './support.js';
import type { ContractContext } from './world.js';

const NOW_UTC = '2026-11-21T12:00:00.000000Z';
const NW = { brandId: BRAND.northwind };
const ids = (posts: Post[]) => posts.map((post) => post.id);

export function queueContract(ctx: ContractContext): void {
  let serial = 0;
  const create = async (changes: Record<string, unknown> = {}) => {
    const created = await ctx.service.createPost(
      postRequest({ caption: `Queue post ${++serial}`, ...changes }),
    );
    return created.id!;
  };
  const queue = () => create({ publishMode: 'QUEUE' });
  const schedule = (scheduledAt: string) => create({ publishMode: 'SCHEDULE', scheduledAt });
  const remove = (postId: number) => ctx.service.deletePost({ ...NW, postId });
  const get = (postId: number) => ctx.service.getPost({ ...NW, postId });
  const harbor = async () => (await ctx.other.listBrands()).data[0]!.id;

  describe('getQueue', () => {
    const slot = (scheduledAt: string, at: string) => ({ scheduledAt, at });

    it("shows the brand's local time, its queue times and the next free slots", async () => {
      expect(await ctx.service.getQueue(NW)).toEqual({
        brandId: BRAND.northwind,
        timezone: 'America/New_York',
        localNow: '2026-11-21 07:00:00',
        now: NOW_UTC,
        queueTimes: ['09:00', '12:00', '17:00'],
        nextSlots: [
          slot('2026-11-21 09:00:00', '2026-11-21T14:00:00.000000Z'),
          slot('2026-11-21 12:00:00', '2026-11-21T17:00:00.000000Z'),
          slot('2026-11-21 17:00:00', '2026-11-21T22:00:00.000000Z'),
          slot('2026-11-22 09:00:00', '2026-11-22T14:00:00.000000Z'),
          slot('2026-11-22 12:00:00', '2026-11-22T17:00:00.000000Z'),
        ],
        queued: [],
      });
      const kite = await ctx.service.getQueue({ brandId: BRAND.kite, count: 1 });
      expect(kite).toMatchObject({ localNow: '2026-11-21 21:00:00', timezone: 'Asia/Tokyo' });
      expect(kite.nextSlots).toEqual([slot('2026-11-22 09:00:00', '2026-11-22T00:00:00.000000Z')]);
    });

    it('skips taken slots and lists the queued posts soonest first', async () => {
      const first = await queue(); // 09:00
      const second = await queue(); // 12:00
      await remove(first);
      const third = await queue(); // 09:00 again
      await schedule('2026-11-21 17:00:00'); // takes a slot, but is not in the queue
      await create({ scheduledAt: '2026-11-22 09:00:00' }); // a draft's plan takes no slot
      const q = await ctx.service.getQueue({ ...NW, count: 2 });
      expect(q.nextSlots).toEqual([
        slot('2026-11-22 09:00:00', '2026-11-22T14:00:00.000000Z'),
        slot('2026-11-22 12:00:00', '2026-11-22T17:00:00.000000Z'),
      ]);
      expect(ids(q.queued)).toEqual([third, second]);
      expect(q.queued[0]).toEqual(await get(third));
    });

    it('validates count and answers 404 for a brand the user cannot see', async () => {
      await expectErrors(ctx.service.getQueue({ ...NW, count: 0 }), {
        count: ['The count must be at least 1.'],
      });
      await expectErrors(ctx.service.getQueue({ ...NW, count: 51 }), {
        count: ['The count may not be greater than 50.'],
      });
      expect((await ctx.service.getQueue({ ...NW, count: 50 })).nextSlots).toHaveLength(50);
      await expectBrandNotFound(ctx.service.getQueue({ brandId: 999 }));
      await expectBrandNotFound(ctx.service.getQueue({ brandId: await harbor() }));
    });
  });
}
