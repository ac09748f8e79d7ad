/**
 * An X channel through the engine (a real store, Scheduler and ChannelConnectors, the engine's fake
 * clock shared with the X stand-in), for what X's lack of an idempotency key and its video processing
 * mean there:
 * - a video X processes for a minute holds nothing meanwhile; the post is sent once, when it is ready;
 * - a post whose answer was lost is read back (confirm), found and recorded, never sent again;
 * - a post whose request got no answer and was never made is found absent and sent, once.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import type { TestRuntime } from '../support/local.js';
import { openEngineRuntime, openOAuthEngine } from '../support/oauth-engine.js';
import { startXServer, X_USER_ID, type XServer } from '../support/x-server.js';

const PROCESSING_MS = 60_000;
const MP4 = Uint8Array.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6d, 0x70, 0x34, 0x32, 0, 0, 0, 0]);
let rt: TestRuntime;
let server: XServer;
let engine: Awaited<ReturnType<typeof openOAuthEngine>>;

beforeEach(async () => {
  rt = await openEngineRuntime();
  server = await startXServer({ now: () => rt.clock.now(), videoProcessingMs: PROCESSING_MS });
  engine = await openOAuthEngine(
    rt,
    {
      name: 'Acme on X',
      type: 'X/Twitter',
      connector: 'x',
      account: '@acme',
      accountId: X_USER_ID,
      instance: server.url,
    },
    () => tokensSecret(server.tokens()),
  );
});

afterEach(async () => {
  await engine.close();
  await server.close();
  await rt.close();
});

const scheduler = (timeoutMs = 500) => engine.scheduler({ timeoutMs });
const publish = (payload: Record<string, unknown>) => engine.publish(payload);

const creates = () => server.kit.requestsTo('/2/tweets', 'POST');

it('a video X processes holds nothing; the post goes once, when X is done', async () => {
  const sender = scheduler();
  const mediaId = await engine.upload('clip.mp4', MP4);
  const read = await publish({ publishMode: 'IMMEDIATE', caption: 'On video', media: [{ id: mediaId }] });
  await sender.runOnce();
  const waiting = (await read()).deliveries[0]!;
  expect(waiting.status).toBe('sending');
  expect(waiting.reason).toBe('X is processing a video of the post.');
  const startedMs = rt.clock.now();
  while (rt.clock.now() < startedMs + PROCESSING_MS + 60_000 && server.posts.length === 0) {
    rt.clock.advance(10_000);
    await sender.runOnce();
    if (rt.clock.now() < startedMs + PROCESSING_MS) expect(creates()).toHaveLength(0);
  }
  expect(creates()).toHaveLength(1);
  expect(server.kit.requestsTo('/2/media/upload/initialize')).toHaveLength(1);
  const published = await read();
  expect(published.status).toBe('published');
  expect(published.deliveries[0]).toMatchObject({
    externalId: server.posts[0]!.id,
    url: `https://x.com/acme/status/${server.posts[0]!.id}`,
  });
  // Asked when X said to, not every pass.
  expect(server.kit.requestsTo('/2/media/upload', 'GET').length).toBeLessThan(10);
});

it('a post whose answer was lost is read back and recorded, never sent again', async () => {
  const sender = scheduler(300);
  const read = await publish({ publishMode: 'IMMEDIATE', caption: 'Lost on the way back' });
  server.kit.hangAfterCreating({ route: '/2/tweets' });
  await sender.runOnce();
  expect((await read()).deliveries[0]!.reason).toMatch(
    /Reading the platform to see whether it was published/,
  );
  rt.clock.advance(5_000);
  await sender.runOnce();
  expect(server.kit.requestsTo('/2/users/:id/tweets')).toHaveLength(1);
  const published = await read();
  expect(published.status).toBe('published');
  expect(published.deliveries[0]!.externalId).toBe(server.posts[0]!.id);
  expect(creates()).toHaveLength(1);
});

it('a post whose request went unanswered and was never made is found absent, then sent once', async () => {
  const sender = scheduler(300);
  const read = await publish({ publishMode: 'IMMEDIATE', caption: 'Never arrived' });
  server.kit.hang('forever', { route: '/2/tweets' });
  await sender.runOnce();
  expect(server.posts).toHaveLength(0);
  for (let i = 0; i < 3 && (await read()).status !== 'published'; i++) {
    rt.clock.advance(5_000);
    await sender.runOnce();
  }
  expect((await read()).status).toBe('published');
  expect(server.posts).toHaveLength(1);
  expect(creates()).toHaveLength(2);
});
