/**
 * Facebook through the engine, counted at the Graph API stand-in: a Page's video that Meta processes
 * holds no send slot and is finished by whichever process checks it once Meta is done (one upload,
 * published once); and a Page whose business-use-case usage is spent waits for the minutes Meta names,
 * in every process, while another channel's posts go on.
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
import { type FacebookServer, startFacebookServer } from '../support/facebook-server.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { CHANNEL, startTelegramServer, type TelegramServer } from '../support/telegram-server.js';

const PROCESSING_MS = 3 * 60_000;
let rt: TestRuntime;
let facebook: FacebookServer;
let telegram: TelegramServer;

beforeEach(async () => {
  rt = await openTestRuntime({ demo: false, now: Date.now() });
  facebook = await startFacebookServer({ now: () => rt.clock.now(), videoProcessingMs: PROCESSING_MS });
  telegram = await startTelegramServer();
  await rt.importWorkspace({
    brands: [
      {
        title: 'Acme',
        timezone: 'Europe/London',
        channels: [
          {
            name: 'Acme on Facebook',
            type: 'Facebook',
            connection: {
              connector: 'facebook',
              account: facebook.main.name,
              accountId: facebook.main.id,
              instance: facebook.url,
              secretEnv: 'ACME_FACEBOOK',
            },
          },
          {
            name: 'Acme on Telegram',
            type: 'Telegram',
            connection: {
              connector: 'telegram',
              account: `@${CHANNEL.username}`,
              instance: telegram.url,
              secretEnv: 'ACME_TELEGRAM',
            },
          },
        ],
        collections: [
          { title: 'Facebook', channels: ['Acme on Facebook'] },
          { title: 'Telegram', channels: ['Acme on Telegram'] },
        ],
      },
    ],
    users: [{ name: 'Ada', timezone: 'Europe/London', apiKey: 'ada-key-0123456789', brands: ['Acme'] }],
  });
});

afterEach(async () => {
  await rt.close();
  await facebook.close();
  await telegram.close();
});

function scheduler(inFlight?: number): Scheduler {
  const { store, secrets } = rt.runtime;
  const env: Record<string, string> = {
    ACME_FACEBOOK: tokensSecret({ accessToken: facebook.main.token }),
    ACME_TELEGRAM: telegram.token,
  };
  const fallback = new SandboxPublisher(store.sandbox, rt.clock);
  const connectors = new ChannelConnectors({
    store,
    secrets,
    fallback,
    readEnv: (name) => env[name],
    context: {
      loadMedia: mediaLoader(store, undefined, undefined),
      clock: rt.clock,
      log: () => undefined,
      timeoutMs: 2_000,
      userAgent: 'test',
    },
  });
  return new Scheduler({ store, clock: rt.clock, publisher: fallback, connectors, concurrency: inFlight });
}

async function service() {
  return new LocalPublishingService(
    { ...rt.runtime, allowLocalPaths: true },
    (await rt.runtime.store.onlyUser())!,
  );
}

async function publishTo(platform: 'Facebook' | 'Telegram', payload: Record<string, unknown>) {
  const { store } = rt.runtime;
  const brandId = (await store.findBrandIdByTitle('Acme'))!;
  const collections = await store.listCollections(brandId, { limit: 10, offset: 0 });
  const collectionId = collections.find((c) => c.title === platform)!.id;
  const posts = await service();
  const { id } = await posts.createPost({ brandId, collectionId, ...payload });
  return { read: () => posts.getPost({ brandId, postId: id! }) };
}

it('a video Meta processes holds no slot and is finished by whichever process checks it, once', async () => {
  const brandId = (await rt.runtime.store.findBrandIdByTitle('Acme'))!;
  const path = join(rt.dataDir, 'clip.mp4');
  writeFileSync(
    path,
    Uint8Array.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6d, 0x70, 0x34, 0x32, 0, 0, 0, 0]),
  );
  const mediaId = (await (await service()).uploadMedia({ brandId, path })).id;
  const engine = scheduler(1);
  const other = scheduler(1);
  const video = await publishTo('Facebook', {
    publishMode: 'IMMEDIATE',
    caption: 'On video',
    media: [{ id: mediaId }],
  });
  const text = await publishTo('Telegram', { publishMode: 'IMMEDIATE', caption: 'Meanwhile' });
  await engine.runOnce();
  expect(facebook.kit.requestsTo('/:version/:page/videos')).toHaveLength(1);
  expect(telegram.messages.map((message) => message.text)).toEqual(['Meanwhile']);
  expect((await text.read()).status).toBe('published');
  const waiting = (await video.read()).deliveries[0]!;
  expect(waiting.status).toBe('sending');
  expect(waiting.reason).toMatch(/processing/i);

  const startedMs = rt.clock.now();
  let turn = 0;
  while (
    rt.clock.now() < startedMs + PROCESSING_MS + 120_000 &&
    (await video.read()).status !== 'published'
  ) {
    rt.clock.advance(15_000);
    await (turn++ % 2 === 0 ? other : engine).runOnce();
  }
  const published = await video.read();
  expect(published.status).toBe('published');
  const id = [...facebook.videos.keys()][0]!;
  expect(published.deliveries[0]!.externalId).toBe(id);
  expect(facebook.kit.requestsTo('/:version/:page/videos')).toHaveLength(1);
  expect(facebook.posts.filter((post) => post.kind === 'video')).toHaveLength(1);
});

it('a Page whose usage is spent waits for the minutes Meta names, in every process; Telegram goes on', async () => {
  const engine = scheduler();
  facebook.kit.rateLimits.set(facebook.main.id, { remaining: 0, resetAtMs: rt.clock.now() + 4 * 60_000 });
  const first = await publishTo('Facebook', { publishMode: 'IMMEDIATE', caption: 'Limited' });
  await engine.runOnce();
  const refused = facebook.kit.log.filter((request) => request.status === 400);
  expect(refused).toHaveLength(1);
  expect((await first.read()).deliveries[0]!.status).toBe('pending');

  const other = scheduler();
  const second = await publishTo('Facebook', { publishMode: 'IMMEDIATE', caption: 'Second' });
  await publishTo('Telegram', { publishMode: 'IMMEDIATE', caption: 'Elsewhere' });
  rt.clock.advance(60_000);
  await other.runOnce();
  expect(telegram.messages.map((message) => message.text)).toEqual(['Elsewhere']);
  expect(facebook.kit.requestsTo('/:version/:page/feed')).toHaveLength(1);
  expect((await second.read()).deliveries[0]!.status).toBe('pending');

  rt.clock.advance(4 * 60_000);
  await other.runOnce();
  await engine.runOnce();
  expect(facebook.posts.map((post) => post.message).sort()).toEqual(['Limited', 'Second']);
  for (const post of [first, second]) expect((await post.read()).status).toBe('published');
});
