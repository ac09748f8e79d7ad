/**
 * Threads fetches an uploaded image from the bucket: the built `serve`, with object storage
 * (SOCIAL_PUBLISHER_MEDIA_S3_*) and no SOCIAL_PUBLISHER_PUBLIC_URL, keeps the upload in a real S3 server
 * (s3-server.ts, which checks signatures and expiry), pre-flight has nothing to say about Threads, and the
 * Threads stand-in downloads every byte from the object's presigned address before the post is
 * published once; with a public URL set too, the bucket's address is still the one handed out. The
 * bucket's secret appears nowhere in what serve wrote.
 */
import { afterEach, beforeAll, expect, it } from 'vitest';
import { pngBytes } from '../contract/media-files.js';
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
import { startThreadsServer } from '../support/threads-server.js';
import { SECRET_ACCESS_KEY, startS3Server } from './s3-server.js';

const closing: (() => Promise<void>)[] = [];
beforeAll(() => requireBuild());
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  await cleanup();
});

it.each([
  ['without a public URL', false],
  ['with a public URL too (the bucket still serves)', true],
])(
  'Threads: an uploaded image fetched from its presigned bucket address, through serve %s',
  async (_, publicUrl) => {
    const s3 = await startS3Server();
    closing.push(() => s3.close());
    const threads = await startThreadsServer();
    closing.push(() => threads.close());
    const dataDir = tempDir('spm-s3-threads-');
    const port = await freePort();
    const env = programEnv(dataDir, {
      ...s3.env,
      ...(publicUrl ? { SOCIAL_PUBLISHER_PUBLIC_URL: `http://127.0.0.1:${port}` } : {}),
    });
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

    const serve: Serve = await startServe(env, undefined, port);
    closing.push(() => serve.kill());
    const bytes = pngBytes(9);
    const media = { id: await uploadThroughServe(serve, bytes, 'image/png', 'roast.png') };
    expect(await s3.keys()).toEqual([`media/1/${media.id}`]);

    const rest = restClient(serve);
    const newsletter = await collectionId(rest, 'Newsletter');
    const body = { publishMode: 'IMMEDIATE', caption: 'Fresh roast', media: [{ id: media.id }] };
    // Pre-flight: the bucket gives the file a public address, so Threads is not warned.
    const checked = await rest.post<{ warnings?: { message: string }[] }>(
      `/v1/brands/1/collections/${newsletter}/posts`,
      { ...body, dryRun: true },
    );
    expect(JSON.stringify(checked.warnings ?? [])).not.toContain('public address');
    const postId = await createPost(rest, newsletter, body);
    const post = await waitForPost(rest, postId);
    expect(post.status, JSON.stringify(post.deliveries)).toBe('published');
    // Threads fetched the file itself, every byte, from the object's presigned address in the bucket.
    const [container] = [...threads.containers.values()];
    expect(container!.mediaUrl).toMatch(
      new RegExp(
        `^${s3.endpoint}/${s3.bucket}/media/1/${media.id}\\?.*X-Amz-Expires=3600&.*X-Amz-Signature=`,
      ),
    );
    expect(container!.downloaded).toBe(bytes.length);
    expect(threads.posts).toHaveLength(1);
    expect(serve.stderr() + connected.stderr).not.toContain(SECRET_ACCESS_KEY);
  },
);
