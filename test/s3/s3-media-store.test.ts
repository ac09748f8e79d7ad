/**
 * Uploaded media in S3-compatible object storage (SOCIAL_PUBLISHER_MEDIA_S3_*), against a real S3 server
 * that checks every signature and the expiry of presigned addresses (s3-server.ts): an upload lands in
 * the bucket whole, under its brand and media id; its presigned address serves that object only, for as
 * long as it was signed for; a refused upload and one whose PUT is cut leave nothing in the bucket; a
 * read streams the object into a local file that its release deletes; a wrong secret is refused with
 * the storage's reason and never shown.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MediaStorageError, type ValidationError } from '../../src/domain/errors.js';
import { message } from '../../src/domain/messages.js';
import { type LocalRuntime, openLocalRuntime } from '../../src/local-runtime.js';
import { storeMedia } from '../../src/service/upload-media.js';
import { mp4Bytes, pngBytes } from '../contract/media-files.js';
import { FakeClock } from '../support/fake-clock.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { type Relay, relayTo, type S3Server, startS3Server } from './s3-server.js';

const BRAND = 1;
let s3: S3Server;
let runtime: LocalRuntime | undefined;
let relay: Relay | undefined;
let clock: FakeClock;

beforeEach(async () => {
  s3 = await startS3Server();
  clock = new FakeClock(Date.now());
});
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
  await relay?.close();
  relay = undefined;
  await s3.close();
});

async function open(config = s3.config): Promise<LocalRuntime & { dataDir: string }> {
  const dataDir = makeTempDir('spm-s3-data-');
  runtime = await openLocalRuntime({ dataDir, demo: true, mediaBucket: config }, { clock });
  return { ...runtime, dataDir };
}

async function* chunks(bytes: Buffer, size = 64 * 1024): AsyncIterable<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** A file that reads as an MP4: its head, then `size` bytes in all. */
function video(size: number): Buffer {
  const bytes = Buffer.alloc(size, 7);
  mp4Bytes().copy(bytes);
  return bytes;
}

describe('an upload', () => {
  it('is kept in the bucket whole, under media/<brand>/<id>, and not in the media directory', async () => {
    const rt = await open();
    const bytes = pngBytes(3);
    const media = await storeMedia(rt, BRAND, chunks(bytes));
    // The upload key is gone once copied.
    expect(await s3.keys()).toEqual([`media/${BRAND}/${media.id}`]);
    const [record] = await rt.store.findMedia(BRAND, [media.id]);
    expect(record!.path).toBe(`s3://${s3.bucket}/media/${BRAND}/${media.id}`);
    expect(readdirSync(join(rt.dataDir, 'media', 'staging'))).toEqual([]);
    expect(readdirSync(join(rt.dataDir, 'media'))).toEqual(['staging']);
    // Served as stored, with its detected type.
    const address = await rt.media.presign!(BRAND, media.id, clock.now() + 60_000);
    const served = await fetch(address);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(bytes);
    expect(rt.publicMedia).toBe(true);
  });

  it('refused (not a media type, too large) leaves nothing in the bucket nor staged', async () => {
    const rt = await open();
    const refused = (bytes: Buffer) =>
      storeMedia(rt, BRAND, chunks(bytes, 1024 * 1024)).catch((error: ValidationError) => error.errors);
    expect(await refused(Buffer.from('just some text, not an image'))).toEqual({
      media: [message.mediaType],
    });
    expect(await refused(video(104_857_601))).toEqual({ media: [message.mediaTooLarge] });
    expect(await s3.keys()).toEqual([]);
    expect(readdirSync(join(rt.dataDir, 'media', 'staging'))).toEqual([]);
  });

  it('whose PUT is cut mid-transfer fails naming the bucket, leaves nothing readable and no media', async () => {
    relay = await relayTo(s3.endpoint);
    const rt = await open({ ...s3.config, endpoint: relay.endpoint });
    const size = 24 * 1024 * 1024;
    let cut = false;
    relay.onSent((total) => {
      if (cut || total < 4 * 1024 * 1024) return;
      cut = true;
      relay!.cut();
    });
    const upload = storeMedia(rt, BRAND, chunks(video(size)));
    // The service's media storage fault (503), its reason naming the bucket for the operator's log.
    await expect(upload).rejects.toMatchObject({
      name: 'MediaStorageError',
      status: 503,
      reason: expect.stringMatching(
        /^Cannot reach the media bucket http:\/\/127\.0\.0\.1:\d+ \(bucket spm-media\)/,
      ),
    });
    // The server got part of it, under an upload key that names no media: nothing under media/.
    expect(relay.sentBytes()).toBeGreaterThan(4 * 1024 * 1024);
    expect(relay.sentBytes()).toBeLessThan(size);
    expect((await s3.keys()).filter((key) => key.startsWith('media/'))).toEqual([]);
    expect(
      await rt.store.findMediaByHash(BRAND, createHash('sha256').update(video(size)).digest('hex')),
    ).toBeUndefined();
    expect(readdirSync(join(rt.dataDir, 'media', 'staging'))).toEqual([]);
  });
});

