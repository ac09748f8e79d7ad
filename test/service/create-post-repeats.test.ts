/**
 * create_post stores a post and checks that it repeats no earlier one in the same statement (the
 * Store's insertUnlessRepeated): the earlier post is read only when there is one. These are the cases
 * where the order matters: a QUEUE post repeated once the brand's queue times are gone is still answered
 * with the post it repeats, and a repeat after the queue walked stores nothing. Runs on both stores
 * (vitest's projects).
 */
import { afterEach, expect, it } from 'vitest';
import { openTestRuntime, runSqlElsewhere, type TestRuntime } from '../support/local.js';

const NORTHWIND = 1;
const EVERYWHERE = 1;

let rt: TestRuntime;
afterEach(async () => {
  await rt.close();
});

const runSql = (text: string) => runSqlElsewhere(rt, text);

const queued = (caption: string, idempotencyKey?: string) =>
  rt.service.createPost({
    brandId: NORTHWIND,
    collectionId: EVERYWHERE,
    publishMode: 'QUEUE',
    caption,
    ...(idempotencyKey && { idempotencyKey }),
  });

it('answers a repeated QUEUE post with the earlier one, also once the brand has no queue times', async () => {
  rt = await openTestRuntime();
  const byKey = await queued('Keyed', 'launch-1');
  const byContent = await queued('Same words');
  await runSql(`UPDATE brands SET queue_times = '[]' WHERE id = ${NORTHWIND}`);
  // Repeats are answered as such: the queue is not needed to recognise them.
  const again = await queued('Keyed', 'launch-1');
  expect(again).toMatchObject({ id: byKey.id, duplicate: true });
  expect(await queued('Same words')).toMatchObject({ id: byContent.id, duplicate: true });
  // A key reused for other content is refused as before, not by the missing queue.
  await expect(queued('Other words', 'launch-1')).rejects.toMatchObject({
    errors: { idempotencyKey: [expect.stringContaining(`post ${byKey.id}, with different content`)] },
  });
  // A new post needs the queue.
  await expect(queued('New words')).rejects.toMatchObject({
    errors: { publishMode: [expect.stringContaining('no queue times')] },
  });
  const queue = await rt.service.getQueue({ brandId: NORTHWIND, count: 1 });
  expect(queue.queued.map((post) => post.id).sort()).toEqual([byKey.id, byContent.id].sort());
});

it('stores nothing for a repeat: the slot its queue walk found goes to the next post', async () => {
  rt = await openTestRuntime();
  const first = await queued('First', 'k-1');
  const [next] = (await rt.service.getQueue({ brandId: NORTHWIND, count: 1 })).nextSlots;
  // The repeat walks the queue to that slot, then stores nothing.
  expect(await queued('First', 'k-1')).toMatchObject({ id: first.id, duplicate: true });
  expect(await queued('First')).toMatchObject({ id: first.id, duplicate: true });
  const second = await queued('Second');
  const queue = await rt.service.getQueue({ brandId: NORTHWIND, count: 1 });
  expect(queue.queued.map((post) => [post.id, post.dueAt])).toEqual([
    [first.id, expect.any(String)],
    [second.id, next!.at],
  ]);
});
