/**
 * Threads through the engine, against the Threads stand-in whose media containers process for two
 * minutes by the engine's clock: an uploaded image reaches Threads through the public address the
 * context gives (as serve would sign one), the container's processing holds no send slot and is
 * finished by whichever of two processes checks it then, and the post is published once. Without a
 * public address the delivery fails saying which setting is missing.
 */

import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { PlatformMedia } from '../../src/domain/delivery.js';
import { ChannelConnectors } from '../../src/publish/channel-connectors.js';
import { tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import { mediaLoader } from '../../src/publish/media-loader.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { startThreadsServer, THREADS_USER_ID, type ThreadsServer } from '../support/threads-server.js';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c63f8ffff3f0005fe02fea7d6a4a40000000049454e44ae426082',
  'hex',
);
const PROCESSING_MS = 2 * 60_000;

let rt: TestRuntime;
let threads: ThreadsServer;
let files: Server;
let filesUrl: string;

beforeEach(async () => {
  rt = await openTestRuntime({ demo: false, now: Date.now() });
  threads = await startThreadsServer({ now: () => rt.clock.now(), processingMs: PROCESSING_MS });
  files = createServer((req, res) => {
    res.writeHead(req.url?.startsWith('/media/') ? 200 : 404, { 'content-type': 'image/png' });
    res.end(PNG);
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  await rt.importWorkspace({
    brands: [
      {
        title: 'Acme',
        timezone: 'Europe/London',
        channels: [
          {
            name: 'Acme on Threads',
            type: 'Threads',
            connection: {
              connector: 'threads',
              account: '@acme',
              accountId: THREADS_USER_ID,
              instance: threads.url,
              secretEnv: 'ACME_THREADS',
            },
          },
        ],
        collections: [{ title: 'Threads', channels: ['Acme on Threads'] }],
      },
    ],
    users: [{ name: 'Ada', timezone: 'Europe/London', apiKey: 'ada-key-0123456789', brands: ['Acme'] }],
  });
});

afterEach(async () => {
  await rt.close();
  await threads.close();
  await new Promise((resolve) => files.close(resolve));
});

function scheduler(publicMediaUrl?: (brandId: number, media: PlatformMedia) => Promise<string | undefined>) {
  const { store, secrets } = rt.runtime;
  const token = threads.userToken();
  const fallback = new SandboxPublisher(store.sandbox, rt.clock);
  const connectors = new ChannelConnectors({
    store,
    secrets,
    fallback,
    readEnv: (name) => (name === 'ACME_THREADS' ? tokensSecret({ accessToken: token }) : undefined),
    context: {
      loadMedia: mediaLoader(store, undefined, undefined),
      ...(publicMediaUrl ? { publicMediaUrl } : {}),
      clock: rt.clock,
      log: () => undefined,
      timeoutMs: 2_000,
      userAgent: 'test',
    },
  });
  return new Scheduler({ store, clock: rt.clock, publisher: fallback, connectors, concurrency: 1 });
}

async function postImage() {
  const { store } = rt.runtime;
  const brandId = (await store.findBrandIdByTitle('Acme'))!;
  const user = (await store.onlyUser())!;
  const path = join(rt.dataDir, 'cup.png');
  writeFileSync(path, PNG);
  const uploader = new LocalPublishingService({ ...rt.runtime, allowLocalPaths: true }, user);
  const mediaId = (await uploader.uploadMedia({ brandId, path })).id;
  const collections = await store.listCollections(brandId, { limit: 10, offset: 0 });
  const service = new LocalPublishingService(rt.runtime, user);
  const { id } = await service.createPost({
    brandId,
    collectionId: collections[0]!.id,
    publishMode: 'IMMEDIATE',
    caption: 'A cup of the new roast',
    media: [{ id: mediaId }],
  });
  return { mediaId, read: () => service.getPost({ brandId, postId: id! }) };
}

it('an uploaded image goes by its public address; processing holds nothing and the post is published once', async () => {
  const signed = async (_brandId: number, media: PlatformMedia) => `${filesUrl}/media/${media.id}?sig=test`;
  const engine = scheduler(signed);
  const other = scheduler(signed); // another process on the same store
  const post = await postImage();
  await engine.runOnce();
  const waiting = (await post.read()).deliveries[0]!;
  expect(waiting.status).toBe('sending');
  expect(waiting.reason).toMatch(/processing/i);
  expect(threads.posts).toEqual([]);
  const [container] = threads.containers.values();
  expect(container).toMatchObject({
    mediaUrl: `${filesUrl}/media/${post.mediaId}?sig=test`,
    downloaded: PNG.length,
  });

  const startedMs = rt.clock.now();
  let turn = 0;
  while (rt.clock.now() < startedMs + PROCESSING_MS + 120_000 && threads.posts.length === 0) {
    rt.clock.advance(15_000);
    await (turn++ % 2 === 0 ? other : engine).runOnce();
  }
  const published = await post.read();
  expect(published.status).toBe('published');
  expect(published.deliveries[0]!.externalId).toBe(threads.posts[0]!.id);
  expect(threads.kit.requestsTo('/:version/me/threads_publish')).toHaveLength(1);
  expect(threads.containers.size).toBe(1);
});

it('without a public address for an uploaded file, the delivery fails naming SOCIAL_PUBLISHER_PUBLIC_URL', async () => {
  const engine = scheduler();
  const post = await postImage();
  await engine.runOnce();
  const failed = (await post.read()).deliveries[0]!;
  expect(failed.status).toBe('failed');
  expect(failed.reason).toContain('SOCIAL_PUBLISHER_PUBLIC_URL');
  expect(threads.containers.size).toBe(0);
});
