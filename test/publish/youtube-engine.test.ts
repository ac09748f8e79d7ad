/**
 * YouTube through the engine's own pieces (the store, ChannelConnectors opening the connector from the
 * sealed secret, refreshSecret, two schedulers as two processes on one store), against the YouTube
 * stand-in on the engine's clock:
 *
 * - a process that stalls mid-upload (the stand-in kept part of the video and never answers) loses its
 *   claim when its lease ends; the other process asks the session what it has and goes on from the byte
 *   after it, never opening a second session; the video processes (pending, no slot held) and is
 *   published once;
 * - a Google sign-in whose refresh token expired (a consent screen in Testing: 7 days) fails the
 *   delivery with a reason that says so and turns the channel INACTIVE.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ChannelConnectors } from '../../src/publish/channel-connectors.js';
import { verifyYouTube } from '../../src/publish/connectors/youtube/youtube-account.js';
import { mediaLoader } from '../../src/publish/media-loader.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { TESTING_REFRESH_MS } from '../support/google-sign-in.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { saveConnection } from '../support/oauth-engine.js';
import { startYouTubeServer, type YouTubeServer } from '../support/youtube-server.js';
import { SESSION_ROUTE } from '../support/youtube-uploads.js';

const MP4_HEAD = Buffer.from('000000186674797069736f6d0000020069736f6d6d703432', 'hex');
const SIZE = 3 * 1024 * 1024 + 777;
const PROCESSING_MS = 60_000;

let rt: TestRuntime;
let youtube: YouTubeServer;
let channelId: number;
const opened: ChannelConnectors[] = [];

beforeEach(async () => {
  rt = await openTestRuntime({ demo: false, now: Date.now() });
  youtube = await startYouTubeServer({ now: () => rt.clock.now(), videoProcessingMs: PROCESSING_MS });
  await rt.importWorkspace({
    brands: [
      {
        title: 'Acme',
        timezone: 'Europe/London',
        channels: [{ name: 'Acme on YouTube', type: 'YouTube' }],
        collections: [{ title: 'Videos', channels: ['Acme on YouTube'] }],
      },
    ],
    users: [{ name: 'Ada', timezone: 'Europe/London', apiKey: 'ada-key-0123456789', brands: ['Acme'] }],
  });
  const { store } = rt.runtime;
  channelId = (
    await store.listChannels((await store.findBrandIdByTitle('Acme'))!, { limit: 1, offset: 0 })
  )[0]!.id;
  const verified = await verifyYouTube({
    endpoint: youtube.url,
    secret: '',
    tokens: youtube.tokens(),
    userAgent: 'test',
    timeoutMs: 5_000,
  });
  await saveConnection(rt, channelId, verified, { authRoot: youtube.url });
});

afterEach(async () => {
  await youtube.close();
  for (const connectors of opened.splice(0)) await connectors.close();
  await rt.close();
});

/** A process's scheduler: its own connectors (with the GOOGLE app), the engine's clock. */
function scheduler(timeoutMs: number) {
  const { store, secrets } = rt.runtime;
  const fallback = new SandboxPublisher(store.sandbox, rt.clock);
  const connectors = new ChannelConnectors({
    store,
    secrets,
    fallback,
    readEnv: () => undefined,
    oauthApps: {
      get: () => ({ clientId: youtube.signIn.app.clientId, clientSecret: youtube.signIn.app.clientSecret }),
    },
    context: {
      loadMedia: mediaLoader(store, undefined, undefined),
      clock: rt.clock,
      log: () => undefined,
      timeoutMs,
      userAgent: 'test',
    },
  });
  opened.push(connectors);
  return new Scheduler({ store, clock: rt.clock, publisher: fallback, connectors, concurrency: 1 });
}

async function postVideo() {
  const { store } = rt.runtime;
  const brandId = (await store.findBrandIdByTitle('Acme'))!;
  const user = (await store.onlyUser())!;
  const path = join(rt.dataDir, 'roast.mp4');
  const bytes = Buffer.alloc(SIZE);
  MP4_HEAD.copy(bytes);
  bytes.write('the middle of the roast', Math.floor(SIZE / 2));
  writeFileSync(path, bytes);
  const uploader = new LocalPublishingService({ ...rt.runtime, allowLocalPaths: true }, user);
  const mediaId = (await uploader.uploadMedia({ brandId, path })).id;
  const collections = await store.listCollections(brandId, { limit: 10, offset: 0 });
  const service = new LocalPublishingService(rt.runtime, user);
  const { id } = await service.createPost({
    brandId,
    collectionId: collections[0]!.id,
    publishMode: 'IMMEDIATE',
    title: 'The new roast',
    caption: 'A cup of the new roast',
    media: [{ id: mediaId }],
  });
  return { read: () => service.getPost({ brandId, postId: id! }) };
}

