/**
 * Publishing to YouTube through the built `serve`, counted at the YouTube stand-in: a channel connected
 * with `connect youtube` (the operator's GOOGLE app, pointed at the loopback stand-in) in the demo's
 * "Visual" collection; a video uploaded through the REST API and a post with every YouTube field
 * (title, caption and link, `platforms.youtube.tags`, `privacy`, `playlists` naming this channel, an
 * auto-comment) reaches YouTube once: one upload session whose bytes are the file's, the video
 * processed, one playlist item, one comment thread, and the delivery's URL the watch page.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { mp4Bytes } from '../contract/media-files.js';
import { cleanup, requireBuild, spawnMain, tempDir } from '../mcp/cli-harness.js';
import {
  type ChannelDetailJson,
  collect,
  collectionId,
  createPost,
  DEMO_BRAND,
  freePort,
  programEnv,
  restClient,
  type Serve,
  startServe,
  waitForPost,
  waitForStderr,
} from '../support/connected-program.js';
import { approve } from '../support/x-sign-in.js';
import { startYouTubeServer, type YouTubeServer } from '../support/youtube-server.js';
import { SESSION_ROUTE } from '../support/youtube-uploads.js';

let youtube: YouTubeServer;
const serves: Serve[] = [];

beforeAll(() => requireBuild());
beforeEach(async () => {
  youtube = await startYouTubeServer();
});
afterEach(async () => {
  for (const serve of serves.splice(0)) await serve.kill();
  await youtube.close();
  await cleanup();
});

/** A data directory whose demo "Visual" collection holds a YouTube channel connected by `connect`. */
async function connected(): Promise<{ env: Record<string, string>; channelId: number }> {
  const dataDir = tempDir('spm-publish-youtube-');
  const { clientId, clientSecret } = youtube.signIn.app;
  writeFileSync(join(dataDir, 'apps.json'), JSON.stringify({ GOOGLE: { clientId, clientSecret } }));
  const env = programEnv(dataDir);
  const redirect = `http://127.0.0.1:${await freePort()}/callback`;
  youtube.signIn.app.redirectUris.push(redirect);
  const child = spawnMain(
    [
      'connect',
      'youtube',
      '--brand',
      DEMO_BRAND,
      '--collection',
      'Visual',
      '--auth-root',
      youtube.url,
      '--api-root',
      youtube.url,
      '--redirect-uri',
      redirect,
    ],
    env,
  );
  const out = collect(child);
  const [, address] = await waitForStderr(child, /\n {2}(http\S+)\n/, out.stderr);
  await fetch((await approve(address!)).redirectedTo);
  expect(await out.exit, out.stderr.text).toBe(0);
  return { env, channelId: (JSON.parse(out.stdout.text) as ChannelDetailJson).id };
}

it('a post with every YouTube field reaches YouTube once: the video, its playlist, its comment', async () => {
  const { env, channelId } = await connected();
  const serve = await startServe(env);
  serves.push(serve);
  const video = mp4Bytes();
  const form = new FormData();
  form.append('media', new Blob([new Uint8Array(video)], { type: 'video/mp4' }), 'roast.mp4');
  const uploaded = await fetch(`${serve.url}/v1/brands/1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${serve.key}` },
    body: form,
  });
  expect(uploaded.status).toBe(201);
  const mediaId = ((await uploaded.json()) as { data: { id: string } }).data.id;
  const rest = restClient(serve);
  const postId = await createPost(rest, await collectionId(rest, 'Visual'), {
    publishMode: 'IMMEDIATE',
    title: 'The Monday roast',
    caption: 'How we roast on Mondays.',
    link: 'https://northwind.example/roast',
    media: [{ id: mediaId }],
    comment: { comment: 'Which roast next?', delay: 1 },
    platforms: {
      youtube: {
        tags: ['coffee', 'slow roast'],
        privacy: 'unlisted',
        playlists: [{ channelId, playlistIds: ['PLroasts'] }],
      },
    },
  });
  const post = await waitForPost(rest, postId, undefined, 45_000);
  // The demo's Pinterest channel is INACTIVE: its delivery fails, every other one is sent.
  expect(post.status).toBe('partially_published');
  expect(post.deliveries.filter((item) => item.status !== 'sent').map((item) => item.channelType)).toEqual([
    'Pinterest',
  ]);

  expect(youtube.kit.requestsTo('/upload/youtube/v3/videos', 'POST')).toHaveLength(1);
  const [sent] = [...youtube.videos.values()];
  expect(youtube.videos.size).toBe(1);
  expect(sent).toMatchObject({
    snippet: {
      title: 'The Monday roast',
      description: 'How we roast on Mondays.\n\nhttps://northwind.example/roast',
      tags: ['coffee', 'slow roast'],
    },
    privacyStatus: 'unlisted',
    bytes: video.length,
    sha256: createHash('sha256').update(video).digest('hex'),
  });
  expect(youtube.playlistItems).toEqual([{ playlistId: 'PLroasts', videoId: sent!.id }]);
  expect(youtube.comments).toEqual([{ videoId: sent!.id, text: 'Which roast next?' }]);
  const delivery = post.deliveries.find((item) => item.channelId === channelId)!;
  expect(delivery).toMatchObject({
    status: 'sent',
    externalId: sent!.id,
    url: `https://www.youtube.com/watch?v=${sent!.id}`,
  });
  expect(youtube.kit.requestsTo(SESSION_ROUTE).filter((request) => request.status === 200)).toHaveLength(1);
  for (const secret of youtube.secrets()) expect(serve.stderr()).not.toContain(secret);
}, 90_000);
