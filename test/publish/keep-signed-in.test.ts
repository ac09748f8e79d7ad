/**
 * A Threads channel that posts nothing stays signed in: Meta's 60-day token dies unrenewed, so the
 * engine renews one with 30 days or less left on its own, every few hours at most, against the Threads
 * stand-in (which refreshes only an unexpired token at least 24 hours old, as Meta documents). One
 * renewal across two processes on the store; none for a younger token; one refused is tried again at
 * the next look, and the channel keeps the token it had.
 */
import { afterEach, expect, it } from 'vitest';
import { tokensOf, tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import { verifyThreads } from '../../src/publish/connectors/threads/threads-account.js';
import { KEEP_SIGNED_IN_EVERY_MS } from '../../src/publish/keep-signed-in.js';
import type { TestRuntime } from '../support/local.js';
import { openEngineRuntime, openOAuthEngine, saveConnection } from '../support/oauth-engine.js';
import { startThreadsServer, type ThreadsServer, threadsChannel } from '../support/threads-server.js';

const DAY_MS = 86_400_000;

let rt: TestRuntime;
let threads: ThreadsServer;

afterEach(async () => {
  await rt.close();
  await threads.close();
});

/** An engine over a Threads channel whose token is `ageDays` old and has `leftDays` left. */
async function setUp(ageDays: number, leftDays: number) {
  rt = await openEngineRuntime();
  threads = await startThreadsServer({ now: () => rt.clock.now() });
  const token = threads.userToken(ageDays * DAY_MS);
  const tokens = { accessToken: token, refreshToken: token, expiresAtMs: rt.clock.now() + leftDays * DAY_MS };
  const engine = await openOAuthEngine(rt, threadsChannel(threads.url), tokensSecret(tokens));
  const { store, secrets } = rt.runtime;
  const [channel] = await store.listChannels(engine.brandId, { limit: 10, offset: 0 });
  // Stored as `connect` stores it: sealed, with the token endpoint's origin (the stand-in's).
  const verified = await verifyThreads({
    endpoint: threads.url,
    secret: tokensSecret(tokens),
    tokens,
    userAgent: 'test',
    timeoutMs: 2_000,
  });
  await saveConnection(rt, channel!.id, verified, { authRoot: threads.url });
  /** The tokens the channel sends with now. */
  const current = async () => {
    const connection = await store.connections.find(channel!.id);
    return tokensOf(secrets.open(connection!.sealedSecret!, channel!.id));
  };
  const renewals = () => threads.kit.requestsTo('/refresh_access_token').length;
  const logged: string[] = [];

  /** A process on the store, with the operator's Threads app. */
  const process = () =>
    engine.scheduler({ timeoutMs: 2_000, app: threads.app, log: (line) => logged.push(line) });
  return { engine, token, current, renewals, process, logged };
}

it('renews a token with 29 days left without any post, once across two processes, then leaves it', async () => {
  const { engine, token, current, renewals, process, logged } = await setUp(31, 29);
  const one = process();
  const two = process(); // another process on the same store
  await one.runOnce();
  await two.runOnce();
  expect(renewals()).toBe(1);
  const renewed = await current();
  expect(renewed.accessToken).not.toBe(token);
  expect(renewed.expiresAtMs).toBeGreaterThan(rt.clock.now() + 59 * DAY_MS);
  // The next looks find 60 days left: nothing to do.
  rt.clock.advance(KEEP_SIGNED_IN_EVERY_MS + 1);
  await one.runOnce();
  await two.runOnce();
  expect(renewals()).toBe(1);
  expect(threads.posts).toEqual([]);
  expect(logged).toEqual([]);
  await engine.close();
});

it('leaves a token with more than 30 days left, and renews it once 30 are left, at the next look', async () => {
  const { engine, token, current, renewals, process } = await setUp(2, 35);
  const one = process();
  await one.runOnce();
  expect(renewals()).toBe(0);
  // Five days on, the process looked within the last six hours: it waits for its next look.
  rt.clock.advance(5 * DAY_MS + 1);
  await one.runOnce();
  expect(renewals()).toBe(1);
  expect((await current()).accessToken).not.toBe(token);
  await engine.close();
});

it('keeps the token it had when Meta refuses the renewal, and tries again at the next look', async () => {
  const { engine, token, current, renewals, process, logged } = await setUp(31, 29);
  const one = process();
  threads.kit.failNext(400, 'Refresh refused', { route: '/refresh_access_token' });
  await one.runOnce();
  expect(renewals()).toBe(1);
  expect((await current()).accessToken).toBe(token);
  expect(logged).toEqual([
    expect.stringMatching(/^Could not renew the sign-in of channel 1 ahead of its expiry: /),
  ]);
  // Within six hours: not tried again.
  rt.clock.advance(KEEP_SIGNED_IN_EVERY_MS - 60_000);
  await one.runOnce();
  expect(renewals()).toBe(1);
  rt.clock.advance(60_001);
  await one.runOnce();
  expect(renewals()).toBe(2);
  expect((await current()).accessToken).not.toBe(token);
  await engine.close();
});
