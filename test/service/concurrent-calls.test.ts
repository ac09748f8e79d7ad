/**
 * The service's guarantees when its calls overlap, as they do on a server (many requests at once, the
 * scheduler beside them): each QUEUE post takes a slot of its own, an idempotency key or the same post
 * within ten minutes creates one post, however many calls race for it.
 */
import { afterEach, expect, it } from 'vitest';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

const NORTHWIND = 1;
const EVERYWHERE = 1;

let rt: TestRuntime;
afterEach(async () => {
  await rt.close();
});

const queued = (caption: string, extra: Record<string, unknown> = {}) =>
  rt.service.createPost({
    brandId: NORTHWIND,
    collectionId: EVERYWHERE,
    publishMode: 'QUEUE',
    caption,
    ...extra,
  });

it('gives QUEUE posts created at once a slot each', async () => {
  rt = await openTestRuntime();
  const created = await Promise.all(Array.from({ length: 12 }, (_, i) => queued(`At once ${i}`)));
  const posts = await Promise.all(
    created.map((post) => rt.service.getPost({ brandId: NORTHWIND, postId: post.id! })),
  );
  const slots = posts.map((post) => post.dueAt);
  expect(new Set(slots).size).toBe(12);
  // The first twelve free slots, in order of creation: no slot was skipped or taken twice.
  const queue = await rt.service.getQueue({ brandId: NORTHWIND, count: 1 });
  expect(queue.queued.map((post) => post.dueAt)).toEqual(slots);
});

it('creates one post for one idempotency key, however many calls race with it', async () => {
  rt = await openTestRuntime();
  const results = await Promise.all(
    Array.from({ length: 8 }, () => queued('Once only', { idempotencyKey: 'race-key-1' })),
  );
  expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
  expect(new Set(results.map((result) => result.id)).size).toBe(1);
  expect((await rt.service.listPosts({ brandId: NORTHWIND })).pagination.total).toBe(1);
});

it('creates one post for the same content sent several times at once (the ten-minute rule)', async () => {
  rt = await openTestRuntime();
  const results = await Promise.all(Array.from({ length: 8 }, () => queued('Same words')));
  expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
  expect((await rt.service.listPosts({ brandId: NORTHWIND })).pagination.total).toBe(1);
});
