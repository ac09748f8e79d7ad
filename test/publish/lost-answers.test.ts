/**
 * A send whose answer was lost (the platform created the post, then no answer came), through the engine:
 * on a platform that recognises a repeated send (Mastodon, by Idempotency-Key) it is sent again with the
 * same key and published once; on one that cannot (Telegram) it fails with a reason saying why, and is
 * never sent again. Counted where it happens, at the platforms' stand-ins.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type ConnectedEngine, openConnectedEngine } from '../support/connected-engine.js';

let world: ConnectedEngine;
beforeEach(async () => {
  world = await openConnectedEngine();
});
afterEach(() => world.close());

it('sends again, with its key, a send whose answer was lost on a platform that deduplicates: published once', async () => {
  const { mastodon, rt } = world;
  const engine = world.scheduler();
  const post = await world.publishTo('Mastodon', { publishMode: 'IMMEDIATE', caption: 'Lost answer' });
  const delivery = async () => (await post.read()).deliveries[0]!;
  mastodon.hangAfterCreatingNext(1);
  await engine.runOnce();
  const waiting = await delivery();
  expect(waiting.status).toBe('pending');
  expect(waiting.reason).toMatch(/Attempt 1 of 8 failed/);
  rt.clock.set(Date.parse(waiting.retryAt!));
  await engine.runOnce();

  const sent = await delivery();
  expect(sent.status).toBe('sent');
  expect(mastodon.statuses).toHaveLength(1);
  expect(sent.externalId).toBe(mastodon.statuses[0]!.id);
  const posts = mastodon.requests.filter((r) => r.path === '/api/v1/statuses' && r.method === 'POST');
  expect(posts).toHaveLength(2);
  expect(posts[0]!.idempotencyKey).not.toBeNull();
  expect(posts[1]!.idempotencyKey).toBe(posts[0]!.idempotencyKey);
});

it('fails, and never sends again, a send whose answer was lost on a platform that cannot deduplicate', async () => {
  const { telegram, rt } = world;
  const engine = world.scheduler();
  const post = await world.publishTo('Telegram', { publishMode: 'IMMEDIATE', caption: 'Lost answer' });
  const delivery = async () => (await post.read()).deliveries[0]!;
  telegram.failNext(1, { kind: 'hang', afterRecording: true });
  await engine.runOnce();
  const failed = await delivery();
  expect(failed.status).toBe('failed');
  expect(failed.reason).toMatch(/whether it arrived is unknown/i);
  // Later passes, long after any retry would have come, send nothing more.
  rt.clock.advance(24 * 60 * 60_000);
  await engine.runOnce();
  expect(telegram.messages).toHaveLength(1);
  expect(telegram.callsOf('sendMessage')).toBe(1);
  expect((await delivery()).status).toBe('failed');
});

it('closes a Telegram poll at the end of its period, once, through the engine', async () => {
  const { telegram, rt } = world;
  const engine = world.scheduler();
  const post = await world.publishTo('Telegram', {
    publishMode: 'IMMEDIATE',
    poll: { question: 'Which roast?', options: ['Light', 'Dark'], period: '1d' },
  });
  await engine.runOnce();
  expect((await post.read()).deliveries[0]!.status).toBe('sent');
  expect(telegram.messages).toHaveLength(1);
  expect(telegram.messages[0]!.poll?.isClosed).toBe(false);
  // Telegram closes a poll by itself only up to 10 minutes: a day's poll is closed by the engine.
  rt.clock.advance(24 * 60 * 60_000 - 1_000);
  await engine.runOnce();
  expect(telegram.callsOf('stopPoll')).toBe(0);
  rt.clock.advance(1_000);
  await engine.runOnce();
  await engine.runOnce();
  expect(telegram.callsOf('stopPoll')).toBe(1);
  expect(telegram.messages[0]!.poll?.isClosed).toBe(true);
});
