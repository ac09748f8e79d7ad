/**
 * A post's media for a connector that uploads it, as a source read from disk, never whole in memory: a
 * file uploaded to the brand is opened in the media directory (`fs.openAsBlob`: undici streams it as a
 * multipart part, `slice` reads a range lazily); a public URL is downloaded (with the same guards as an
 * upload by URL: no private addresses, at most 100 MB) to a temporary file, read the same way and
 * deleted when the connector releases it. The type is detected from the first bytes, as for an upload.
 */
import { once } from 'node:events';
import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { PlatformMedia } from '../domain/delivery.js';
import { MEDIA_ADDRESS_TTL_MS } from '../media/public-addresses.js';
import type { Clock, MediaDownloader, MediaRecord, MediaStore, OpenedMedia, Store } from '../ports.js';
import { detectType } from '../service/upload-media.js';
import type { MediaSource } from './connector.js';

const MAX_BYTES = 104_857_600;
/** Enough leading bytes for the type sniffer. */
const HEAD_BYTES = 4100;
const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'application/pdf': 'pdf',
};

/** A source over a Blob (a file on disk, or bytes); `release` runs once, on the first call. */
export function mediaFromBlob(
  blob: Blob,
  file: { type: string; name: string },
  release: () => Promise<void> = async () => {},
): MediaSource {
  let released: Promise<void> | undefined;
  return {
    type: file.type,
    name: file.name,
    size: blob.size,
    blob: async () => blob,
    range: async (start, endExclusive) => new Uint8Array(await blob.slice(start, endExclusive).arrayBuffer()),
    release: () => {
      released ??= release();
      return released;
    },
  };
}

/** A source over bytes already in memory (small files, tests). */
export function mediaFromBytes(bytes: Uint8Array, type: string, name: string): MediaSource {
  return mediaFromBlob(new Blob([bytes], { type }), { type, name });
}

type LoadMedia = (brandId: number, media: PlatformMedia) => Promise<MediaSource>;

/**
 * `loadMedia` that keeps what it handed out until released, and `releaseAll` for what was not: a
 * connector's media are released when it closes (a downloaded file deleted), whatever it forgot.
 */
export function heldMedia(loadMedia: LoadMedia): { loadMedia: LoadMedia; releaseAll(): Promise<void> } {
  const held = new Set<MediaSource>();
  return {
    loadMedia: async (brandId, element) => {
      const source = await loadMedia(brandId, element);
      held.add(source);
      const { type, name, size } = source;
      return {
        type,
        name,
        size,
        blob: () => source.blob(),
        range: (start, endExclusive) => source.range(start, endExclusive),
        release: async () => {
          held.delete(source);
          await source.release();
        },
      };
    },
    releaseAll: async () => {
      const all = [...held];
      held.clear();
      await Promise.all(all.map((source) => source.release()));
    },
  };
}

export function mediaLoader(
  store: Store,
  files: Pick<MediaStore, 'open'> | undefined,
  downloader: MediaDownloader | undefined,
): LoadMedia {
  return async (brandId: number, media: PlatformMedia): Promise<MediaSource> => {
    if (media.id !== undefined) {
      const [record] = await store.findMedia(brandId, [media.id]);
      if (!record) throw new Error(`The media ${media.id} no longer exists.`);
      const name = `${record.id}.${EXTENSIONS[record.type] ?? 'bin'}`;
      const opened = await storedMedia(record, files);
      return mediaFromBlob(opened.blob, { type: record.type, name }, opened.release);
    }
    if (!media.url || !downloader) throw new Error('The media element has neither an id nor a URL to read.');
    return download(media.url, downloader);
  };
}

/**
 * An uploaded file, by brand and media id in this process's media store (another instance sharing a
 * media directory may mount it elsewhere than the path stored with the media), read as it is consumed;
 * without a media store (tests of the engine alone), the stored path.
 */
async function storedMedia(
  record: MediaRecord,
  files: Pick<MediaStore, 'open'> | undefined,
): Promise<OpenedMedia> {
  if (files) return files.open(record.brandId, record.id, record.type);
  return { blob: await openAsBlob(record.path, { type: record.type }), release: async () => {} };
}

/**
 * Where the media store hands out addresses of its own (object storage: presigned, expiring, one file
 * each), the public address of a post's media element: an uploaded file's, or the URL it was given as.
 */
export function storeMediaAddresses(
  files: Pick<MediaStore, 'presign'> | undefined,
  clock: Clock,
): ((brandId: number, media: PlatformMedia) => Promise<string | undefined>) | undefined {
  const presign = files?.presign?.bind(files);
  if (!presign) return undefined;
  return async (brandId, media) =>
    media.id ? presign(brandId, media.id, clock.now() + MEDIA_ADDRESS_TTL_MS) : media.url;
}

/** Downloads a URL to a temporary file, refusing more than 100 MB; the source deletes it on release. */
async function download(url: string, downloader: MediaDownloader): Promise<MediaSource> {
  const opened = await downloader.open(url);
  const directory = await mkdtemp(join(tmpdir(), 'social-publisher-media-'));
  const remove = () => rm(directory, { recursive: true, force: true });
  try {
    const path = join(directory, 'download');
    const out = createWriteStream(path);
    const head: Uint8Array[] = [];
    let size = 0;
    try {
      for await (const chunk of opened.body) {
        size += chunk.length;
        if (size > MAX_BYTES) throw new Error(`The media at ${url} is larger than 100 MB.`);
        if (size - chunk.length < HEAD_BYTES) head.push(chunk);
        if (!out.write(chunk)) await once(out, 'drain');
      }
    } finally {
      out.end();
      await finished(out).catch(() => undefined);
    }
    const type =
      (await detectType(Buffer.concat(head).subarray(0, HEAD_BYTES))) ?? 'application/octet-stream';
    const last = new URL(url).pathname.split('/').pop() || 'media';
    const name = last.includes('.') ? last : `${last}.${EXTENSIONS[type] ?? 'bin'}`;
    return mediaFromBlob(await openAsBlob(path, { type }), { type, name }, remove);
  } catch (error) {
    await remove();
    throw error;
  }
}
