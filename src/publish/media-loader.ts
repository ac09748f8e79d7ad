/**
 * Reads a post's media for a connector that uploads it: a file uploaded to the brand (from the media
 * directory), or a public URL (downloaded with the same guards as an upload by URL: no private
 * addresses, at most 100 MB). The type is detected from the bytes, as for an upload.
 */
import { readFile } from 'node:fs/promises';
import type { PlatformMedia } from '../domain/delivery.js';
import type { MediaDownloader, MediaStore, Store } from '../ports.js';
import { detectType } from '../service/upload-media.js';
import type { LoadedMedia } from './connector.js';

const MAX_BYTES = 104_857_600;
const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'application/pdf': 'pdf',
};

export function mediaLoader(
  store: Store,
  files: Pick<MediaStore, 'read'> | undefined,
  downloader: MediaDownloader | undefined,
) {
  return async (brandId: number, media: PlatformMedia): Promise<LoadedMedia> => {
    if (media.id !== undefined) {
      const [record] = await store.findMedia(brandId, [media.id]);
      if (!record) throw new Error(`The media ${media.id} no longer exists.`);
      // Under this process's media directory: another instance sharing it may mount it elsewhere.
      const bytes = files ? await files.read(brandId, record.id) : await readFile(record.path);
      return { bytes, type: record.type, name: `${record.id}.${EXTENSIONS[record.type] ?? 'bin'}` };
    }
    if (!media.url || !downloader) throw new Error('The media element has neither an id nor a URL to read.');
    const download = await downloader.open(media.url);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of download.body) {
      size += chunk.length;
      if (size > MAX_BYTES) throw new Error(`The media at ${media.url} is larger than 100 MB.`);
      chunks.push(chunk);
    }
    const bytes = Buffer.concat(chunks);
    const type = (await detectType(bytes)) ?? 'application/octet-stream';
    const last = new URL(media.url).pathname.split('/').pop() || 'media';
    return { bytes, type, name: last.includes('.') ? last : `${last}.${EXTENSIONS[type] ?? 'bin'}` };
  };
}
