/**
 * Meta's platforms through the built `serve`, counted at their loopback stand-ins: a Facebook Reel
 * (with a collaborator) and a video Story, each an uploaded video whose bytes go to the stand-in's
 * upload host in the three phases, processed while the delivery waits as a pending step, published
 * once; and the pre-flight of a Threads channel over REST counting the text as Threads counts it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { mp4Bytes } from '../contract/media-files.js';
import { cleanup, requireBuild, spawnMain, tempDir } from '../mcp/cli-harness.js';
import {
  collect,
  collectionId,
  createPost,
  DEMO_BRAND,
  type PostJson,
  programEnv,
  restClient,
  type Serve,
  startServe,
  waitForPost,
  waitForStderr,
} from '../support/connected-program.js';
import { startFacebookServer } from '../support/facebook-server.js';
import { startThreadsServer } from '../support/threads-server.js';

const serves: Serve[] = [];

beforeAll(() => requireBuild());
afterEach(async () => {
  for (const serve of serves.splice(0)) await serve.kill();
  await cleanup();
});

/** `connect <platform>` into the demo "Newsletter" collection, approved on the stand-in (pasted code). */
async function connect(
  platform: 'facebook' | 'threads',
  stand: { url: string; app: { clientId: string; clientSecret: string; redirectUris: string[] } },
  extra: string[] = [],
): Promise<Record<string, string>> {
  const dataDir = tempDir(`spm-publish-${platform}-`);
  const { clientId, clientSecret } = stand.app;
  writeFileSync(
    join(dataDir, 'apps.json'),
    JSON.stringify({ [platform.toUpperCase()]: { clientId, clientSecret } }),
  );
  const env = programEnv(dataDir);
  stand.app.redirectUris.push('http://127.0.0.1:8788/callback');
  const roots = ['--auth-root', stand.url, '--api-root', stand.url, '--paste-code'];
  const child = spawnMain(
    ['connect', platform, '--brand', DEMO_BRAND, '--collection', 'Newsletter', ...extra, ...roots],
    env,
  );
  const out = collect(child);
  const [, address] = await waitForStderr(child, /\n {2}(http\S+)\n/, out.stderr);
  await waitForStderr(child, /Address the browser ended on: /, out.stderr);
  const approved = await fetch(address!, { redirect: 'manual' });
  child.stdin!.end(`${approved.headers.get('location')}\n`);
  expect(await out.exit, out.stderr.text).toBe(0);
  return env;
}

it('Facebook: a Reel with a collaborator and a video Story, uploaded in three phases, published once each', async () => {
  const facebook = await startFacebookServer({ videoProcessingMs: 500 });
  try {
    const env = await connect('facebook', facebook, ['--account', facebook.main.id]);
    const serve = await startServe(env);
    serves.push(serve);
    const form = new FormData();
    form.append('media', new Blob([new Uint8Array(mp4Bytes())], { type: 'video/mp4' }), 'latte.mp4');
    const uploaded = await fetch(`${serve.url}/v1/brands/1/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.key}` },
      body: form,
    });
    const media = ((await uploaded.json()) as { data: { id: string } }).data;
    const rest = restClient(serve);
    const newsletter = await collectionId(rest, 'Newsletter');
    const reelId = await createPost(rest, newsletter, {
      publishMode: 'IMMEDIATE',
      caption: 'Latte art in 15 seconds',
      media: [{ id: media.id }],
      platforms: { facebook: { reel: true, collab: 'Partner Roasters' } },
    });
    const storyId = await createPost(rest, newsletter, {
      publishMode: 'IMMEDIATE',
      caption: 'Behind the bar',
      media: [{ id: media.id }],
      postAsStory: true,
    });
    const [reel, story] = (await Promise.all(
      [reelId, storyId].map((id) => waitForPost(rest, id, undefined, 40_000)),
    )) as [PostJson, PostJson];
    const delivered = (post: PostJson) => post.deliveries.find((d) => d.channelType === 'Facebook')!;
    expect(delivered(reel), JSON.stringify(reel.deliveries)).toMatchObject({ status: 'sent' });
    expect(delivered(story), JSON.stringify(story.deliveries)).toMatchObject({ status: 'sent' });

    const shorts = [...facebook.shortVideos.values()];
    expect(shorts.map((v) => [v.surface, v.bytes, v.finished])).toEqual(
      expect.arrayContaining([
        ['reel', mp4Bytes().length, true],
        ['story', mp4Bytes().length, true],
      ]),
    );
    expect(shorts).toHaveLength(2);
    const reelVideo = shorts.find((v) => v.surface === 'reel')!;
    expect(reelVideo).toMatchObject({
      description: 'Latte art in 15 seconds',
      collaborators: ['Partner Roasters'],
      videoState: 'PUBLISHED',
    });
    expect(delivered(reel)).toMatchObject({ externalId: reelVideo.id });
    expect(delivered(reel).url).toMatch(/^https:\/\/www\.facebook\.com\//);
    expect(delivered(story).externalId).toBe(shorts.find((v) => v.surface === 'story')!.postId);
    // Counted at the stand-in: each phase once per post, the bytes once each, no feed video.
    expect(facebook.kit.requestsTo('/:version/:page/video_reels')).toHaveLength(2);
    expect(facebook.kit.requestsTo('/:version/:page/video_stories')).toHaveLength(2);
    expect(facebook.kit.requestsTo('/video-upload/:version/:id')).toHaveLength(2);
    expect(facebook.kit.requestsTo('/:version/:page/videos')).toHaveLength(0);
    expect(facebook.posts.map((post) => post.kind).sort()).toEqual(['reel', 'story']);
  } finally {
    await facebook.close();
  }
});

it('Threads: the REST pre-flight counts the text as Threads does (an emoji its UTF-8 bytes)', async () => {
  const threads = await startThreadsServer();
  try {
    const env = await connect('threads', threads);
    const serve = await startServe(env);
    serves.push(serve);
    const rest = restClient(serve);
    const newsletter = await collectionId(rest, 'Newsletter');
    // 126 code points, 504 as Threads counts them.
    const body = { publishMode: 'IMMEDIATE', caption: '😀'.repeat(126), dryRun: true };
    const answer = await rest.post<{
      warnings?: { channelName: string; outcome: string; message: string }[];
    }>(`/v1/brands/1/collections/${newsletter}/posts`, body);
    expect(answer.warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          outcome: 'fail',
          message: expect.stringMatching(
            /^The text is 504 characters as Threads counts them \(an emoji counts its UTF-8 bytes\); Threads takes at most 500\./,
          ),
        }),
      ]),
    );
    const fits = await rest.post<{ warnings?: { message: string }[] }>(
      `/v1/brands/1/collections/${newsletter}/posts`,
      { ...body, caption: '😀'.repeat(125) },
    );
    expect(fits.warnings ?? []).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ message: expect.stringMatching(/Threads/) })]),
    );
    expect(threads.posts).toHaveLength(0);
  } finally {
    await threads.close();
  }
});
