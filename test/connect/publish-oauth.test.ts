import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { formatLocalTime } from '../../src/domain/time.js';
import { mp4Bytes, pdfBytes, pngBytes } from '../contract/media-files.js';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import {
  type ChannelDetailJson,
  collectionId,
  createPost,
  freePort,
  programEnv,
  restClient,
  type Serve,
  sleep,
  startServe,
  uploadThroughServe,
  waitForPost,
} from '../support/connected-program.js';
import { startFacebookServer } from '../support/facebook-server.js';
import { type LinkedInServer, MEMBER_URN, startLinkedInServer } from '../support/linkedin-server.js';
import { connectOnTerminal } from '../support/oauth-terminal.js';
import { startThreadsServer } from '../support/threads-server.js';
import { startXServer } from '../support/x-server.js';
import { approve } from '../support/x-sign-in.js';

const LEASE_SECONDS = 2;
let linkedin: LinkedInServer;
const serves: Serve[] = [];

beforeAll(() => requireBuild());
beforeEach(async () => {
  linkedin = await startLinkedInServer();
});
afterEach(async () => {
  for (const serve of serves.splice(0)) await serve.kill();
  await linkedin.close();
  await cleanup();
});

/** A data directory whose demo "Newsletter" collection holds a LinkedIn channel connected by `connect`. */
async function connected(): Promise<{ env: Record<string, string>; channelId: number }> {
  const dataDir = tempDir('spm-publish-oauth-');
  const run = await connectOnTerminal({
    app: 'LINKEDIN',
    client: { clientId: linkedin.clientId, clientSecret: linkedin.clientSecret },
    platform: 'linkedin',
    root: linkedin.url,
    args: ['--collection', 'Newsletter', '--account', MEMBER_URN],
    dataDir,
    env: programEnv(dataDir, { SOCIAL_PUBLISHER_CLAIM_LEASE_SECONDS: String(LEASE_SECONDS) }),
    approve: async (address) => (await linkedin.approve(address)).redirectedTo,
  });
  expect(run.code, run.stderr).toBe(0);
  return { env: run.env, channelId: (JSON.parse(run.stdout) as ChannelDetailJson).id };
}

it('a scheduled post and its comment go to LinkedIn once each, at their time, with the public URL', async () => {
  const { env, channelId } = await connected();
  const serve = await startServe(env);
  serves.push(serve);
  const rest = restClient(serve);
  const postId = await createPost(rest, await collectionId(rest, 'Newsletter'), {
    publishMode: 'SCHEDULE',
    scheduledAt: formatLocalTime(Date.now() + 2_000, 'America/New_York'),
    caption: 'Roasting (light) #coffee',
    comment: { comment: 'More at the shop', delay: 1 },
  });
  const post = await waitForPost(rest, postId);
  expect(post.status).toBe('published');
  expect(linkedin.posts).toHaveLength(1);
  const [sent] = linkedin.posts;
  expect(sent!.body).toMatchObject({ author: MEMBER_URN, commentary: 'Roasting \\(light\\) \\#coffee' });
  const [delivery] = post.deliveries;
  expect(delivery).toMatchObject({ channelId, status: 'sent', externalId: sent!.urn });
  expect(delivery!.url).toBe(`https://www.linkedin.com/feed/update/${sent!.urn}`);
  expect(linkedin.comments).toHaveLength(1);
  expect(serve.stderr()).not.toContain(linkedin.clientSecret);
});

it('an uploaded image goes to LinkedIn once, by its Images API, with the post', async () => {
  const { env } = await connected();
  const serve = await startServe(env);
  serves.push(serve);
  const form = new FormData();
  form.append('media', new Blob([new Uint8Array(pngBytes(7))], { type: 'image/png' }), 'roast.png');
  const uploaded = await fetch(`${serve.url}/v1/brands/1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${serve.key}` },
    body: form,
  });
  expect(uploaded.status).toBe(201);
  const media = ((await uploaded.json()) as { data: { id: number } }).data;
  const rest = restClient(serve);
  const postId = await createPost(rest, await collectionId(rest, 'Newsletter'), {
    publishMode: 'IMMEDIATE',
    caption: 'Fresh roast',
    media: [{ id: media.id }],
  });
  const post = await waitForPost(rest, postId);
  expect(post.status).toBe('published');
  const uploads = [...linkedin.uploads.values()];
  expect(uploads).toHaveLength(1);
  expect(uploads[0]).toMatchObject({ kind: 'image', bytes: pngBytes(7).length });
  expect(linkedin.posts).toHaveLength(1);
  expect(JSON.stringify(linkedin.posts[0]!.body)).toContain(uploads[0]!.urn);
});

