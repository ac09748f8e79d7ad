/**
 * One channel's trouble costs that channel alone, through the engine, counted at the platforms'
 * stand-ins: a platform that hangs holds up only its own send (a post falling due on another channel
 * meanwhile goes out within a second of its time, not after the hung request's timeout), and an
 * account's rate limit holds back that account's next sends until its reset, in every process, while
 * another account's go at once; and an account whose limit headers say nothing is left waits for
 * their reset instead of being sent to a sure 429.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { formatLocalTime } from '../../src/domain/time.js';
import { type ConnectedEngine, openConnectedEngine } from '../support/connected-engine.js';

let world: ConnectedEngine;
beforeEach(async () => {
  world = await openConnectedEngine();
});
afterEach(() => world.close());

const until = async (done: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return done();
};

it('a platform that hangs holds up only its own channel: a post due meanwhile elsewhere goes out on time', async () => {
  const { telegram, mastodon, rt } = world;
  // Connectors wait a minute for an answer: the hung request stays under way for the whole test.
  const engine = world.scheduler(60_000);
  telegram.kit.hang(4_000);
  await world.publishTo('Telegram', { publishMode: 'IMMEDIATE', caption: 'Held up by its platform' });
  const dueAt = new Date(Math.ceil(rt.clock.now() / 1000) * 1000 + 2_000);
  const scheduled = await world.publishTo('Mastodon', {
    publishMode: 'SCHEDULE',
    scheduledAt: formatLocalTime(dueAt.getTime(), 'Europe/London'),
    caption: 'Due while the other channel hangs',
  });
  const pass = engine.runOnce();
  expect(await until(() => telegram.callsOf('sendMessage') === 1, 5_000)).toBe(true);
  expect(mastodon.statuses).toHaveLength(0);

  // The Mastodon post falls due while the Telegram request still hangs.
  rt.clock.set(dueAt.getTime());
  const dueMs = Date.now();
  expect(await until(() => mastodon.statuses.length === 1, 3_000)).toBe(true);
  const lateMs = Date.now() - dueMs;
  expect(lateMs).toBeLessThan(1_500);
  // Recorded once its answer is back (the stand-in has it first).
  await expect.poll(async () => (await scheduled.read()).status, { timeout: 3_000 }).toBe('published');
  await pass;
  expect(telegram.messages).toHaveLength(1);
  process.stderr.write(`a hung platform: the other channel's post went out ${lateMs} ms after its time\n`);
});

it("an account's rate limit holds back that account's sends until its reset; another account's go at once", async () => {
  const { telegram, mastodon, rt } = world;
  const engine = world.scheduler();
  telegram.failNext(1, { kind: 'flood', retryAfter: 30 });
  const first = await world.publishTo('Telegram', { publishMode: 'IMMEDIATE', caption: 'Rate limited' });
  await engine.runOnce();
  expect(telegram.callsOf('sendMessage')).toBe(1);
  expect((await first.read()).deliveries[0]!.reason).toMatch(/Attempt 1 of 12 failed/);

  // Within the account's wait: its new posts wait for the reset, the other account's go now, whichever
  // process runs them (another scheduler on the store, which was not told the 429 itself).
  const other = world.scheduler();
  const telegramPosts = [];
  for (const caption of ['Second', 'Third']) {
    telegramPosts.push(await world.publishTo('Telegram', { publishMode: 'IMMEDIATE', caption }));
    await world.publishTo('Mastodon', { publishMode: 'IMMEDIATE', caption });
  }
  rt.clock.advance(5_000);
  await other.runOnce();
  expect(mastodon.statuses.map((status) => status.text)).toEqual(['Second', 'Third']);
  expect(telegram.callsOf('sendMessage')).toBe(1);
  for (const post of telegramPosts) {
    const [delivery] = (await post.read()).deliveries;
    expect(delivery!.status).toBe('pending');
  }

  // At the reset, the three go, once each.
  rt.clock.advance(26_000);
  await other.runOnce();
  await engine.runOnce();
  expect(telegram.callsOf('sendMessage')).toBe(4);
  expect(telegram.messages.map((message) => message.text).sort()).toEqual([
    'Rate limited',
    'Second',
    'Third',
  ]);
  for (const post of [first, ...telegramPosts]) expect((await post.read()).status).toBe('published');
});

it('an account whose limit headers say nothing is left waits for their reset, without a 429', async () => {
  await world.close();
  world = await openConnectedEngine({ mastodon: { rateLimit: { limit: 2, windowSeconds: 60 } } });
  const { mastodon, telegram, rt } = world;
  const engine = world.scheduler();
  for (const caption of ['One', 'Two']) {
    await world.publishTo('Mastodon', { publishMode: 'IMMEDIATE', caption });
    await engine.runOnce();
  }
  // The second answer said: 0 left until the window's end. The next post waits for it; Telegram's goes.
  const third = await world.publishTo('Mastodon', { publishMode: 'IMMEDIATE', caption: 'Three' });
  await world.publishTo('Telegram', { publishMode: 'IMMEDIATE', caption: 'Elsewhere' });
  rt.clock.advance(1_000);
  await engine.runOnce();
  expect(mastodon.statuses.map((status) => status.text)).toEqual(['One', 'Two']);
  expect(telegram.messages.map((message) => message.text)).toEqual(['Elsewhere']);
  const waiting = (await third.read()).deliveries[0]!;
  expect(waiting.status).toBe('pending');
  expect(waiting.reason).toMatch(/rate limit, which resets at/);

  rt.clock.advance(60_000);
  await engine.runOnce();
  expect(mastodon.statuses.map((status) => status.text)).toEqual(['One', 'Two', 'Three']);
  expect((await third.read()).status).toBe('published');
  expect(mastodon.kit.log.filter((request) => request.status === 429)).toEqual([]);
});
