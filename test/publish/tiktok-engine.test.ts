/**
 * TikTok through the engine, against the TikTok stand-in whose posts process for two minutes by the
 * engine's clock: an uploaded video goes up in its chunk, the processing holds no send slot, and a
 * process that dies while it reads the publish status (its request never answered, its lease left to
 * run out) leaves the post to another process, which finishes it: published once, uploaded once.
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
import { jpegBytes } from '../contract/media-files.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { writeMp4 } from '../support/tiktok-media.js';
import { startTikTokServer, TIKTOK_OPEN_ID, type TikTokServer } from '../support/tiktok-server.js';

const PROCESSING_MS = 2 * 60_000;
const STATUS = '/v2/post/publish/status/fetch/';

let rt: TestRuntime;
let tiktok: TikTokServer;
let secret: string;

beforeEach(async () => {
  rt = await openTestRuntime({ demo: false, now: Date.now() });
  tiktok = await startTikTokServer({ now: () => rt.clock.now(), processingMs: PROCESSING_MS });
  secret = tokensSecret(tiktok.userTokens());
  await rt.importWorkspace({
    brands: [
      {
        title: 'Acme',
        timezone: 'Europe/London',
        channels: [
          {
            name: 'Acme on TikTok',
            type: 'TikTok',
            connection: {
              connector: 'tiktok',
              account: '@acme.roasters',
              accountId: TIKTOK_OPEN_ID,
              instance: tiktok.url,
              secretEnv: 'ACME_TIKTOK',
            },
          },
        ],
        collections: [{ title: 'TikTok', channels: ['Acme on TikTok'] }],
      },
    ],
    users: [{ name: 'Ada', timezone: 'Europe/London', apiKey: 'ada-key-0123456789', brands: ['Acme'] }],
  });
});

afterEach(async () => {
  await rt.close();
  await tiktok.close();
});

/** A process of the engine on the shared store; `timeoutMs` its connectors' deadline of one request. */
function scheduler(timeoutMs = 2_000) {
  const { store, secrets } = rt.runtime;
  const fallback = new SandboxPublisher(store.sandbox, rt.clock);
  const connectors = new ChannelConnectors({
    store,
    secrets,
    fallback,
    readEnv: (name) => (name === 'ACME_TIKTOK' ? secret : undefined),
    context: {
      loadMedia: mediaLoader(store, undefined, undefined),
      clock: rt.clock,
      log: () => undefined,
      timeoutMs,
      userAgent: 'test',
    },
  });
  return new Scheduler({ store, clock: rt.clock, publisher: fallback, connectors, concurrency: 1 });
}

async function postVideo() {
  const { store } = rt.runtime;
  const brandId = (await store.findBrandIdByTitle('Acme'))!;
  const user = (await store.onlyUser())!;
  const path = join(rt.dataDir, 'roast.mp4');
  writeMp4(path, 20, 300_000);
  const uploader = new LocalPublishingService({ ...rt.runtime, allowLocalPaths: true }, user);
  const mediaId = (await uploader.uploadMedia({ brandId, path })).id;
  const collections = await store.listCollections(brandId, { limit: 10, offset: 0 });
  const service = new LocalPublishingService(rt.runtime, user);
  const { id } = await service.createPost({
    brandId,
    collectionId: collections[0]!.id,
    publishMode: 'IMMEDIATE',
    caption: 'The new roast, ground fresh',
    media: [{ id: mediaId }],
  });
  return { read: () => service.getPost({ brandId, postId: id! }) };
}

it('a process killed while TikTok processes: another one finishes it, and the post is published once', async () => {
  const first = scheduler(60_000);
  const post = await postVideo();
  await first.runOnce();
  const waiting = (await post.read()).deliveries[0]!;
  expect(waiting.status).toBe('sending');
  expect(waiting.reason).toMatch(/processing/i);
  expect(tiktok.kit.requestsTo('/upload/', 'PUT')).toHaveLength(1);
  expect(tiktok.published()).toEqual([]);

  // The first process asks for the status once processing is over, and dies before the answer.
  tiktok.kit.hang('forever', { route: STATUS });
  rt.clock.advance(PROCESSING_MS + 1_000);
  const dying = first.runOnce();
  await expect.poll(() => tiktok.kit.requestsTo(STATUS).filter((r) => r.answeredAt === null).length).toBe(1);

  // Its claim runs out (no process renews it), and another process takes the check over.
  const second = scheduler();
  for (let i = 0; i < 20 && (await post.read()).status !== 'published'; i++) {
    rt.clock.advance(30_000);
    await second.runOnce();
  }
  const published = await post.read();
  expect(published.status).toBe('published');
  const [id] = tiktok.published();
  expect(published.deliveries[0]).toMatchObject({
    status: 'sent',
    externalId: id,
    url: `https://www.tiktok.com/@acme.roasters/video/${id}`,
  });
  expect(tiktok.kit.requestsTo('/v2/post/publish/video/init/', 'POST')).toHaveLength(1);
  expect(tiktok.kit.requestsTo('/upload/', 'PUT')).toHaveLength(1);
  expect(tiktok.publishes.size).toBe(1);

  // The dead process's request ends with the platform; it records nothing over the other's outcome.
  await tiktok.close();
  await dying;
  expect((await post.read()).deliveries[0]).toMatchObject({ status: 'sent', externalId: id });
});

it('pre-flight tells what is TikTok’s own: the skipped comment, the privacy level, an uploaded photo without a public address, a photo title over 90', async () => {
  const { store } = rt.runtime;
  const brandId = (await store.findBrandIdByTitle('Acme'))!;
  const user = (await store.onlyUser())!;
  const path = join(rt.dataDir, 'cup.jpg');
  writeFileSync(path, jpegBytes());
  const uploader = new LocalPublishingService({ ...rt.runtime, allowLocalPaths: true }, user);
  const photo = (await uploader.uploadMedia({ brandId, path })).id;
  const collections = await store.listCollections(brandId, { limit: 10, offset: 0 });
  const service = new LocalPublishingService(rt.runtime, user);
  const created = await service.createPost({
    brandId,
    collectionId: collections[0]!.id,
    publishMode: 'IMMEDIATE',
    title: '☕'.repeat(46),
    caption: 'A cup',
    media: [{ id: photo }],
    comment: { comment: 'First!', delay: 5 },
  });
  const messages = (created.warnings ?? []).map((warning) => `${warning.outcome}: ${warning.message}`);
  expect(messages).toEqual([
    'change: TikTok has no comments: the auto-comment is not posted there.',
    expect.stringMatching(
      /^fail: TikTok pulls photos from a public address.*SOCIAL_PUBLISHER_PUBLIC_URL.*verified/,
    ),
    expect.stringMatching(
      /^change: TikTok posts it visible to the creator only.*not audited may post a few times a day/,
    ),
  ]);
});
