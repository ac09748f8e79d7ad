/**
 * Publishing to TikTok through the built `serve`, counted at the TikTok stand-in: a channel connected
 * with `connect tiktok` (the operator's app in apps.json, the privacy level SELF_ONLY) publishes an
 * uploaded video by FILE_UPLOAD (creator_info read before it, the title and caption as its title, the
 * processing a pending step until the public id), skips its auto-comment saying why, posts an uploaded
 * photo that TikTok pulls from serve's signed address on the verified public URL, and sends a video to
 * the creator's inbox with `platforms.tiktok.sendToInbox`. Killed while TikTok processes, a restarted
 * serve finishes the post: published once.
 */
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { jpegBytes } from '../contract/media-files.js';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import {
  collectionId,
  createPost,
  freePort,
  programEnv,
  restClient,
  type Serve,
  startServe,
  uploadThroughServe,
  waitForPost,
} from '../support/connected-program.js';
import { connectOnTerminal } from '../support/oauth-terminal.js';
import { mp4Bytes } from '../support/tiktok-media.js';
import { startTikTokServer, type TikTokServer } from '../support/tiktok-server.js';

let tiktok: TikTokServer;
const serves: Serve[] = [];

beforeAll(() => requireBuild());
beforeEach(async () => {
  tiktok = await startTikTokServer({ processingMs: 1_500 });
});
afterEach(async () => {
  for (const serve of serves.splice(0)) await serve.kill();
  await tiktok.close();
  await cleanup();
});

/** A data directory whose "Newsletter" collection holds a TikTok channel connected by `connect`. */
async function connected() {
  const dataDir = tempDir('spm-publish-tiktok-');
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  tiktok.settings.verifiedPrefixes.push(`${publicUrl}/media/`);
  tiktok.app.redirectUris.push('http://127.0.0.1:8788/callback');
  const signedIn = await connectOnTerminal({
    app: 'TIKTOK',
    client: { clientId: tiktok.app.clientKey, clientSecret: tiktok.app.clientSecret },
    platform: 'tiktok',
    root: tiktok.url,
    args: ['--collection', 'Newsletter', '--account', 'SELF_ONLY'],
    dataDir,
    env: programEnv(dataDir, {
      SOCIAL_PUBLISHER_PUBLIC_URL: publicUrl,
      SOCIAL_PUBLISHER_CLAIM_LEASE_SECONDS: '2',
    }),
  });
  expect(signedIn.code, signedIn.stderr).toBe(0);
  return { env: signedIn.env, port };
}

const VIDEO = mp4Bytes(42, 60_000);
const INIT = '/v2/post/publish/video/init/';
const CREATOR = '/v2/post/publish/creator_info/query/';

