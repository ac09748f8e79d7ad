/**
 * A post's media as connectors get it (src/publish/media-loader.ts): a source read from disk, never
 * whole in memory. An uploaded file is opened where the media store keeps it; a URL is downloaded to a
 * temporary file (at most 100 MB, its type read from its first bytes) that is deleted when the connector
 * releases it, or, if it does not, when the connector closes (channel-connectors.ts).
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/domain/errors.js';
import type { MediaDownloader, MediaRecord, Store } from '../../src/ports.js';
import {
  heldMedia,
  mediaFromBytes,
  mediaLoader,
  storeMediaAddresses,
} from '../../src/publish/media-loader.js';
import { FakeClock } from '../support/fake-clock.js';
import { makeTempDir } from '../support/temp-dirs.js';

const MP4_HEAD = Buffer.from('000000186674797069736f6d0000020069736f6d6d703432', 'hex');
const PNG = Buffer.from('89504e470d0a1a0a0000000d494844520000000100000001', 'hex');

function storeWith(record: MediaRecord): Store {
  return { findMedia: async () => [record] } as unknown as Store;
}

function downloaderOf(chunks: () => AsyncIterable<Uint8Array>, opened: string[] = []): MediaDownloader {
  return {
    open: async (url) => {
      opened.push(url);
      return { body: chunks(), announcedBytes: undefined };
    },
  };
}

const downloads = () => readdirSync(tmpdir()).filter((name) => name.startsWith('social-publisher-media-'));

describe('an uploaded file', () => {
  it('is opened on disk: its size, a range read lazily, the whole as a Blob', async () => {
    const dir = makeTempDir();
    const path = join(dir, 'med_1');
    writeFileSync(path, Buffer.concat([MP4_HEAD, Buffer.alloc(1000, 7)]));
    const record: MediaRecord = {
      id: 'med_1',
      brandId: 1,
      type: 'video/mp4',
      size: MP4_HEAD.length + 1000,
      sha256: '',
      path,
      createdAtMs: 0,
      durationMs: null,
    };
    const source = await mediaLoader(storeWith(record), undefined, undefined)(1, { id: 'med_1' });
    expect({ type: source.type, name: source.name, size: source.size }).toEqual({
      type: 'video/mp4',
      name: 'med_1.mp4',
      size: record.size,
    });
    expect(Buffer.from(await source.range(4, 8)).toString('latin1')).toBe('ftyp');
    const blob = await source.blob();
    expect(blob.type).toBe('video/mp4');
    expect(Buffer.from(await blob.arrayBuffer()).subarray(0, MP4_HEAD.length)).toEqual(MP4_HEAD);
    await source.release();
    expect(existsSync(path)).toBe(true);
  });

  it("is the media store's own Blob, by brand and id, whatever path is stored with it, released once", async () => {
    const record: MediaRecord = {
      id: 'med_2',
      brandId: 3,
      type: 'image/png',
      size: PNG.length,
      sha256: '',
      path: '/mounted/elsewhere/3/med_2',
      createdAtMs: 0,
      durationMs: null,
    };
    const asked: string[] = [];
    const opened = await mediaLoader(
      storeWith(record),
      {
        open: async (brandId, id, type) => {
          asked.push(`open ${brandId}/${id} ${type}`);
          return { blob: new Blob([PNG], { type }), release: async () => void asked.push('release') };
        },
      },
      undefined,
    )(3, { id: 'med_2' });
    expect(opened.size).toBe(PNG.length);
    expect(Buffer.from(await opened.range(0, opened.size))).toEqual(PNG);
    expect(asked).toEqual(['open 3/med_2 image/png']);
    await opened.release();
    await opened.release();
    expect(asked).toEqual(['open 3/med_2 image/png', 'release']);
  });
});

describe('a URL', () => {
  it('is downloaded to a temporary file, typed from its first bytes, and deleted on release', async () => {
    const before = downloads();
    const opened: string[] = [];
    const chunks = async function* () {
      yield MP4_HEAD.subarray(0, 5);
      yield MP4_HEAD.subarray(5);
      for (let i = 0; i < 16; i++) yield Buffer.alloc(64 * 1024, i);
    };
    const load = mediaLoader(storeWith({} as MediaRecord), undefined, downloaderOf(chunks, opened));
    const source = await load(1, { url: 'https://cdn.example/clips/roast' });
    expect(opened).toEqual(['https://cdn.example/clips/roast']);
    expect({ type: source.type, name: source.name, size: source.size }).toEqual({
      type: 'video/mp4',
      name: 'roast.mp4',
      size: MP4_HEAD.length + 16 * 64 * 1024,
    });
    const made = downloads().filter((name) => !before.includes(name));
    expect(made).toHaveLength(1);
    expect(Buffer.from(await source.range(MP4_HEAD.length, MP4_HEAD.length + 3))).toEqual(Buffer.alloc(3, 0));
    await source.release();
    await source.release();
    expect(existsSync(join(tmpdir(), made[0]!))).toBe(false);
  });

  it('keeps the name the URL gives, and refuses more than 100 MB, leaving no file', async () => {
    const before = downloads();
    const named = await mediaLoader(
      storeWith({} as MediaRecord),
      undefined,
      downloaderOf(async function* () {
        yield PNG;
      }),
    )(1, { url: 'https://cdn.example/a/beans.png?size=large' });
    expect({ type: named.type, name: named.name }).toEqual({ type: 'image/png', name: 'beans.png' });
    await named.release();

    const endless = async function* () {
      for (let i = 0; i < 101; i++) yield Buffer.alloc(1024 * 1024);
    };
    const load = mediaLoader(storeWith({} as MediaRecord), undefined, downloaderOf(endless));
    await expect(load(1, { url: 'https://cdn.example/huge.mp4' })).rejects.toThrow(
      'The media at https://cdn.example/huge.mp4 is larger than 100 MB.',
    );
    expect(downloads().filter((name) => !before.includes(name))).toEqual([]);
  });

  it("passes on the downloader's refusal (a private address) as it is", async () => {
    const refusing: MediaDownloader = {
      open: async () => {
        throw ValidationError.single('media.0.url', 'The media.0.url points to a private address.');
      },
    };
    await expect(
      mediaLoader(storeWith({} as MediaRecord), undefined, refusing)(1, { url: 'http://10.0.0.1/a.png' }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});

it('a source over bytes in memory reads like one on disk', async () => {
  const source = mediaFromBytes(PNG, 'image/png', 'a.png');
  expect(source.size).toBe(PNG.length);
  expect(Buffer.from(await source.range(1, 4)).toString('latin1')).toBe('PNG');
  expect((await source.blob()).type).toBe('image/png');
});

it('what a connector was handed and did not release is released when it closes (heldMedia)', async () => {
  const released: string[] = [];
  const held = heldMedia(async (_brandId, media) => {
    const source = mediaFromBytes(PNG, 'image/png', `${media.id}.png`);
    return { ...source, release: async () => void released.push(media.id!) };
  });
  const kept = await held.loadMedia(1, { id: 'kept' });
  const done = await held.loadMedia(1, { id: 'done' });
  expect(Buffer.from(await kept.range(0, 4))).toEqual(PNG.subarray(0, 4));
  await done.release();
  expect(released).toEqual(['done']);
  await held.releaseAll();
  expect(released).toEqual(['done', 'kept']);
  await held.releaseAll();
  expect(released).toEqual(['done', 'kept']);
});

describe("the media store's own public addresses (object storage)", () => {
  it('presign an uploaded file for an hour from now, pass a URL as given, and are none without presign', async () => {
    const clock = new FakeClock(1_000_000);
    const asked: string[] = [];
    const addresses = storeMediaAddresses(
      {
        presign: async (brandId, mediaId, expiresAtMs) => {
          asked.push(`${brandId}/${mediaId} until ${expiresAtMs}`);
          return `https://bucket.example/${mediaId}?signed`;
        },
      },
      clock,
    )!;
    expect(await addresses(3, { id: 'med_1' })).toBe('https://bucket.example/med_1?signed');
    expect(await addresses(3, { url: 'https://cdn.example/a.png' })).toBe('https://cdn.example/a.png');
    expect(asked).toEqual([`3/med_1 until ${1_000_000 + 60 * 60_000}`]);
    expect(storeMediaAddresses({}, clock)).toBeUndefined();
    expect(storeMediaAddresses(undefined, clock)).toBeUndefined();
  });
});
