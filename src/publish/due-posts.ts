/**
 * The first step of a publishing pass: due posts start publishing (one delivery per channel), a batch at
 * a time, in one transaction per brand of the batch: on the brand, so that schedulers of other processes
 * start that brand's posts one at a time with this one (and with changes to its posts), and those of
 * other brands side by side. A brand another process is starting right now is left to it rather than
 * waited for: the pass goes on with the other brands, and sends.
 */
import type { PublishingEvent, Store } from '../ports.js';
import { type CollectionsRead, startPublishing } from '../service/publishing.js';
import { postSettled, postStarted } from './publishing-events.js';

export interface DuePostsOptions {
  store: Store;
  nowMs: () => number;
  batchSize: number;
  /** Told what happened to each post once its start is committed; none: no events are made. */
  tell: ((event: PublishingEvent) => void) | undefined;
  /**
   * Told after each batch of brands that started posts, once their transactions committed: the
   * batch's sends are claimed at once, after its starts (claims between the starts of a batch cost
   * a burst more than they gain: 1.9 s late instead of 1.2 on PostgreSQL, docs/benchmarks.md).
   */
  onStarted: (() => void) | undefined;
}

/** Brands whose due posts are started at once (each in its transaction; SQLite runs them in turn). */
const START_CONCURRENCY = 8;

/** How many posts were started, and how many brands were left to another process starting them. */
export async function startDuePosts(
  options: DuePostsOptions,
): Promise<{ started: number; leftToOthers: number }> {
  const { store, batchSize, tell } = options;
  let started = 0;
  const leftToOthers = new Set<number>();
  for (;;) {
    const nowMs = options.nowMs();
    const due = await store.posts.due(nowMs, batchSize);
    const brands = [...new Set(due.map((post) => post.brandId))].filter((id) => !leftToOthers.has(id));
    if (brands.length === 0) return { started, leftToOthers: leftToOthers.size };
    // Brands side by side (each its own transaction, under its own lock): on PostgreSQL a burst of
    // brands starts in a few rounds of round trips instead of one brand after another.
    const queue = [...brands];
    const startNext = async (): Promise<void> => {
      for (let brandId = queue.shift(); brandId !== undefined; brandId = queue.shift()) {
        await startBrand(brandId);
      }
    };
    const startBrand = async (brandId: number) => {
      const events: PublishingEvent[] = [];
      let startedHere = 0;
      const ran = await store.tryTransaction(
        async (tx) => {
          // Read again in the transaction: another flow or process may have started, cancelled or moved
          // them since; what it started is no longer due, and the next due posts take their place.
          const collections: CollectionsRead = new Map();
          for (const current of await tx.posts.due(nowMs, batchSize, brandId)) {
            const start = await startPublishing(tx, current, nowMs, collections);
            started++;
            startedHere++;
            if (!tell) continue;
            events.push(...postStarted(current, start.deliveries));
            if (start.settled) events.push(postSettled(current, start.settled));
          }
        },
        { brandId },
      );
      if (!ran) leftToOthers.add(brandId);
      // Told once committed: a rolled-back start did not happen.
      if (ran && startedHere > 0) startedInBatch = true;
      for (const event of events) tell?.(event);
    };
    let startedInBatch = false;
    await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, brands.length) }, startNext));
    if (startedInBatch) options.onStarted?.();
    if (due.length < batchSize) return { started, leftToOthers: leftToOthers.size };
  }
}
