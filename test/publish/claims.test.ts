/**
 * Claims and leases between two schedulers on one store, each with its own connection (to the SQLite
 * file, or the PostgreSQL database in the `postgres` project), as two processes sharing a store have: a
 * live owner keeps its claims by renewing their lease, only an expired lease is taken over, and an owner
 * whose claim was taken over records and announces nothing.
 * The platform is a stand-in that counts every send and can be held mid-send.
 */
import { afterEach, expect, it } from 'vitest';
import { openLocalRuntime } from '../../src/local-runtime.js';
import type { Publisher, PublishingEvent } from '../../src/ports.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { HeldPlatform } from '../support/held-platform.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

const CONVERSATION = 3; // 6 channels

let rt: TestRuntime;
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const runtime of opened.splice(0)) await runtime.close();
  await rt.close();
});

/** A second connection to the same store, with its own scheduler: another process, in all but name. */
async function secondProcess(
  publisher: Publisher,
  options: { leaseMs: number; clock?: { now(): number }; concurrency?: number },
) {
  const runtime = await openLocalRuntime(
    { ...rt.storeConfig, demo: false },
    { clock: options.clock ?? rt.clock },
  );
  opened.push(runtime);
  const events: PublishingEvent[] = [];
  const logged: string[] = [];
  const scheduler = new Scheduler({
    store: runtime.store,
    clock: options.clock ?? rt.clock,
    publisher,
    concurrency: options.concurrency ?? 1,
    leaseMs: options.leaseMs,
    events: (event) => events.push(event),
    log: (message) => logged.push(message),
  });
  return { scheduler, events, logged };
}

const settledEvents = (events: PublishingEvent[]) =>
  events.filter((event) => /^post \d+: (published|partially published|failed)$/.test(event.message));

it('keeps a claim its owner is still sending: the lease is renewed while the send lasts', async () => {
  rt = await openTestRuntime({ now: Date.now() });
  const clock = { now: () => Date.now() };
  const platform = new HeldPlatform();
  const first = await secondProcess(platform, { leaseMs: 300, clock });
  const second = await secondProcess(platform, { leaseMs: 300, clock });
  const created = await rt.service.createPost({
    brandId: 1,
    collectionId: CONVERSATION,
    publishMode: 'IMMEDIATE',
    caption: 'Held',
  });
  platform.hold();
  const firstTick = first.scheduler.runOnce();
  await platform.sendStarted;
  // For four leases the other process ticks every 50 ms, sending the rest: it must never take the held
  // claim over.
  const until = Date.now() + 1_200;
  while (Date.now() < until) {
    await second.scheduler.runOnce().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  platform.open();
  await firstTick;
  for (let i = 0; i < 5; i++) await second.scheduler.runOnce();
  const deliveries = (await rt.service.getPost({ brandId: 1, postId: created.id })).deliveries;
  expect(deliveries.map((d) => d.status)).toEqual(Array(6).fill('sent'));
  expect(deliveries.map((d) => d.attempts)).toEqual(Array(6).fill(1));
  expect([...platform.sends.values()]).toEqual(Array(6).fill(1));
  expect(settledEvents([...first.events, ...second.events])).toHaveLength(1);
});

it("keeps renewing a claim still being sent when the owner's other sends have finished", async () => {
  rt = await openTestRuntime({ now: Date.now() });
  const clock = { now: () => Date.now() };
  const platform = new HeldPlatform();
  const first = await secondProcess(platform, { leaseMs: 300, clock, concurrency: 2 });
  const second = await secondProcess(platform, { leaseMs: 300, clock });
  const created = await rt.service.createPost({
    brandId: 1,
    collectionId: CONVERSATION,
    publishMode: 'IMMEDIATE',
    caption: 'One slow, five quick',
  });
  const quick = platform.hold();
  const slow = platform.hold();
  const firstTick = first.scheduler.runOnce();
  await Promise.all([quick.started, slow.started]);
  // The other worker finishes its send and the four after it, and ends: only the slow send is left.
  quick.open();
  const sentCount = async () =>
    (await rt.service.getPost({ brandId: 1, postId: created.id })).deliveries.filter(
      (d) => d.status === 'sent',
    ).length;
  while ((await sentCount()) < 5) await new Promise((resolve) => setTimeout(resolve, 10));
  // Four leases of the other process ticking: the slow send's claim must still be renewed.
  const until = Date.now() + 1_200;
  while (Date.now() < until) {
    await second.scheduler.runOnce().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  slow.open();
  await firstTick;
  const deliveries = (await rt.service.getPost({ brandId: 1, postId: created.id })).deliveries;
  expect(deliveries.map((d) => d.status)).toEqual(Array(6).fill('sent'));
  expect([...platform.sends.values()]).toEqual(Array(6).fill(1));
  expect(second.logged).toEqual([]);
});

it('takes over an expired claim once, and its stalled owner then records and announces nothing', async () => {
  rt = await openTestRuntime();
  const platform = new HeldPlatform();
  const stalled = await secondProcess(platform, { leaseMs: 30_000 });
  const other = await secondProcess(platform, { leaseMs: 30_000 });
  const created = await rt.service.createPost({
    brandId: 1,
    collectionId: CONVERSATION,
    publishMode: 'IMMEDIATE',
    caption: 'Stalled',
  });
  const stalledSend = platform.hold();
  const stalledTick = stalled.scheduler.runOnce();
  await stalledSend.started;
  // The owner stalls (a suspended laptop, a blocked event loop) past its lease: on the fake clock no
  // renewal can make up for it.
  rt.clock.advance(30_001);
  // The other process takes the expired claim over and is mid-send of it when the stalled owner comes
  // back with its own outcome: that outcome must not be recorded over the new owner's claim.
  const otherSend = platform.hold();
  const otherTick = other.scheduler.runOnce();
  await otherSend.started;
  stalledSend.open();
  await stalledTick;
  otherSend.open();
  await otherTick;
  for (let i = 0; i < 3; i++) await other.scheduler.runOnce();

  const post = await rt.service.getPost({ brandId: 1, postId: created.id });
  expect(post.status).toBe('published');
  expect(post.deliveries.map((d) => d.status)).toEqual(Array(6).fill('sent'));
  const taken = post.deliveries.filter((d) => d.attempts === 2);
  expect(taken).toHaveLength(1);
  // Sent twice (the idempotent platform allows a resend after a lost lease), recorded once.
  expect(platform.sends.get(taken[0]!.id)).toBe(2);
  expect([...platform.sends.values()].filter((n) => n === 1)).toHaveLength(5);
  // Published announced once in all, by the process that settled the post.
  expect(settledEvents([...stalled.events, ...other.events])).toHaveLength(1);
  // The stalled owner knows it lost the claim, and says so to its operator.
  expect(stalled.logged.filter((line) => line.includes('was taken over by another process'))).toEqual([
    `delivery ${taken[0]!.id} was taken over by another process after its lease ended; this process's outcome (sent) was not recorded.`,
  ]);
  expect(other.logged.filter((line) => line.includes('taken over'))).toEqual([]);
});
