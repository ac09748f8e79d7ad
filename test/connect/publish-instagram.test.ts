/**
 * Publishing to Instagram through the built `serve`, counted at the stand-in: an Instagram account
 * connected with `connect instagram` (Facebook Login, the operator's Meta app in apps.json, pointed at
 * the loopback stand-in); two uploaded images go as a carousel that Instagram fetches from their signed
 * addresses on serve's public URL, with the `platforms.instagram` fields and the auto-comment; then an
 * uploaded image as a Story. Each is published once, with its permalink as the delivery's URL. And
 * Instagram Login begun on serve (`"login": "instagram"`, the INSTAGRAM app), completed on its
 * callback, then a post sent with that sign-in's 60-day token.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { jpegBytes } from '../contract/media-files.js';
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
import { ACME_INSTAGRAM, startInstagramServer } from '../support/instagram-server.js';
import { servedImage } from '../support/served-media.js';

const serves: Serve[] = [];
beforeAll(() => requireBuild());
afterEach(async () => {
  for (const serve of serves.splice(0)) await serve.kill();
  await cleanup();
});

it('a carousel with every Instagram field and a comment, then a Story, through serve: each published once', async () => {
  const instagram = await startInstagramServer();
  try {
    const dataDir = tempDir('spm-publish-instagram-');
    const { clientId, clientSecret } = instagram.apps.facebook;
    writeFileSync(join(dataDir, 'apps.json'), JSON.stringify({ FACEBOOK: { clientId, clientSecret } }));
    const port = await freePort();
    const env = programEnv(dataDir, { SOCIAL_PUBLISHER_PUBLIC_URL: `http://127.0.0.1:${port}` });
    instagram.apps.facebook.redirectUris.push('http://127.0.0.1:8788/callback');
    const roots = ['--auth-root', instagram.url, '--api-root', instagram.url, '--paste-code'];
    const child = spawnMain(
      ['connect', 'instagram', '--brand', DEMO_BRAND, '--collection', 'Newsletter', ...roots],
      env,
    );
    const out = collect(child);
    const [, address] = await waitForStderr(child, /\n {2}(http\S+)\n/, out.stderr);
    await waitForStderr(child, /Address the browser ended on: /, out.stderr);
    const approved = await fetch(address!, { redirect: 'manual' });
    child.stdin!.end(`${approved.headers.get('location')}\n`);
    expect(await out.exit, out.stderr.text).toBe(0);
    const channel = JSON.parse(out.stdout.text) as ChannelDetailJson;
    const serve = await startServe(env, undefined, port);
    serves.push(serve);
    const upload = async (name: string) => {
      const form = new FormData();
      form.append('media', new Blob([new Uint8Array(jpegBytes())], { type: 'image/jpeg' }), name);
      const answer = await fetch(`${serve.url}/v1/brands/1/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${serve.key}` },
        body: form,
      });
      return ((await answer.json()) as { data: { id: string } }).data.id;
    };
    const rest = restClient(serve);
    const newsletter = await collectionId(rest, 'Newsletter');
    const carousel = await waitForPost(
      rest,
      await createPost(rest, newsletter, {
        publishMode: 'IMMEDIATE',
        caption: 'Two roasts, side by side',
        media: [{ id: await upload('light.jpg') }, { id: await upload('dark.jpg') }],
        comment: { comment: 'Which one is yours?', delay: 1 },
        platforms: {
          instagram: { collab: '@ada', location: { id: '110843418940484', name: 'Acme Roastery' } },
        },
      }),
    );
    expect(carousel.status, JSON.stringify(carousel.deliveries)).toBe('published');
    const [post] = instagram.posts;
    expect(carousel.deliveries[0]).toMatchObject({
      channelId: channel.id,
      externalId: post!.id,
      url: post!.permalink,
    });
    expect(post).toMatchObject({ owner: ACME_INSTAGRAM.id, mediaType: 'CAROUSEL' });
    expect(post!.fields).toMatchObject({
      caption: 'Two roasts, side by side',
      collaborators: '["ada"]',
      location_id: '110843418940484',
    });
    // Instagram fetched each file itself, from its signed address on serve's public URL.
    const items = [...instagram.containers.values()].filter((container) => container.carouselItem);
    expect(items).toHaveLength(2);
    for (const item of items) {
      expect(item.mediaUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/media/1\\.`));
      expect(item.downloaded).toBe(jpegBytes().length);
    }
    await expect.poll(() => post!.comments, { timeout: 15_000 }).toEqual(['Which one is yours?']);

    const story = await waitForPost(
      rest,
      await createPost(rest, newsletter, {
        publishMode: 'IMMEDIATE',
        caption: 'Not shown on a Story',
        postAsStory: true,
        media: [{ id: await upload('story.jpg') }],
      }),
    );
    expect(story.status, JSON.stringify(story.deliveries)).toBe('published');
    expect(instagram.posts.map((p) => p.mediaType)).toEqual(['CAROUSEL', 'STORIES']);
    expect(instagram.posts[1]!.fields).not.toHaveProperty('caption');
    expect(instagram.kit.requestsTo('/:version/:id/media_publish')).toHaveLength(2);
  } finally {
    await instagram.close();
  }
});

it('Instagram Login begun on serve (REST, "login": "instagram") connects the account; a post goes to graph.instagram.com’s paths', async () => {
  const instagram = await startInstagramServer();
  try {
    const dataDir = tempDir('spm-publish-instagram-');
    const { clientId, clientSecret } = instagram.apps.instagram;
    const roots = { authRoot: instagram.url, apiRoot: instagram.url };
    writeFileSync(
      join(dataDir, 'apps.json'),
      JSON.stringify({ INSTAGRAM: { clientId, clientSecret, ...roots } }),
    );
    const port = await freePort();
    const env = programEnv(dataDir, { SOCIAL_PUBLISHER_PUBLIC_URL: `http://127.0.0.1:${port}` });
    instagram.apps.instagram.redirectUris.push(`http://127.0.0.1:${port}/oauth/callback`);
    const serve = await startServe(env, undefined, port);
    serves.push(serve);
    const begin = (body: Record<string, unknown>) =>
      fetch(`${serve.url}/v1/brands/1/connections`, {
        method: 'POST',
        headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const wrong = await begin({ platform: 'linkedin', login: 'instagram' });
    expect(wrong.status).toBe(422);
    expect(JSON.stringify(await wrong.json())).toContain('LinkedIn has no sign-in \\"instagram\\"');
    const rest = restClient(serve);
    const newsletter = await collectionId(rest, 'Newsletter');
    const started = await begin({ platform: 'instagram', login: 'instagram', collectionIds: [newsletter] });
    expect(started.status).toBe(201);
    const { authorizationUrl } = ((await started.json()) as { data: { authorizationUrl: string } }).data;
    expect(new URL(authorizationUrl).pathname).toBe('/oauth/authorize');
    expect(new URL(authorizationUrl).searchParams.get('client_id')).toBe(clientId);
    const approved = await fetch(authorizationUrl, { redirect: 'manual' });
    const callback = await fetch(approved.headers.get('location')!);
    expect(callback.status, await callback.clone().text()).toBe(200);
    expect(await callback.text()).toContain(`Connected: @${ACME_INSTAGRAM.username}`);
    expect(instagram.kit.requestsTo('/oauth/access_token', 'POST')).toHaveLength(1);
    expect(instagram.kit.requestsTo('/:version/me/accounts')).toHaveLength(0);
    const files = await servedImage();
    try {
      const post = await waitForPost(
        rest,
        await createPost(rest, newsletter, {
          publishMode: 'IMMEDIATE',
          caption: 'Signed in with Instagram',
          media: [{ url: `${files.url}/photo-1.jpg` }],
        }),
      );
      expect(post.status, JSON.stringify(post.deliveries)).toBe('published');
    } finally {
      await files.close();
    }
    expect(instagram.posts).toHaveLength(1);
    const [publish] = instagram.kit.requestsTo('/:version/:id/media_publish');
    expect(instagram.tokens.get(String(publish!.headers.authorization).slice(7))?.kind).toBe('ig-long');
  } finally {
    await instagram.close();
  }
});
