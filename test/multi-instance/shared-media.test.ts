/**
 * Media across instances sharing one data directory on a shared volume, each reaching it by a path of its
 * own. While an upload to instance A is still arriving, nothing of it can be seen: no media row, no file
 * where stored media live (only a staging file). Once answered, the file is whole in its place. Then A
 * stops, the path A stored with the media is made to lead nowhere, and instance B publishes a post with
 * that media to a connected Telegram channel (a stand-in here): B reads the file under its own path to
 * the volume, and the platform receives every byte.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { pngBytes } from '../contract/media-files.js';
import { cleanup, runMain } from '../mcp/cli-harness.js';
import { CHANNEL, startTelegramServer } from '../support/telegram-server.js';
import { createPost, sleep, startCluster, usePostgresServer } from './cluster.js';

const postgres = usePostgresServer();
afterEach(cleanup);

/** A PNG of about 2 MB (trailing bytes after IEND: the type is read from the head). */
const FILE = Buffer.concat([pngBytes(3), Buffer.alloc(2 * 1024 * 1024, 7)]);

/** Starts a multipart upload of FILE to `url` and sends its first `headBytes`; `finish()` sends the rest. */
function startUpload(url: string, apiKey: string, headBytes: number) {
  const boundary = 'spm-boundary-7d3c';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="media"; filename="roast.png"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    FILE,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  let answer: (value: { status: number; body: string }) => void = () => undefined;
  const answered = new Promise<{ status: number; body: string }>((resolve) => {
    answer = resolve;
  });
  const req = request(`${url}/v1/brands/1/media`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(body.length),
    },
  });
  req.on('response', (res) => {
    let text = '';
    res.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    res.on('end', () => answer({ status: res.statusCode ?? 0, body: text }));
  });
  req.write(body.subarray(0, headBytes));
  return {
    finish() {
      req.end(body.subarray(headBytes));
      return answered;
    },
  };
}

it('shows no part of an upload until it is whole; another instance publishes it from its own path to the volume', async () => {
  const telegram = await startTelegramServer();
  const cluster = await startCluster(postgres(), { instances: 2 });
  const [a, b] = [cluster.instances[0]!, cluster.instances[1]!];
  try {
    const connected = await runMain(
      [
        'connect',
        'telegram',
        '--brand',
        'Acme',
        '--chat',
        `@${CHANNEL.username}`,
        '--api-root',
        telegram.url,
        '--token-env',
        'TELEGRAM_TOKEN',
        '--collection',
        'All',
      ],
      { ...cluster.env, SOCIAL_PUBLISHER_DATA_DIR: a.dataDir, TELEGRAM_TOKEN: telegram.token },
    );
    expect(connected.code, connected.stderr).toBe(0);

    const media = join(cluster.sharedDir, 'media');
    const upload = startUpload(a.url, cluster.apiKey, 1024 * 1024);
    // Half of it has arrived: staged, and nothing else.
    const deadline = Date.now() + 10_000;
    const staged = () => readdirSync(join(media, 'staging')).map((name) => join(media, 'staging', name));
    while (!staged().some((path) => statSync(path).size > 0) && Date.now() < deadline) await sleep(20);
    expect(staged().map((path) => statSync(path).size)).toEqual([expect.any(Number)]);
    expect(statSync(staged()[0]!).size).toBeLessThan(FILE.length);
    expect(existsSync(join(media, '1'))).toBe(false);
    expect(await cluster.query('SELECT id FROM media')).toEqual([]);

    const answered = await upload.finish();
    expect(answered.status, answered.body).toBe(201);
    const { id, size } = (JSON.parse(answered.body) as { data: { id: string; size: number } }).data;
    expect(size).toBe(FILE.length);
    expect(statSync(join(media, '1', id)).size).toBe(FILE.length);
    expect(staged()).toEqual([]);
    const [row] = await cluster.query<{ path: string }>('SELECT path FROM media WHERE id = $1', [id]);
    expect(row!.path.startsWith(a.dataDir)).toBe(true);

    // A is gone, and so is its path to the volume: B must find the file under its own.
    await a.stop();
    rmSync(a.dataDir);
    const postId = await createPost(
      b.url,
      cluster.apiKey,
      { publishMode: 'IMMEDIATE', caption: 'New roast', media: [{ id }] },
      'with-media',
    );
    const settled = async () =>
      (await cluster.query<{ status: string }>('SELECT status FROM posts WHERE id = $1', [postId]))[0]!
        .status;
    while ((await settled()) === 'publishing' && Date.now() < deadline + 20_000) await sleep(50);
    expect(await settled()).toBe('published');
    expect(telegram.messages).toMatchObject([
      { kind: 'photo', caption: 'New roast', file: { type: 'image/png', size: FILE.length } },
    ]);
  } finally {
    await cluster.stopAll();
    await telegram.close();
  }
}, 60_000);
