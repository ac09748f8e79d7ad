import { queueSlotsAfter } from '../domain/queue.js';
import type { BrandRecord, Store } from '../ports.js';

const BATCH = 256;

/**
 * The earliest queue time of the brand after `nowMs` that no queued or scheduled post of the brand
 * holds. Walks the brand's slots and its planned due times (an index range, read in batches) side by
 * side, so the cost grows with the run of taken slots ahead, not with the number of posts stored.
 */
export function nextFreeQueueSlot(store: Store, brand: BrandRecord, nowMs: number): number | undefined {
  let taken = store.posts.plannedTimesFrom(brand.id, nowMs + 1, BATCH);
  let index = 0;
  for (const slot of queueSlotsAfter(nowMs, brand.timezone, brand.queueTimes)) {
    for (;;) {
      while (index < taken.length && taken[index]! < slot) index++;
      if (index < taken.length || taken.length < BATCH) break;
      taken = store.posts.plannedTimesFrom(brand.id, slot, BATCH);
      index = 0;
    }
    if (taken[index] !== slot) return slot;
  }
  return undefined;
}
