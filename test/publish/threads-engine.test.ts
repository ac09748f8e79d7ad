/**
 * Threads through the engine, against the Threads stand-in whose media containers process for two
 * minutes by the engine's clock: an uploaded image reaches Threads through the public address the
 * context gives (as serve would sign one), the container's processing holds no send slot and is
 * finished by whichever of two processes checks it then, and the post is published once. Without a
 * public address the delivery fails saying which setting is missing.
 */

import { afterEach, expect, it } from 'vitest';
import type { PlatformMedia } from '../../src/domain/delivery.js';
import { tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import type { TestRuntime } from '../support/local.js';
import { openEngineRuntime, openOAuthEngine } from '../support/oauth-engine.js';
import { JPEG, servedImage } from '../support/served-media.js';
import { startThreadsServer, type ThreadsServer, threadsChannel } from '../support/threads-server.js';

const PROCESSING_MS = 2 * 60_000;

let rt: TestRuntime;
let threads: ThreadsServer;
let files: Awaited<ReturnType<typeof servedImage>>;

afterEach(async () => {
  await rt.close();
  await threads.close();
  await files.close();
});

/** The engine over a Threads channel; `postImage` uploads a photo and posts it at once. */
async function setUp() {
  rt = await openEngineRuntime();
  threads = await startThreadsServer({ now: () => rt.clock.now(), processingMs: PROCESSING_MS });
  files = await servedImage();
  const engine = await openOAuthEngine(
    rt,
    threadsChannel(threads.url),
    tokensSecret({ accessToken: threads.userToken() }),
  );
  const postImage = async () => {
    const mediaId = await engine.upload('cup.jpg', JPEG);
    const read = await engine.publish({
      publishMode: 'IMMEDIATE',
      caption: 'A cup of the new roast',
      media: [{ id: mediaId }],
    });
    return { mediaId, read };
  };
  return { scheduler: engine.scheduler, postImage };
}

it('an uploaded image goes by its public address; processing holds nothing and the post is published once', async () => {
  const { scheduler, postImage } = await setUp();
  const signed = async (_brandId: number, media: PlatformMedia) => `${files.url}/photo-${media.id}?sig=test`;
  const engine = scheduler({ timeoutMs: 2_000, publicMediaUrl: signed });
  const other = scheduler({ timeoutMs: 2_000, publicMediaUrl: signed }); // another process on the same store
  const post = await postImage();
  await engine.runOnce();
  const waiting = (await post.read()).deliveries[0]!;
  expect(waiting.status).toBe('sending');
  expect(waiting.reason).toMatch(/processing/i);
  expect(threads.posts).toEqual([]);
  const [container] = threads.containers.values();
  expect(container).toMatchObject({
    mediaUrl: `${files.url}/photo-${post.mediaId}?sig=test`,
    downloaded: JPEG.length,
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
  const { scheduler, postImage } = await setUp();
  const engine = scheduler({ timeoutMs: 2_000 });
  const post = await postImage();
  await engine.runOnce();
  const failed = (await post.read()).deliveries[0]!;
  expect(failed.status).toBe('failed');
  expect(failed.reason).toContain('SOCIAL_PUBLISHER_PUBLIC_URL');
  expect(threads.containers.size).toBe(0);
});
