/**
 * An X channel through the engine (a real store, Scheduler and ChannelConnectors, the engine's fake
 * clock shared with the X stand-in), for what X's lack of an idempotency key and its video processing
 * mean there:
 * - a video X processes for a minute holds nothing meanwhile; the post is sent once, when it is ready;
 * - a post whose answer was lost is read back (confirm), found and recorded, never sent again;
 * - a post whose request got no answer and was never made is found absent and sent, once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ChannelConnectors } from '../../src/publish/channel-connectors.js';
import { tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import { mediaLoader } from '../../src/publish/media-loader.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { startXServer, X_USER_ID, type XServer } from '../support/x-server.js';

const PROCESSING_MS = 60_000;
const MP4 = Uint8Array.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6d, 0x70, 0x34, 0x32, 0, 0, 0, 0]);
let rt: TestRuntime;
let server: XServer;
let service: LocalPublishingService;
let brandId: number;
const schedulers: ChannelConnectors[] = [];

beforeEach(async () => {
  rt = await openTestRuntime({ demo: false, now: Date.now() });
  server = await startXServer({ now: () => rt.clock.now(), videoProcessingMs: PROCESSING_MS });
  await rt.importWorkspace({
    brands: [
      {
        title: 'Acme',
        timezone: 'Europe/London',
        channels: [
          {
            name: 'Acme on X',
            type: 'X/Twitter',
            connection: {
              connector: 'x',
              account: '@acme',
              accountId: X_USER_ID,
              instance: server.url,
              secretEnv: 'ACME_X',
            },
          },
        ],
        collections: [{ title: 'X', channels: ['Acme on X'] }],
      },
    ],
    users: [{ name: 'Ada', timezone: 'Europe/London', apiKey: 'ada-key-0123456789', brands: ['Acme'] }],
  });
  const { store } = rt.runtime;
  brandId = (await store.findBrandIdByTitle('Acme'))!;
  service = new LocalPublishingService({ ...rt.runtime, allowLocalPaths: true }, (await store.onlyUser())!);
});

afterEach(async () => {
  await Promise.all(schedulers.splice(0).map((connectors) => connectors.close()));
  await server.close();
  await rt.close();
});

function scheduler(timeoutMs = 500): Scheduler {
  const { store, secrets } = rt.runtime;
  const secret = tokensSecret(server.tokens());
  const fallback = new SandboxPublisher(store.sandbox, rt.clock);
  const connectors = new ChannelConnectors({
    store,
    secrets,
    fallback,
    readEnv: (name) => (name === 'ACME_X' ? secret : undefined),
    context: {
      loadMedia: mediaLoader(store, undefined, undefined),
      clock: rt.clock,
      log: () => undefined,
      timeoutMs,
      userAgent: 'test',
    },
  });
  schedulers.push(connectors);
  return new Scheduler({ store, clock: rt.clock, publisher: fallback, connectors });
}

async function publish(payload: Record<string, unknown>) {
  const collections = await rt.runtime.store.listCollections(brandId, { limit: 10, offset: 0 });
  const { id } = await service.createPost({ brandId, collectionId: collections[0]!.id, ...payload });
  return () => service.getPost({ brandId, postId: id! });
}

const creates = () => server.kit.requestsTo('/2/tweets', 'POST');

it('a video X processes holds nothing; the post goes once, when X is done', async () => {
  const engine = scheduler();
  const path = join(rt.dataDir, 'clip.mp4');
  writeFileSync(path, MP4);
  const { id: mediaId } = await service.uploadMedia({ brandId, path });
  const read = await publish({ publishMode: 'IMMEDIATE', caption: 'On video', media: [{ id: mediaId }] });
  await engine.runOnce();
  const waiting = (await read()).deliveries[0]!;
  expect(waiting.status).toBe('sending');
  expect(waiting.reason).toBe('X is processing a video of the post.');
  const startedMs = rt.clock.now();
  while (rt.clock.now() < startedMs + PROCESSING_MS + 60_000 && server.posts.length === 0) {
    rt.clock.advance(10_000);
    await engine.runOnce();
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
  const engine = scheduler(300);
  const read = await publish({ publishMode: 'IMMEDIATE', caption: 'Lost on the way back' });
  server.kit.hangAfterCreating({ route: '/2/tweets' });
  await engine.runOnce();
  expect((await read()).deliveries[0]!.reason).toMatch(
    /Reading the platform to see whether it was published/,
  );
  rt.clock.advance(5_000);
  await engine.runOnce();
  expect(server.kit.requestsTo('/2/users/:id/tweets')).toHaveLength(1);
  const published = await read();
  expect(published.status).toBe('published');
  expect(published.deliveries[0]!.externalId).toBe(server.posts[0]!.id);
  expect(creates()).toHaveLength(1);
});

it('a post whose request went unanswered and was never made is found absent, then sent once', async () => {
  const engine = scheduler(300);
  const read = await publish({ publishMode: 'IMMEDIATE', caption: 'Never arrived' });
  server.kit.hang('forever', { route: '/2/tweets' });
  await engine.runOnce();
  expect(server.posts).toHaveLength(0);
  for (let i = 0; i < 3 && (await read()).status !== 'published'; i++) {
    rt.clock.advance(5_000);
    await engine.runOnce();
  }
  expect((await read()).status).toBe('published');
  expect(server.posts).toHaveLength(1);
  expect(creates()).toHaveLength(2);
});
