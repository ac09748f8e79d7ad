/**
 * A process killed while it sends an upload to the bucket leaves no file under any media key and no
 * media: the built `serve` with object storage, reached through a loopback relay, is SIGKILLed once
 * the relay has carried 4 MiB of a 24 MiB video's PUT. The bucket holds nothing under `media/`;
 * restarted, the same file uploaded again is kept whole under a media id of its own.
 */
import { afterEach, beforeAll, expect, it } from 'vitest';
import { mp4Bytes } from '../contract/media-files.js';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import { programEnv, startServe, uploadMedia } from '../support/connected-program.js';
import { relayTo, startS3Server } from './s3-server.js';

const MIB = 1024 * 1024;
const closing: (() => Promise<void>)[] = [];
beforeAll(() => requireBuild());
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  await cleanup();
});

it('serve killed mid-PUT to the bucket: nothing under media/, and the same file again is kept whole', async () => {
  const s3 = await startS3Server();
  closing.push(() => s3.close());
  const relay = await relayTo(s3.endpoint);
  closing.push(() => relay.close());
  const env = programEnv(tempDir('spm-s3-killed-'), {
    ...s3.env,
    SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT: relay.endpoint,
  });
  const serve = await startServe(env);
  closing.push(() => serve.kill());
  relay.onSent((total) => {
    if (total > 4 * MIB && serve.child.exitCode === null && serve.child.signalCode === null) {
      serve.child.kill('SIGKILL');
    }
  });
  const video = Buffer.alloc(24 * MIB, 9);
  mp4Bytes().copy(video);
  const answer = await uploadMedia(serve, video, 'video/mp4', 'roast.mp4').catch((error: Error) => error);
  expect(answer).toBeInstanceOf(Error);
  await serve.kill();
  expect(serve.child.signalCode).toBe('SIGKILL');
  // Killed in the middle of the PUT: the bucket had part of the file.
  expect(relay.sentBytes()).toBeGreaterThan(4 * MIB);
  expect(relay.sentBytes()).toBeLessThan(video.length);
  expect((await s3.keys()).filter((key) => key.startsWith('media/'))).toEqual([]);

  // The same file again: kept whole under a media id of its own (a row left by the killed upload would
  // be answered instead, naming an object the bucket does not hold).
  const again = await startServe(env, serve.key);
  closing.push(() => again.kill());
  const kept = await uploadMedia(again, video, 'video/mp4', 'roast.mp4');
  expect(kept.status).toBe(201);
  const media = ((await kept.json()) as { data: { id: string; size: number } }).data;
  expect(media.size).toBe(video.length);
  expect((await s3.keys()).filter((key) => key.startsWith('media/'))).toEqual([`media/1/${media.id}`]);
});
