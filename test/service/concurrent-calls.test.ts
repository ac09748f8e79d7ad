/**
 * The service's guarantees when its calls overlap, as they do on a server (many requests at once, the
 * scheduler beside them): each QUEUE post takes a slot of its own, an idempotency key or the same post
 * within ten minutes creates one post, however many calls race for it, and a post is changed only
 * while it has not started publishing.
 */
import { afterEach, expect, it } from 'vitest';
import { formatLocalTime } from '../../src/domain/time.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

const NORTHWIND = 1;
const EVERYWHERE = 1;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

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
  // In order of creation, which is the order of their ids: calls made at once are created in the order
  // their store transactions run (the calls' order on SQLite; on PostgreSQL, as its lock is granted).
  const ids = created.map((post) => post.id!).sort((a, b) => a - b);
  const posts = await Promise.all(ids.map((postId) => rt.service.getPost({ brandId: NORTHWIND, postId })));
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

/** Lets `n` queued promise callbacks run. */
async function steps(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

it.each(['deleted', 'changed'] as const)(
  'lets a post be %s or started, never both, when the call meets the scheduler',
  async (action) => {
    rt = await openTestRuntime();
    const { store, clock } = rt.runtime;
    const scheduler = new Scheduler({ store, clock, publisher: new SandboxPublisher(store.sandbox, clock) });
    const outcomes = new Set<string>();
    // One starts a few steps (queued promise callbacks) after the other, the call first, then the
    // scheduler, a step more each round: the call's read and its write fall everywhere around the
    // scheduler's read of due posts and the transaction that starts the post.
    // Past 40 steps, whole milliseconds: on PostgreSQL the scheduler's reads are round trips, which
    // queued callbacks alone do not outlast.
    for (let lead = -40; lead < 60; lead++) {
      const dueAtMs = rt.clock.now() + MINUTE;
      const created = await rt.service.createPost({
        brandId: NORTHWIND,
        collectionId: EVERYWHERE,
        publishMode: 'SCHEDULE',
        scheduledAt: formatLocalTime(dueAtMs, 'America/New_York'),
        caption: `Due soon ${lead}`,
      });
      rt.clock.advance(2 * MINUTE);
      const ids = { brandId: NORTHWIND, postId: created.id! };
      // Moved an hour later: no longer due.
      const act = () =>
        action === 'deleted'
          ? rt.service.deletePost(ids)
          : rt.service.updatePost({
              ...ids,
              scheduledAt: formatLocalTime(dueAtMs + HOUR, 'America/New_York'),
            });
      let call: Promise<unknown>;
      let tick: Promise<unknown>;
      if (lead < 0) {
        call = act();
        await steps(-lead);
        tick = scheduler.runOnce();
      } else {
        tick = scheduler.runOnce();
        if (lead < 40) await steps(lead);
        else await new Promise((resolve) => setTimeout(resolve, lead - 39));
        call = act();
      }
      const refused = await call.then(
        () => undefined,
        (error: unknown) => error,
      );
      await tick;
      const post = await rt.service.getPost(ids);
      outcomes.add(refused === undefined ? action : 'started');
      if (refused === undefined) {
        expect({ status: post.status, deliveries: post.deliveries }).toEqual({
          status: action === 'deleted' ? 'cancelled' : 'scheduled',
          deliveries: [],
        });
      } else {
        expect(refused).toMatchObject({
          errors: {
            postId: [expect.stringContaining(`only draft, queued and scheduled posts can be ${action}`)],
          },
        });
        // Started: sent to the collection's channels (its INACTIVE Pinterest channel fails).
        expect(post.status).toBe('partially_published');
        expect(post.deliveries).toHaveLength(12);
      }
    }
    // Both orders were met.
    expect([...outcomes].sort()).toEqual([action, 'started'].sort());
  },
);
