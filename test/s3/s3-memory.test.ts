/**
 * Object storage streams, never holding a file whole: a 100 MiB video uploaded (staged to disk, PUT to
 * the bucket from the staged file, copied to its key) and read back (streamed from the bucket into a
 * local file, then read as a Blob) grows this process's memory far less than the file: under 30 MiB.
 * The S3 server runs in a process of its own (s3-server.ts), so the figures are the store's alone.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type LocalRuntime, openLocalRuntime } from '../../src/local-runtime.js';
import { storeMedia } from '../../src/service/upload-media.js';
import { mp4Bytes } from '../contract/media-files.js';
import { FakeClock } from '../support/fake-clock.js';
import { growthDuring } from '../support/memory-growth.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { type S3Server, startS3Server } from './s3-server.js';

const MIB = 1024 * 1024;
const LIMIT_BYTES = 30 * MIB;
const CHUNK = Buffer.alloc(256 * 1024, 3);

let s3: S3Server;
let runtime: LocalRuntime;
beforeEach(async () => {
  s3 = await startS3Server();
  runtime = await openLocalRuntime(
    { dataDir: makeTempDir('spm-s3-memory-'), demo: true, mediaBucket: s3.config },
    { clock: new FakeClock(Date.now()) },
  );
});
afterEach(async () => {
  await runtime.close();
  await s3.close();
});

/** An MP4 of `size` bytes, made as it is read. */
async function* video(size: number): AsyncIterable<Uint8Array> {
  const head = mp4Bytes();
  yield head;
  for (let sent = head.length; sent < size; sent += CHUNK.length) {
    yield CHUNK.subarray(0, Math.min(CHUNK.length, size - sent));
  }
}

/** Reads a Blob to its end, hashing it. */
async function digest(blob: Blob): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of blob.stream() as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

it('uploads a 100 MiB video to the bucket and reads it back with memory growth far below its size', async () => {
  // Warm up: the first transfer sets up what every later one reuses.
  const warm = await storeMedia(runtime, 1, video(16 * MIB));
  await digest((await runtime.media.open(1, warm.id, 'video/mp4')).blob);

  const size = 100 * MIB;
  let stored: Awaited<ReturnType<typeof storeMedia>> | undefined;
  let read: { size: number; sha256: string } | undefined;
  const growth = await growthDuring(async () => {
    stored = await storeMedia(runtime, 1, video(size));
    const opened = await runtime.media.open(1, stored.id, 'video/mp4');
    read = await digest(opened.blob);
    await opened.release();
  });
  const mib = (bytes: number) => (bytes / MIB).toFixed(1);
  process.stderr.write(
    `object storage: ${mib(size)} MiB up and back; RSS grew ${mib(growth.rss)} MiB, heap and buffers ${mib(growth.heap)} MiB\n`,
  );
  expect(stored!.size).toBe(size);
  expect((await s3.keys()).sort()).toEqual([`media/1/${stored!.id}`, `media/1/${warm.id}`].sort());
  // The bytes came back from the bucket as they went up.
  const [record] = await runtime.store.findMedia(1, [stored!.id]);
  expect(read).toEqual({ size, sha256: record!.sha256 });
  expect(growth.rss).toBeLessThan(LIMIT_BYTES);
  expect(growth.heap).toBeLessThan(LIMIT_BYTES);
}, 180_000);
