/** A brand's queue as an assistant needs it: its local time now, its next free slots, what is queued. */
import { NotFoundError } from '../domain/errors.js';
import { type Queue, QueueRequest } from '../domain/post-schemas.js';
import { queueSlotsAfter } from '../domain/queue.js';
import { formatLocalTime, formatTimestamp } from '../domain/time.js';
import { validateOrThrow } from '../domain/validation.js';
import type { Clock, Store, UserRecord } from '../ports.js';
import { presentPost } from './post-resource.js';

const QUEUED_SHOWN = 100;

export async function getQueue(
  context: { store: Store; clock: Clock; user: UserRecord },
  request: unknown,
): Promise<Queue> {
  const { brandId, count = 5 } = validateOrThrow(QueueRequest, request);
  const { store } = context;
  const brand = await store.findBrandOfUser(context.user.id, brandId);
  if (!brand) throw NotFoundError.brand();
  const nowMs = context.clock.now();

  const taken = new Set(await store.posts.plannedTimesFrom(brand.id, nowMs + 1, 10_000));
  const nextSlots: Queue['nextSlots'] = [];
  for (const slot of queueSlotsAfter(nowMs, brand.timezone, brand.queueTimes)) {
    if (taken.has(slot)) continue;
    nextSlots.push({ scheduledAt: formatLocalTime(slot, brand.timezone), at: formatTimestamp(slot) });
    if (nextSlots.length === count) break;
  }
  const queued = await store.posts.queued(brand.id, nowMs, QUEUED_SHOWN);
  const deliveries = await store.deliveries.ofPosts(queued.map((post) => post.id));
  return {
    brandId: brand.id,
    timezone: brand.timezone,
    localNow: formatLocalTime(nowMs, brand.timezone),
    now: formatTimestamp(nowMs),
    queueTimes: brand.queueTimes,
    nextSlots,
    queued: queued.map((post) => presentPost(post, brand, deliveries.get(post.id) ?? [])),
  };
}