it('a process stalled mid-upload: the other goes on from the byte the session has, and publishes once', async () => {
  const stalled = scheduler(60_000);
  const other = scheduler(5_000);
  const post = await postVideo();
  const hangAt = 2 * 1024 * 1024 + 4321;
  youtube.uploads.hangAt = hangAt;
  const stalledTick = stalled.runOnce();
  await expect
    .poll(() => [...youtube.uploads.sessions.values()][0]?.received, { timeout: 10_000 })
    .toBe(hangAt);
  // The stalled process's lease ends (on the engine's clock no renewal makes up for it).
  rt.clock.advance(30_001);
  await other.runOnce();
  const processing = (await post.read()).deliveries[0]!;
  expect(processing.status).toBe('sending');
  expect(processing.reason).toBe('YouTube is processing the video.');
  const session = [...youtube.uploads.sessions.values()][0]!;
  expect(session.received).toBe(SIZE);
  const puts = youtube.uploads.puts;
  const lastProbe = puts.map((put) => put.range).lastIndexOf(`bytes */${SIZE}`);
  expect(puts[lastProbe]!.had).toBe(hangAt);
  expect(puts[lastProbe + 1]!.range).toMatch(new RegExp(`^bytes ${hangAt}-`));
  expect(youtube.kit.requestsTo('/upload/youtube/v3/videos', 'POST')).toHaveLength(1);

  rt.clock.advance(PROCESSING_MS);
  for (let i = 0; i < 3 && (await post.read()).status !== 'published'; i++) {
    rt.clock.advance(15_000);
    await other.runOnce();
  }
  const published = await post.read();
  expect(published.status).toBe('published');
  const [video] = [...youtube.videos.values()];
  expect(youtube.videos.size).toBe(1);
  expect(published.deliveries[0]).toMatchObject({
    externalId: video!.id,
    url: `https://www.youtube.com/watch?v=${video!.id}`,
  });
  expect(video).toMatchObject({ bytes: SIZE, snippet: { title: 'The new roast' } });
  // The stalled process comes back to a claim taken over: it records nothing.
  youtube.kit.revoke();
  await youtube.close();
  await stalledTick;
  expect((await post.read()).status).toBe('published');
  expect(youtube.kit.requestsTo(SESSION_ROUTE).every((request) => request.method === 'PUT')).toBe(true);
});

it('a refresh token dead after 7 days of a Testing consent screen: reconnect, saying so', async () => {
  youtube.signIn.testingMode = true;
  rt.clock.advance(TESTING_REFRESH_MS + 60_000);
  const engine = scheduler(5_000);
  const post = await postVideo();
  await engine.runOnce();
  const failed = (await post.read()).deliveries[0]!;
  expect(failed.status).toBe('failed');
  expect(failed.reason).toContain('invalid_grant');
  expect(failed.reason).toContain('"Testing" gets refresh tokens that expire after 7 days');
  const channel = (
    await rt.runtime.store.listChannels((await rt.runtime.store.findBrandIdByTitle('Acme'))!, {
      limit: 1,
      offset: 0,
    })
  )[0]!;
  expect(channel.status).toBe('INACTIVE');
  expect(youtube.videos.size).toBe(0);
});

it('an access token Google refuses is refreshed once, the refresh token kept (Google sends none back)', async () => {
  for (const token of youtube.kit.credentials.all()) youtube.signIn.expire(token);
  const engine = scheduler(5_000);
  const post = await postVideo();
  await engine.runOnce();
  expect(youtube.signIn.refreshes).toBe(1);
  const stored = rt.runtime.secrets.open(
    (await rt.runtime.store.connections.ofChannels([channelId])).get(channelId)!.sealedSecret!,
    channelId,
  );
  expect(JSON.parse(stored).refreshToken).toBe(youtube.signIn.issuedRefreshTokens[0]);
  expect((await post.read()).deliveries[0]!.status).toBe('sending');
});
