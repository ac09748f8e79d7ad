/**
 * Sends are bound by the network, not by a few workers: a burst's deliveries wait for their platform's
 * answers side by side, up to SOCIAL_PUBLISHER_SENDS_IN_FLIGHT at once (default 2000), and a platform
 * that hangs holds up only its own channel's sends. Before, one process never had more than 8 sends in
 * flight: 100 brands × 11 channels due at 9:00 went out over 55 s (bench on-time). A real engine on a
 * real store, publishing through the webhook to a loopback receiver that counts what it holds at once.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startPublishingEngine } from '../../src/publish/engine.js';
import { DEFAULT_SENDS_IN_FLIGHT } from '../../src/publish/scheduler.js';
import { SecretBox } from '../../src/store/secret-box.js';
import { makeTempDir, openTestRuntime, type TestRuntime } from '../support/local.js';

/** A platform that answers after `latencyMs`, or after 5 s for a post whose caption says "Please hang". */
async function slowReceiver(latencyMs: number) {
  let inFlight = 0;
  let maxInFlight = 0;
  const answered: Array<{ caption: string; atMs: number }> = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const caption = body;
      setTimeout(
        () => {
          inFlight--;
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ id: `ext-${answered.length}` }));
          answered.push({ caption, atMs: Date.now() });
        },
        caption.includes('Please hang') ? 5_000 : latencyMs,
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    answered,
    get maxInFlight() {
      return maxInFlight;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let rt: TestRuntime;
let receiver: Awaited<ReturnType<typeof slowReceiver>>;

beforeEach(async () => {
  // The engine reads the wall clock's time for due posts: IMMEDIATE posts are due whatever it says.
  rt = await openTestRuntime();
  receiver = await slowReceiver(300);
});

afterEach(async () => {
  await receiver.close();
  await rt.close();
});

async function publishBurst(
  captions: string[],
  options: { sendsInFlight?: number; timeoutMs?: number } = {},
) {
  const { sendsInFlight } = options;
  const engine = await startPublishingEngine({
    store: rt.runtime.store,
    clock: rt.runtime.clock,
    publisher: { kind: 'webhook', url: receiver.url, secret: 'sends-in-flight-secret', deduplicates: false },
    secrets: new SecretBox({ dataDir: makeTempDir('spm-in-flight-') }, () => undefined),
    version: 'test',
    log: () => undefined,
    platformTimeoutMs: options.timeoutMs ?? 10_000,
    ...(sendsInFlight === undefined ? {} : { sendsInFlight }),
  });
  try {
    // "Conversation": six channels each (X, Threads, Mastodon, Bluesky, LinkedIn, Telegram).
    for (const caption of captions) {
      await rt.service.createPost({ brandId: 1, collectionId: 3, publishMode: 'IMMEDIATE', caption });
    }
    engine.scheduler.wake();
    const started = Date.now();
    const expected = captions.length * 6;
    while (receiver.answered.length < expected && Date.now() - started < 20_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const onTime = receiver.answered.filter((answer) => !answer.caption.includes('Please hang'));
    return { onTimeMs: Math.max(...onTime.map((answer) => answer.atMs)) - started, expected };
  } finally {
    await engine.stop();
  }
}

it(`sends a burst's deliveries all at once (default ${DEFAULT_SENDS_IN_FLIGHT} in flight), not 8 at a time`, async () => {
  const captions = Array.from({ length: 10 }, (_, i) => `Burst ${i}`);
  const { expected } = await publishBurst(captions);
  expect(receiver.answered).toHaveLength(expected);
  // 60 deliveries, every one waiting for its answer at the same time.
  expect(receiver.maxInFlight).toBe(expected);
});

it('sends no more at once than SOCIAL_PUBLISHER_SENDS_IN_FLIGHT', async () => {
  const captions = Array.from({ length: 4 }, (_, i) => `Few at a time ${i}`);
  const { expected } = await publishBurst(captions, { sendsInFlight: 5 });
  expect(receiver.answered).toHaveLength(expected);
  expect(receiver.maxInFlight).toBe(5);
});

it("a platform that hangs holds up only its own sends: the others' answers come in one round", async () => {
  // Six sends wait 5 s for their platform; 30 others go to platforms that answer in 300 ms.
  const captions = ['Please hang', ...Array.from({ length: 5 }, (_, i) => `On time ${i}`)];
  const { onTimeMs, expected } = await publishBurst(captions);
  expect(receiver.answered).toHaveLength(expected);
  // One round of answers, with room for a busy machine: with 8 workers, 6 of them held by the slow
  // sends, the 30 others took 15 rounds (4.5 s).
  expect(onTimeMs).toBeLessThan(2_500);
});

it('reads SOCIAL_PUBLISHER_SENDS_IN_FLIGHT: 2000 by default, whole numbers from 1 to 10000', () => {
  const serve = (env: NodeJS.ProcessEnv) =>
    loadConfig(['serve'], { SOCIAL_PUBLISHER_DATA_DIR: '/tmp/x', ...env });
  expect(serve({}).sendsInFlight).toBe(2000);
  expect(serve({ SOCIAL_PUBLISHER_SENDS_IN_FLIGHT: '64' }).sendsInFlight).toBe(64);
  for (const bad of ['0', '10001', '2.5', 'many', '-3']) {
    expect(() => serve({ SOCIAL_PUBLISHER_SENDS_IN_FLIGHT: bad })).toThrow(
      new ConfigError(
        `SOCIAL_PUBLISHER_SENDS_IN_FLIGHT must be a whole number from 1 to 10000, not "${bad}".`,
      ),
    );
  }
});