it('a PDF goes to LinkedIn once as a document post, and a video through its Videos API once', async () => {
  const { env } = await connected();
  const serve = await startServe(env);
  serves.push(serve);
  const rest = restClient(serve);
  const newsletter = await collectionId(rest, 'Newsletter');
  const pdf = await uploadThroughServe(serve, pdfBytes(), 'application/pdf', 'menu.pdf');
  const video = await uploadThroughServe(serve, mp4Bytes(), 'video/mp4', 'roast.mp4');
  const documentPost = await createPost(rest, newsletter, {
    publishMode: 'IMMEDIATE',
    caption: 'The new menu',
    media: [{ id: pdf }],
  });
  expect((await waitForPost(rest, documentPost)).status).toBe('published');
  const videoPost = await createPost(rest, newsletter, {
    publishMode: 'IMMEDIATE',
    caption: 'Roasting, live',
    media: [{ id: video }],
  });
  expect((await waitForPost(rest, videoPost)).status).toBe('published');
  const uploads = [...linkedin.uploads.values()];
  expect(uploads.map((u) => [u.kind, u.bytes])).toEqual([
    ['document', pdfBytes().length],
    ['video', mp4Bytes().length],
  ]);
  expect(linkedin.posts).toHaveLength(2);
  expect(JSON.stringify(linkedin.posts[0]!.body)).toContain(uploads[0]!.urn);
  expect(JSON.stringify(linkedin.posts[1]!.body)).toContain(uploads[1]!.urn);
});

it('killed while LinkedIn created the post without answering: after the restart, still one post, the delivery failed with the reason', async () => {
  const { env } = await connected();
  linkedin.kit.hangAfterCreating({ route: '/rest/posts' });
  const first = await startServe(env);
  serves.push(first);
  const rest = restClient(first);
  const postId = await createPost(rest, await collectionId(rest, 'Newsletter'), {
    publishMode: 'IMMEDIATE',
    caption: 'Killed mid-commit',
  });
  for (let i = 0; linkedin.posts.length === 0; i++) {
    if (i > 200) throw new Error('the post was never created');
    await sleep(25);
  }
  await first.kill();
  const second = await startServe(env, first.key);
  serves.push(second);
  const post = await waitForPost(restClient(second), postId, undefined, 20_000);
  expect(linkedin.posts).toHaveLength(1);
  expect(linkedin.kit.requestsTo('/rest/posts', 'POST')).toHaveLength(1);
  expect(post.deliveries[0]).toMatchObject({ status: 'failed' });
  expect(post.deliveries[0]!.reason).toMatch(/unknown|not sent again|check/i);
}, 40_000);

it('X: a poll and its comment as a reply, once each, through serve', async () => {
  const x = await startXServer({ videoProcessingMs: 1_000 });
  try {
    const { env, code, stderr } = await connectOnTerminal({
      app: 'X',
      client: x.signIn.app,
      platform: 'x',
      root: x.url,
      args: ['--collection', 'Newsletter'],
      approve: async (address) => (await approve(address)).redirectedTo,
    });
    expect(code, stderr).toBe(0);
    const serve = await startServe(env);
    serves.push(serve);
    const rest = restClient(serve);
    const postId = await createPost(rest, await collectionId(rest, 'Newsletter'), {
      publishMode: 'IMMEDIATE',
      caption: 'Which roast?',
      poll: { question: 'Which roast?', options: ['Light', 'Dark'], period: '1d' },
      comment: { comment: 'Vote by Friday', delay: 1 },
    });
    const post = await waitForPost(rest, postId);
    expect(post.status).toBe('published');
    const [sent, reply] = x.posts;
    expect(sent).toMatchObject({
      text: 'Which roast?',
      poll: { options: ['Light', 'Dark'], duration_minutes: 1440 },
    });
    expect(reply).toMatchObject({ text: 'Vote by Friday', replyTo: sent!.id });
    expect(x.posts).toHaveLength(2);
    expect(post.deliveries[0]!.url).toBe(`https://x.com/acme/status/${sent!.id}`);
    // A video: chunked upload, X processes it (a second), the engine checks again, then posts it.
    const video = await uploadThroughServe(serve, mp4Bytes(), 'video/mp4', 'roast.mp4');
    const videoPost = await createPost(rest, await collectionId(rest, 'Newsletter'), {
      publishMode: 'IMMEDIATE',
      caption: 'Roasting, live',
      media: [{ id: video }],
    });
    expect((await waitForPost(rest, videoPost, undefined, 20_000)).status).toBe('published');
    expect(x.posts).toHaveLength(3);
    const uploaded = [...x.media.values()];
    expect(uploaded.map((item) => [item.category, item.totalBytes, item.finalized])).toEqual([
      ['tweet_video', mp4Bytes().length, true],
    ]);
    expect(x.posts[2]!.mediaIds).toEqual([uploaded[0]!.id]);
  } finally {
    await x.close();
  }
});