describe('a presigned address', () => {
  it('serves its one object, and no other object with the same signature', async () => {
    const rt = await open();
    const first = await storeMedia(rt, BRAND, chunks(pngBytes(1)));
    const second = await storeMedia(rt, BRAND, chunks(pngBytes(2)));
    const address = await rt.media.presign!(BRAND, first.id, clock.now() + 60_000);
    expect(address).toMatch(new RegExp(`^${s3.endpoint}/${s3.bucket}/media/1/${first.id}\\?`));
    expect(address).toContain('X-Amz-Expires=60&');
    expect((await fetch(address)).status).toBe(200);
    const swapped = await fetch(address.replace(first.id, second.id));
    expect(swapped.status).toBe(403);
    expect(await swapped.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    // Nor a longer life than signed for.
    const longer = await fetch(address.replace('X-Amz-Expires=60', 'X-Amz-Expires=600'));
    expect(longer.status).toBe(403);
  });

  it('stops working once the time it was signed for has passed', async () => {
    const rt = await open();
    const media = await storeMedia(rt, BRAND, chunks(pngBytes(4)));
    // Signed two hours ago for one hour (MEDIA_ADDRESS_TTL_MS), as the engine signs.
    clock.set(Date.now() - 2 * 60 * 60_000);
    const stale = await rt.media.presign!(BRAND, media.id, clock.now() + 60 * 60_000);
    expect(stale).toContain('X-Amz-Expires=3600&');
    const refused = await fetch(stale);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Request has expired');
    // Signed a minute ago for one hour: still good.
    clock.set(Date.now() - 60_000);
    expect((await fetch(await rt.media.presign!(BRAND, media.id, clock.now() + 60 * 60_000))).status).toBe(
      200,
    );
  });
});

describe('reading and removing', () => {
  it('open streams the object into a local file, read as a Blob, which release deletes', async () => {
    const rt = await open();
    const bytes = video(3 * 1024 * 1024 + 17);
    const media = await storeMedia(rt, BRAND, chunks(bytes));
    const opened = await rt.media.open(BRAND, media.id, 'video/mp4');
    const staging = join(rt.dataDir, 'media', 'staging');
    expect(readdirSync(staging)).toHaveLength(1);
    expect(opened.blob.size).toBe(bytes.length);
    expect(opened.blob.type).toBe('video/mp4');
    expect(Buffer.from(await opened.blob.slice(1_000_000, 1_000_100).arrayBuffer())).toEqual(
      bytes.subarray(1_000_000, 1_000_100),
    );
    await opened.release();
    expect(readdirSync(staging)).toEqual([]);
  });

  it('open of an object the bucket does not hold fails with the storage reason, leaving no file', async () => {
    const rt = await open();
    await expect(rt.media.open(BRAND, 'med_gone', 'image/png')).rejects.toThrow(
      /media bucket .* refused to read media\/1\/med_gone: NoSuchKey/,
    );
    expect(readdirSync(join(rt.dataDir, 'media', 'staging'))).toEqual([]);
  });

  it('remove deletes the object; an unknown path is ignored', async () => {
    const rt = await open();
    const media = await storeMedia(rt, BRAND, chunks(pngBytes(5)));
    await rt.media.remove('/not/an/object');
    expect(await s3.keys()).toHaveLength(1);
    await rt.media.remove(`s3://${s3.bucket}/media/${BRAND}/${media.id}`);
    expect(await s3.keys()).toEqual([]);
  });
});

it('a wrong secret is refused with the storage reason, and the secret is in no message', async () => {
  const secret = 'wrong-secret-that-must-not-leak';
  const rt = await open({ ...s3.config, secretAccessKey: secret });
  const failure = await storeMedia(rt, BRAND, chunks(pngBytes(6))).catch((error: Error) => error);
  expect(failure).toBeInstanceOf(Error);
  const fault = failure as MediaStorageError;
  expect(fault).toBeInstanceOf(MediaStorageError);
  expect(fault.reason).toMatch(/refused to store uploads\/[0-9a-f]{32}: SignatureDoesNotMatch/);
  expect(
    JSON.stringify([fault.message, fault.reason, fault.stack, (fault.cause as Error).message]),
  ).not.toContain(secret);
  expect(await s3.keys()).toEqual([]);
});
