/**
 * An auto-comment whose platform keeps failing is retried as a delivery is (retry-policy.ts), with
 * attempts of its own, and then given up with the reason. Before, a comment counted its delivery's
 * attempts (1, never more): it was retried for ever, each reason still "Attempt 1 of 6 failed". And the
 * waits between attempts are those the README states: 30 s doubling up to 15 min, jittered (half fixed,
 * half random), 8 attempts in all. A real engine on a real store, the comment going to a connected
 * Mastodon channel on its loopback stand-in, which answers 503 to every reply.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { RETRY_POLICY } from '../../src/publish/retry-policy.js';
import { type ConnectedEngine, openConnectedEngine } from '../support/connected-engine.js';

let world: ConnectedEngine;
beforeEach(async () => {
  world = await openConnectedEngine();
});
afterEach(() => world.close());

it('gives a failing comment up after its own attempts, waiting 30 s doubling to 15 min between them', async () => {
  expect(RETRY_POLICY.transientAttempts).toBe(8);
  const { mastodon, rt } = world;
  const engine = world.scheduler(5_000);
  const post = await world.publishTo('Mastodon', {
    publishMode: 'IMMEDIATE',
    caption: 'Out now',
    comment: { comment: 'More soon', delay: 60 },
  });
  await engine.runOnce();
  const delivery = async () => (await post.read()).deliveries[0]!;
  expect((await delivery()).status).toBe('sent');
  // From now on every status the instance is asked for (the reply) is answered 503.
  mastodon.failNext('/api/v1/statuses', 1_000, 503);

  const waits: number[] = [];
  const reasons: string[] = [];
  for (let round = 0; round < 20; round++) {
    const comment = (await delivery()).comment;
    if (comment.status !== 'pending') break;
    const dueMs = Date.parse(comment.dueAt!);
    if (round > 0) waits.push(dueMs - rt.clock.now());
    rt.clock.set(dueMs);
    await engine.runOnce();
    reasons.push((await delivery()).comment.reason ?? '');
  }
  expect((await delivery()).comment.status).toBe('failed');
  // Counted where it happens: the reply reached the instance 8 times, no more (and the post once).
  expect(mastodon.requests.filter((r) => r.path === '/api/v1/statuses')).toHaveLength(1 + 8);
  expect(reasons.slice(0, 7).map((reason) => /Attempt (\d) of 8 failed/.exec(reason)?.[1])).toEqual([
    '1',
    '2',
    '3',
    '4',
    '5',
    '6',
    '7',
  ]);
  expect(reasons[7]).toMatch(/Gave up after 8 attempts\.$/);
  // Each wait in [ceiling / 2, ceiling], the ceiling 30 s doubling, at most 15 min.
  const ceilings = [30, 60, 120, 240, 480, 900, 900].map((seconds) => seconds * 1000);
  expect(waits).toHaveLength(ceilings.length);
  waits.forEach((waitMs, i) => {
    expect(waitMs).toBeGreaterThanOrEqual(ceilings[i]! / 2);
    expect(waitMs).toBeLessThanOrEqual(ceilings[i]!);
  });
});