it('Facebook: a Page post with its link and the comment, once each, through serve', async () => {
  const facebook = await startFacebookServer();
  try {
    const page = facebook.portfolio;
    facebook.app.redirectUris.push('http://127.0.0.1:8788/callback');
    const { env, code, stderr } = await connectOnTerminal({
      app: 'FACEBOOK',
      client: facebook.app,
      platform: 'facebook',
      root: facebook.url,
      args: ['--collection', 'Newsletter', '--account', page.id],
    });
    expect(code, stderr).toBe(0);
    const serve = await startServe(env);
    serves.push(serve);
    const rest = restClient(serve);
    const postId = await createPost(rest, await collectionId(rest, 'Newsletter'), {
      publishMode: 'IMMEDIATE',
      caption: 'New roast on the shelf',
      link: 'https://acme.example/roast',
      comment: { comment: 'Open till 6', delay: 1 },
    });
    const post = await waitForPost(rest, postId);
    expect(post.status).toBe('published');
    expect(facebook.posts).toHaveLength(1);
    expect(facebook.posts[0]).toMatchObject({
      pageId: page.id,
      kind: 'feed',
      message: 'New roast on the shelf',
      link: 'https://acme.example/roast',
    });
    expect(facebook.comments).toHaveLength(1);
    expect(facebook.comments[0]).toMatchObject({ objectId: facebook.posts[0]!.id, message: 'Open till 6' });
    expect(post.deliveries[0]!.url).toMatch(/^https:\/\/www\.facebook\.com\//);
  } finally {
    await facebook.close();
  }
});

it('Threads: an uploaded image fetched by Threads from its signed address on serve, published once', async () => {
  const threads = await startThreadsServer();
  try {
    const dataDir = tempDir('spm-publish-threads-');
    const port = await freePort();
    const env = programEnv(dataDir, { SOCIAL_PUBLISHER_PUBLIC_URL: `http://127.0.0.1:${port}` });
    threads.app.redirectUris.push('http://127.0.0.1:8788/callback');
    const connected = await connectOnTerminal({
      app: 'THREADS',
      client: threads.app,
      platform: 'threads',
      root: threads.url,
      args: ['--collection', 'Newsletter'],
      dataDir,
      env,
    });
    expect(connected.code, connected.stderr).toBe(0);
    const serve = await startServe(env, undefined, port);
    serves.push(serve);
    const form = new FormData();
    form.append('media', new Blob([new Uint8Array(pngBytes(9))], { type: 'image/png' }), 'roast.png');
    const uploaded = await fetch(`${serve.url}/v1/brands/1/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.key}` },
      body: form,
    });
    const media = ((await uploaded.json()) as { data: { id: string } }).data;
    const rest = restClient(serve);
    const postId = await createPost(rest, await collectionId(rest, 'Newsletter'), {
      publishMode: 'IMMEDIATE',
      caption: 'Fresh roast',
      media: [{ id: media.id }],
    });
    const post = await waitForPost(rest, postId);
    expect(post.status, JSON.stringify(post.deliveries)).toBe('published');
    // Threads fetched the file itself, from the signed address on serve's public URL.
    const [container] = [...threads.containers.values()];
    expect(container!.mediaUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/media/1\\.`));
    expect(container!.downloaded).toBe(pngBytes(9).length);
    expect(threads.posts).toHaveLength(1);
  } finally {
    await threads.close();
  }
});
