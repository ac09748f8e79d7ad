/**
 * Publishing to Pinterest through the built `serve`, counted at the Pinterest stand-in: a board
 * connected with `connect pinterest` (the operator's app in apps.json, pointed at the loopback
 * stand-in) receives a scheduled pin with every field once, at its time, its auto-comment skipped with
 * the reason and nothing sent for it; a video goes up once to the S3 form, is processed as a pending
 * step, and is pinned once; a carousel of uploaded images is one pin.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { formatLocalTime } from '../../src/domain/time.js';
import { mp4Bytes, pngBytes } from '../contract/media-files.js';
import { cleanup, requireBuild, spawnMain, tempDir } from '../mcp/cli-harness.js';
import {
  type ChannelDetailJson,
  collect,
  collectionId,
  createPost,
  DEMO_BRAND,
  programEnv,
  restClient,
  type Serve,
  startServe,
  uploadThroughServe,
  waitForPost,
  waitForStderr,
} from '../support/connected-program.js';
import { type PinterestServer, startPinterestServer } from '../support/pinterest-server.js';

let pinterest: PinterestServer;
const serves: Serve[] = [];

beforeAll(() => requireBuild());
beforeEach(async () => {
  pinterest = await startPinterestServer({ videoProcessingMs: 1_500 });
  pinterest.app.redirectUris.push('https://example.com/pinterest-callback');
});
afterEach(async () => {
  for (const serve of serves.splice(0)) await serve.kill();
  await pinterest.close();
  await cleanup();
});

/** A data directory whose demo "Newsletter" collection holds the board "Recipes", connected by `connect`. */
async function connected(): Promise<{ env: Record<string, string>; channelId: number }> {
  const dataDir = tempDir('spm-publish-pinterest-');
  writeFileSync(
    join(dataDir, 'apps.json'),
    JSON.stringify({
      PINTEREST: { clientId: pinterest.app.clientId, clientSecret: pinterest.app.clientSecret },
    }),
  );
  const env = programEnv(dataDir);
  const child = spawnMain(
    [
      'connect',
      'pinterest',
      '--brand',
      DEMO_BRAND,
      '--collection',
      'Newsletter',
      '--auth-root',
      pinterest.url,
      '--api-root',
      pinterest.url,
      '--account',
      'Recipes',
      '--redirect-uri',
      'https://example.com/pinterest-callback',
      '--paste-code',
    ],
    env,
  );
  const out = collect(child);
  const [, address] = await waitForStderr(child, /\n {2}(http\S+)\n/, out.stderr);
  await waitForStderr(child, /Address the browser ended on: /, out.stderr);
  const approved = await fetch(address!, { redirect: 'manual' });
  child.stdin!.end(`${approved.headers.get('location')}\n`);
  expect(await out.exit, out.stderr.text).toBe(0);
  return { env, channelId: (JSON.parse(out.stdout.text) as ChannelDetailJson).id };
}

it('a scheduled pin with every field goes to the board once, at its time; its comment is skipped, unsent', async () => {
  const { env, channelId } = await connected();
  const serve = await startServe(env);
  serves.push(serve);
  const rest = restClient(serve);
  const image = await uploadThroughServe(serve, pngBytes(9), 'image/png', 'tomatoes.png');
  const dueAt = Date.now() + 2_000;
  const postId = await createPost(rest, await collectionId(rest, 'Newsletter'), {
    publishMode: 'SCHEDULE',
    scheduledAt: formatLocalTime(dueAt, 'America/New_York'),
    title: 'Slow-roasted tomatoes',
    caption: 'Four hours at 120°C, then olive oil',
    link: 'https://northwind.example/tomatoes',
    alt: 'A tray of roasted tomatoes',
    media: [{ id: image }],
    comment: { comment: 'Recipe in the link', delay: 1 },
  });
  const post = await waitForPost(rest, postId);
  expect(post.status).toBe('published');
  const creates = pinterest.kit.requestsTo('/v5/pins', 'POST');
  expect(creates).toHaveLength(1);
  expect(creates[0]!.receivedAt).toBeGreaterThanOrEqual(dueAt - 1_000);
  expect(pinterest.pins).toEqual([
    expect.objectContaining({
      boardId: pinterest.boards[0]!.id,
      title: 'Slow-roasted tomatoes',
      description: 'Four hours at 120°C, then olive oil',
      link: 'https://northwind.example/tomatoes',
      altText: 'A tray of roasted tomatoes',
      sourceType: 'image_base64',
      imageBytes: [pngBytes(9).length],
    }),
  ]);
  const [delivery] = post.deliveries;
  const pin = pinterest.pins[0]!;
  expect(delivery).toMatchObject({ channelId, status: 'sent', externalId: pin.id });
  expect(delivery!.url).toBe(`https://www.pinterest.com/pin/${pin.id}/`);
  expect(delivery!.comment.status).toBe('failed');
  expect(JSON.stringify(delivery!.comment)).toContain('no way to post a comment');
  const calls = pinterest.kit.log.map((request) => `${request.method} ${request.route}`);
  expect(
    calls.filter(
      (call) => !call.includes('oauth') && !call.includes('/v5/user_account') && !call.includes('/v5/boards'),
    ),
  ).toEqual(['POST /v5/pins']);
  expect(serve.stderr()).not.toContain(pinterest.app.clientSecret);
});

it('a video goes up once to the S3 form, waits for processing, and is pinned once; a carousel is one pin', async () => {
  const { env } = await connected();
  const serve = await startServe(env);
  serves.push(serve);
  const rest = restClient(serve);
  const newsletter = await collectionId(rest, 'Newsletter');
  const video = await uploadThroughServe(serve, mp4Bytes(), 'video/mp4', 'roast.mp4');
  const videoPost = await createPost(rest, newsletter, {
    publishMode: 'IMMEDIATE',
    title: 'Roasting, live',
    caption: 'Watch the tray',
    media: [{ id: video }],
  });
  expect((await waitForPost(rest, videoPost)).status).toBe('published');
  const images = [1, 2, 3].map((shade) =>
    uploadThroughServe(serve, pngBytes(shade), 'image/png', `step-${shade}.png`),
  );
  const carousel = await createPost(rest, newsletter, {
    publishMode: 'IMMEDIATE',
    caption: 'Three steps',
    media: (await Promise.all(images)).map((id) => ({ id })),
  });
  expect((await waitForPost(rest, carousel)).status).toBe('published');
  expect(pinterest.kit.requestsTo('/v5/media', 'POST')).toHaveLength(1);
  const uploads = pinterest.kit.requestsTo('/pinterest-media-upload');
  expect(uploads).toHaveLength(1);
  expect(uploads[0]!.body.files).toMatchObject([{ field: 'file', size: mp4Bytes().length }]);
  expect(pinterest.kit.requestsTo('/v5/media/:id').length).toBeGreaterThan(0);
  expect(pinterest.pins.map((pin) => [pin.sourceType, pin.imageBytes.length])).toEqual([
    ['video_id', 1],
    ['multiple_image_base64', 3],
  ]);
  expect(pinterest.pins[0]).toMatchObject({ title: 'Roasting, live', cover: 'key_frame' });
  expect(pinterest.kit.requestsTo('/v5/pins', 'POST')).toHaveLength(2);
}, 40_000);