it('a video, a photo and an inbox upload go to TikTok once each, every field as TikTok takes it', async () => {
  const { env, port } = await connected();
  const serve = await startServe(env, undefined, port);
  serves.push(serve);
  const rest = restClient(serve);
  const newsletter = await collectionId(rest, 'Newsletter');
  const readBefore = tiktok.kit.requestsTo(CREATOR).length;

  const videoPost = await createPost(rest, newsletter, {
    publishMode: 'IMMEDIATE',
    title: 'New roast',
    caption: 'Dark and sweet #coffee',
    link: 'https://northwind.example/roast',
    media: [{ id: await uploadThroughServe(serve, VIDEO, 'video/mp4', 'roast.mp4') }],
    comment: { comment: 'Tell us what you taste', delay: 1 },
  });
  const video = await waitForPost(rest, videoPost);
  expect(video.status, JSON.stringify(video.deliveries)).toBe('published');
  const [id] = tiktok.published();
  expect(video.deliveries[0]).toMatchObject({
    status: 'sent',
    externalId: id,
    url: `https://www.tiktok.com/@acme.roasters/video/${id}`,
  });
  expect(video.deliveries[0]!.comment).toMatchObject({
    status: 'failed',
    reason: expect.stringContaining('no API for comments'),
  });
  expect(tiktok.kit.requestsTo(CREATOR).length).toBe(readBefore + 1);
  expect(tiktok.kit.requestsTo(INIT, 'POST').map((r) => r.body.json)).toEqual([
    {
      post_info: {
        title: 'New roast\n\nDark and sweet #coffee\n\nhttps://northwind.example/roast',
        privacy_level: 'SELF_ONLY',
        disable_comment: false,
        disable_duet: false,
        disable_stitch: true,
      },
      source_info: {
        source: 'FILE_UPLOAD',
        video_size: VIDEO.length,
        chunk_size: VIDEO.length,
        total_chunk_count: 1,
      },
    },
  ]);
  const [chunk] = tiktok.kit.requestsTo('/upload/', 'PUT');
  expect(chunk!.body.bytes.equals(VIDEO)).toBe(true);
  // The processing was a pending step: the status was read while TikTok processed, then once done.
  expect(tiktok.kit.requestsTo('/v2/post/publish/status/fetch/').length).toBeGreaterThanOrEqual(2);

  const photoPost = await createPost(rest, newsletter, {
    publishMode: 'IMMEDIATE',
    title: 'Morning cup',
    caption: 'Fresh',
    media: [{ id: await uploadThroughServe(serve, jpegBytes(), 'image/jpeg', 'cup.jpg') }],
  });
  const photo = await waitForPost(rest, photoPost);
  expect(photo.status, JSON.stringify(photo.deliveries)).toBe('published');
  const pulled = [...tiktok.publishes.values()].find((p) => p.kind === 'photo')!;
  expect(pulled.photoUrls[0]).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/media/1\\.`));
  expect(pulled.downloaded).toEqual([jpegBytes().length]);
  expect(pulled.postInfo).toMatchObject({
    title: 'Morning cup',
    description: 'Fresh',
    privacy_level: 'SELF_ONLY',
  });
  expect(photo.deliveries[0]!.url).toBe(`https://www.tiktok.com/@acme.roasters/photo/${pulled.postId}`);

  const inboxPost = await createPost(rest, newsletter, {
    publishMode: 'IMMEDIATE',
    caption: 'For the creator to finish',
    media: [{ id: await uploadThroughServe(serve, VIDEO, 'video/mp4', 'draft.mp4') }],
    platforms: { tiktok: { sendToInbox: true } },
  });
  const inbox = await waitForPost(rest, inboxPost);
  expect(inbox.status, JSON.stringify(inbox.deliveries)).toBe('published');
  expect(tiktok.kit.requestsTo('/v2/post/publish/inbox/video/init/', 'POST')).toHaveLength(1);
  expect(tiktok.kit.requestsTo(INIT, 'POST')).toHaveLength(1);
  expect(tiktok.publishes.size).toBe(3);
  expect(serve.stderr()).not.toContain(tiktok.app.clientSecret);
}, 40_000);

it('killed while TikTok processes: the restarted serve finishes the post, published once', async () => {
  tiktok.settings.processingMs = 4_000;
  const { env, port } = await connected();
  const first = await startServe(env, undefined, port);
  serves.push(first);
  const rest = restClient(first);
  const postId = await createPost(rest, await collectionId(rest, 'Newsletter'), {
    publishMode: 'IMMEDIATE',
    caption: 'Killed mid-processing',
    media: [{ id: await uploadThroughServe(first, VIDEO, 'video/mp4', 'roast.mp4') }],
  });
  // Killed once the delivery waits for TikTok's processing (the pending step stored).
  await waitForPost(rest, postId, (post) => /processing/.test(post.deliveries[0]?.reason ?? ''), 10_000);
  await first.kill();
  expect(tiktok.published()).toEqual([]);
  const second = await startServe(env, first.key, port);
  serves.push(second);
  const post = await waitForPost(restClient(second), postId, undefined, 20_000);
  expect(post.status, JSON.stringify(post.deliveries)).toBe('published');
  expect(post.deliveries[0]!.externalId).toBe(tiktok.published()[0]);
  expect(tiktok.kit.requestsTo(INIT, 'POST')).toHaveLength(1);
  expect(tiktok.kit.requestsTo('/upload/', 'PUT')).toHaveLength(1);
  expect(tiktok.publishes.size).toBe(1);
}, 40_000);
