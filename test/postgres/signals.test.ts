/**
 * The signals between instances on PostgreSQL (LISTEN/NOTIFY): an instance's announcement wakes the
 * others and not itself; its publishing events reach the others' listeners (MCP logging), not its own;
 * the listening connection comes back after the server drops it, and its listeners are woken then (what
 * was announced meanwhile is lost); and the publishing engine, sleeping its longest sleep, publishes a
 * post another instance planned at once instead of at its next poll.
 */
import { createRequire } from 'node:module';
import pg from 'pg';
import { expect, it } from 'vitest';
import { type PublishingEvent, systemClock } from '../../src/ports.js';
import { startPublishingEngine } from '../../src/publish/engine.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import {
  EVENT_CHANNEL,
  LISTENER_NAME,
  PLAN_CHANNEL,
  type PostgresSignals,
} from '../../src/store/postgres/signals.js';
import { SecretBox } from '../../src/store/secret-box.js';
import { makeTempDir } from '../support/local.js';
import { usePostgres } from './postgres-databases.js';
import { newPost, seedWorkspace } from './store-fixture.js';

const postgres = usePostgres();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<number> {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(5);
  }
  return performance.now() - started;
}

/** A listener of the test's own on `channel`: the payloads of the notifications, as they come. */
async function listenRaw(
  url: string,
  channel: string,
): Promise<{ payloads: string[]; end(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const payloads: string[] = [];
  client.on('notification', (message) => {
    if (message.channel === channel) payloads.push(message.payload ?? '');
  });
  await client.query(`LISTEN ${channel}`);
  return { payloads, end: () => client.end() };
}

it('wakes the other instances, not the one that announced', async () => {
  const url = await postgres.database();
  const [a, b] = [await postgres.open(url), await postgres.open(url)];
  const logged: string[] = [];
  const signalA = a.signals((line) => logged.push(line));
  const signalB = b.signals((line) => logged.push(line));
  try {
    let wokenA = 0;
    let wokenB = 0;
    signalA.listen(() => wokenA++);
    signalB.listen(() => wokenB++);
    await waitFor(() => signalA.listening && signalB.listening);

    await signalB.announce();
    await waitFor(() => wokenA === 1);
    await signalA.announce();
    await signalA.announce();
    await waitFor(() => wokenB === 2);
    await sleep(100);
    expect({ wokenA, wokenB }).toEqual({ wokenA: 1, wokenB: 2 });
    expect(logged).toEqual([]);
  } finally {
    await signalA.close();
    await signalB.close();
  }
});

/** Two instances' signals on one database, where `b` relays and `a` hears; closed after `test`. */
async function withTwoSignals(
  test: (pair: { url: string; signalA: PostgresSignals; signalB: PostgresSignals }) => Promise<void>,
): Promise<void> {
  const url = await postgres.database();
  const [a, b] = [await postgres.open(url), await postgres.open(url)];
  const signalA = a.signals(() => undefined);
  const signalB = b.signals(() => undefined);
  try {
    await test({ url, signalA, signalB });
  } finally {
    await signalA.close();
    await signalB.close();
  }
}

it("passes an instance's publishing events to the others' listeners, not back to its own", () =>
  withTwoSignals(async ({ signalA, signalB }) => {
    const heardA: PublishingEvent[] = [];
    const heardB: PublishingEvent[] = [];
    signalA.hear((event) => heardA.push(event));
    signalB.hear((event) => heardB.push(event));
    await waitFor(() => signalA.listening && signalB.listening);
    const published: PublishingEvent = { level: 'info', message: 'post 7: published', brandId: 1, postId: 7 };
    signalB.relay(published);
    // A reason can be long; a notification cannot: the message is cut.
    signalB.relay({ level: 'error', message: 'x'.repeat(20_000), brandId: 1, postId: 8 });
    await waitFor(() => heardA.length === 2);
    expect(heardA[0]).toEqual(published);
    expect(heardA[1]!.message).toBe(`${'x'.repeat(2_000)}…`);
    await sleep(100);
    expect(heardB).toEqual([]);
  }));

it('relays a burst of events in a few notifications, in order, none over PostgreSQL’s 8000 bytes', () =>
  withTwoSignals(async ({ url, signalA, signalB }) => {
    // A listener of our own counts the notifications themselves.
    const raw = await listenRaw(url, EVENT_CHANNEL);
    try {
      const heard: PublishingEvent[] = [];
      signalA.hear((event) => heard.push(event));
      await waitFor(() => signalA.listening);
      // 200 deliveries' worth of events, ten of them with a long (cut) reason in several scripts.
      const events: PublishingEvent[] = Array.from({ length: 200 }, (_, i) => ({
        level: i % 20 === 0 ? 'error' : 'info',
        message: i % 20 === 0 ? `post ${i}: ${'é☕𝄞'.repeat(1_000)}` : `post ${i}: sent to Mastodon`,
        brandId: 1,
        postId: i,
      }));
      for (const event of events) signalB.relay(event);
      await waitFor(() => heard.length === 200);
      expect(heard.map((event) => event.postId)).toEqual(events.map((event) => event.postId));
      expect(heard[1]).toEqual(events[1]);
      expect(heard[0]!.message).toBe(`${events[0]!.message.slice(0, 2_000)}…`);
      expect(raw.payloads.length).toBeGreaterThan(1);
      expect(raw.payloads.length).toBeLessThanOrEqual(12);
      for (const payload of raw.payloads) expect(Buffer.byteLength(payload)).toBeLessThan(8_000);
    } finally {
      await raw.end();
    }
  }));

it('hears the one-event notifications of an instance that is not upgraded yet', () =>
  withTwoSignals(async ({ url, signalA }) => {
    const heard: PublishingEvent[] = [];
    signalA.hear((event) => heard.push(event));
    await waitFor(() => signalA.listening);
    const event: PublishingEvent = { level: 'info', message: 'post 5: published', brandId: 1, postId: 5 };
    await postgres.query(url, 'SELECT pg_notify($1, $2)', [
      EVENT_CHANNEL,
      JSON.stringify({ from: 'older-instance', event }),
    ]);
    await waitFor(() => heard.length === 1);
    expect(heard).toEqual([event]);
  }));

it('sends the events relayed just before it closes', () =>
  withTwoSignals(async ({ signalA, signalB }) => {
    const heard: PublishingEvent[] = [];
    signalA.hear((event) => heard.push(event));
    await waitFor(() => signalA.listening);
    signalB.relay({ level: 'info', message: 'post 9: published', brandId: 1, postId: 9 });
    await signalB.close();
    await waitFor(() => heard.length === 1);
  }));

it('listens again after the server drops the connection, and wakes its listeners then', async () => {
  const url = await postgres.database();
  const [a, b] = [await postgres.open(url), await postgres.open(url)];
  const logged: string[] = [];
  const signalA = a.signals((line) => logged.push(line));
  const signalB = b.signals(() => undefined);
  try {
    let woken = 0;
    signalA.listen(() => woken++);
    await waitFor(() => signalA.listening);

    const ended = await postgres.query<{ ended: boolean }>(
      url,
      'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1',
      [LISTENER_NAME],
    );
    expect(ended).toEqual([{ ended: true }]);
    // Down, then back: its listeners are woken once, for whatever was announced while it was down.
    await waitFor(() => woken === 1);
    expect(signalA.listening).toBe(true);
    expect(logged).toEqual([
      expect.stringContaining("the connection listening for the other instances' notifications is down"),
      expect.stringMatching(/^listening for the other instances' notifications again, after \d+ s$/),
    ]);
    await signalB.announce();
    await waitFor(() => woken === 2);
  } finally {
    await signalA.close();
    await signalB.close();
  }
});

/** The publishing engine of an instance on `store`, sending to the sandbox, woken by `signal`. */
function sandboxEngine(store: PostgresStore, signal: PostgresSignals) {
  return startPublishingEngine({
    store,
    clock: systemClock,
    publisher: { kind: 'sandbox' },
    secrets: new SecretBox({ dataDir: makeTempDir('spm-signal-') }, () => undefined),
    version: 'test',
    log: () => undefined,
    planSignal: signal,
  });
}

it("publishes a post another instance planned at once, not at the engine's next poll", async () => {
  const url = await postgres.database();
  const [a, b] = [await postgres.open(url, { poolSize: 4 }), await postgres.open(url, { poolSize: 4 })];
  const ws = await seedWorkspace(b);
  const signalA = a.signals(() => undefined);
  const signalB = b.signals(() => undefined);
  const engine = await sandboxEngine(a, signalA);
  try {
    // The engine's first tick finds nothing, then it sleeps its longest sleep (30 s).
    await waitFor(() => signalA.listening);
    await sleep(300);
    const postId = await b.posts.insert(
      newPost(ws, { payload: { publishMode: 'SCHEDULE', caption: 'Now' }, dueAtMs: Date.now() }),
    );
    const started = performance.now();
    await signalB.announce();
    await waitFor(async () => (await a.posts.get(postId))?.status === 'published');
    const wokenMs = performance.now() - started;
    process.stderr.write(`plan signal: published ${Math.round(wokenMs)} ms after the announcement\n`);
    expect(wokenMs).toBeLessThan(2_000);
  } finally {
    await engine.stop();
    await signalA.close();
    await signalB.close();
  }
});

it('announces the deliveries its engine created by starting due posts, for the other instances to send', async () => {
  const url = await postgres.database();
  const a = await postgres.open(url, { poolSize: 4 });
  const ws = await seedWorkspace(a);
  const signalA = a.signals(() => undefined);
  const raw = await listenRaw(url, PLAN_CHANNEL);
  const announced = raw.payloads;
  // One announcement when the engine starts the post (its three deliveries pending), none before.
  const engine = await sandboxEngine(a, signalA);
  try {
    await waitFor(() => signalA.listening);
    await sleep(200);
    expect(announced).toEqual([]);
    const postId = await a.posts.insert(
      newPost(ws, { payload: { publishMode: 'SCHEDULE', caption: 'Now' }, dueAtMs: Date.now() }),
    );
    engine.scheduler.wake();
    await waitFor(async () => (await a.posts.get(postId))?.status === 'published');
    expect(announced).toEqual([signalA.instanceId]);
  } finally {
    await engine.stop();
    await raw.end();
    await signalA.close();
  }
});

it('listens for relayed events only while it has hearers (a REST-only instance is not woken by them)', () =>
  withTwoSignals(async ({ signalA, signalB }) => {
    // Every notification on the event channel that reaches a connection of this process: only A's
    // listener can get one (B listens for nothing, so it has no listening connection). Watched at the
    // project's own node-postgres, which the store uses (test/postgres has another copy).
    const projectPg = createRequire(new URL('../../package.json', import.meta.url))('pg') as typeof pg;
    const proto = projectPg.Client.prototype as unknown as {
      emit: (name: string, ...args: unknown[]) => boolean;
    };
    const original = proto.emit;
    let eventNotifications = 0;
    proto.emit = function (this: unknown, name: string, ...args: unknown[]) {
      if (name === 'notification' && (args[0] as { channel?: string }).channel === EVENT_CHANNEL) {
        eventNotifications++;
      }
      return original.call(this, name, ...args);
    };
    try {
      let woken = 0;
      signalA.listen(() => woken++);
      await waitFor(() => signalA.listening);
      expect(signalA.hearing).toBe(false);
      /** B relays; then, once its batch has gone, announces: A hears the announcement after the batch. */
      const relayThenFence = async (postId: number) => {
        signalB.relay({ level: 'info', message: `post ${postId}: published`, brandId: 1, postId });
        await sleep(100);
        const before = woken;
        await signalB.announce();
        await waitFor(() => woken > before);
      };
      await relayThenFence(1);
      expect(eventNotifications).toBe(0);
      // A session comes: A listens, and hears what B relays from then on.
      const heard: PublishingEvent[] = [];
      const unhear = signalA.hear((event) => heard.push(event));
      await waitFor(() => signalA.hearing);
      await relayThenFence(2);
      await waitFor(() => heard.length === 1);
      expect(heard[0]!.postId).toBe(2);
      const whileHearing = eventNotifications;
      expect(whileHearing).toBeGreaterThan(0);
      // The last session leaves: no more notifications reach A, and it still wakes on plan changes.
      unhear();
      await waitFor(() => !signalA.hearing);
      await relayThenFence(3);
      expect(eventNotifications).toBe(whileHearing);
      expect(heard).toHaveLength(1);
    } finally {
      proto.emit = original;
    }
  }));
