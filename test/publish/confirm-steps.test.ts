/**
 * A commit whose answer was lost, on a platform that cannot recognise a repeated post but can say
 * whether one was made (the reference platform of test/support/reference-platform.ts, its connector not
 * idempotent and with `confirm`), through the engine: never sent again blind; read back a few seconds
 * on, it is recorded sent when the platform has it, and sent again only when the platform says it has
 * not. Counted where it happens: the posts the platform made and the requests it received.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Scheduler } from '../../src/publish/scheduler.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { ReferencePublisher, startReferencePlatform } from '../support/reference-platform.js';

const CONVERSATION = 3; // the demo's collection of six channels, none connected: all to the reference
let rt: TestRuntime;
let platform: Awaited<ReturnType<typeof startReferencePlatform>>;
let scheduler: Scheduler;
const logged: string[] = [];
beforeEach(async () => {
  rt = await openTestRuntime();
  platform = await startReferencePlatform({ deduplicates: false });
  const publisher = new ReferencePublisher(
    platform.kit.url,
    platform.token,
    { timeoutMs: 300, log: (line) => logged.push(line) },
    false,
  );
  scheduler = new Scheduler({ store: rt.runtime.store, clock: rt.clock, publisher });
});
afterEach(async () => {
  await scheduler.stop();
  await platform.kit.close();
  await rt.close();
});

const postRequests = () => platform.kit.requestsTo('/posts', 'POST').length;

async function publishNow() {
  const created = await rt.service.createPost({
    brandId: 1,
    collectionId: CONVERSATION,
    publishMode: 'IMMEDIATE',
    caption: 'Lost, then found',
  });
  return async () => rt.service.getPost({ brandId: 1, postId: created.id! });
}

it('reads back a commit whose answer was lost, finds it, and records it sent without sending it again', async () => {
  const read = await publishNow();
  platform.kit.hangAfterCreating({ route: '/posts', count: 1 });
  await scheduler.runOnce();
  expect(platform.posts.size).toBe(6);
  const waiting = (await read()).deliveries.filter((delivery) => delivery.status !== 'sent');
  expect(waiting).toHaveLength(1);
  expect(waiting[0]!.status).toBe('sending');
  expect(waiting[0]!.reason).toMatch(/Reading the platform to see whether it was published/);

  rt.clock.advance(5_000);
  await scheduler.runOnce();
  const post = await read();
  expect(post.status).toBe('published');
  expect(post.deliveries.map((delivery) => delivery.status)).toEqual(Array(6).fill('sent'));
  expect(postRequests()).toBe(6);
  expect(platform.posts.size).toBe(6);
  expect(platform.kit.requestsTo('/posts', 'GET')).toHaveLength(1);
});

it('sends again a commit the platform says it never made, once', async () => {
  const read = await publishNow();
  platform.kit.hang(1_000, { route: '/posts', count: 1 });
  await scheduler.runOnce();
  expect(platform.posts.size).toBe(5);
  rt.clock.advance(5_000);
  await scheduler.runOnce(); // confirmed absent: back to commit, due now
  await scheduler.runOnce();
  const post = await read();
  expect(post.status).toBe('published');
  expect(postRequests()).toBe(7);
  expect(platform.posts.size).toBe(6);
});
