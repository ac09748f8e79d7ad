/**
 * A video's way to TikTok by FILE_UPLOAD (developers.tiktok.com/doc/content-posting-api-media-transfer-
 * guide): the chunks init announces, then each chunk PUT in order to the upload address with its
 * Content-Range, its bytes read from disk as they are sent (never the whole file, never a whole chunk).
 *
 * TikTok's chunk rules: `total_chunk_count` = floor(video_size / chunk_size); each chunk 5 to 64 MB but
 * the last, which takes the remaining bytes and may reach 128 MB; a file under 5 MB goes as one chunk
 * of its own size; a file over 64 MB in several; 1 to 1,000 chunks; sequential. Whether TikTok's MB is
 * 10^6 or 2^20 bytes is not said: the chunks here fit both readings (10,000,000 bytes, TikTok's own
 * example; more only for a file that would need over 1,000 chunks).
 */
import { Readable } from 'node:stream';
import type { MediaSource } from '../../connector.js';
import type { TikTokApi } from './tiktok-api.js';

/** The chunk size sent: TikTok's example, between 5 MB and 64 MB whichever way MB is counted. */
export const TIKTOK_CHUNK_BYTES = 10_000_000;
/** The largest chunk but the last, counted the smaller way (64 × 10^6 bytes). */
export const TIKTOK_MAX_CHUNK_BYTES = 64_000_000;
export const TIKTOK_MAX_CHUNKS = 1_000;
/** How much of a chunk is read from disk at a time while it is sent. */
const PIECE_BYTES = 1024 * 1024;

export interface ChunkPlan {
  chunkSize: number;
  totalChunkCount: number;
  /** `[first byte, end (exclusive)]` of each chunk, in order. */
  chunks: [number, number][];
}

/** The chunks of a file of `size` bytes, as init announces them and the PUTs send them. */
export function chunkPlan(size: number): ChunkPlan {
  if (!Number.isSafeInteger(size) || size <= 0)
    throw new RangeError(`A video of ${size} bytes cannot be sent.`);
  let chunkSize = Math.max(TIKTOK_CHUNK_BYTES, Math.ceil(size / TIKTOK_MAX_CHUNKS));
  if (chunkSize > TIKTOK_MAX_CHUNK_BYTES) {
    throw new RangeError(`A video of ${size} bytes is over TikTok's 1,000 chunks of 64 MB.`);
  }
  // Under one chunk's size: the whole file as its one chunk.
  if (size < chunkSize) chunkSize = size;
  const totalChunkCount = Math.floor(size / chunkSize);
  const chunks: [number, number][] = [];
  for (let i = 0; i < totalChunkCount; i++) {
    const start = i * chunkSize;
    chunks.push([start, i === totalChunkCount - 1 ? size : start + chunkSize]);
  }
  return { chunkSize, totalChunkCount, chunks };
}

/** The bytes `[start, end)` of the file, read a piece at a time as the request body is sent. */
function streamOf(file: MediaSource, start: number, end: number): Readable {
  async function* pieces() {
    for (let at = start; at < end; at += PIECE_BYTES)
      yield await file.range(at, Math.min(end, at + PIECE_BYTES));
  }
  return Readable.from(pieces(), { objectMode: false });
}

/** The MIME type TikTok takes for the chunks: video/mp4, video/quicktime or video/webm. */
function chunkType(type: string): string {
  return ['video/mp4', 'video/quicktime', 'video/webm'].includes(type) ? type : 'video/mp4';
}

/**
 * Sends every chunk in order. `onLast` is called before the last one: from then on the upload may be
 * complete at TikTok (and the post made) even if its answer is lost.
 */
export async function uploadChunks(
  api: TikTokApi,
  uploadUrl: string,
  file: MediaSource,
  plan: ChunkPlan,
  onLast: () => void,
): Promise<void> {
  for (const [index, [start, end]] of plan.chunks.entries()) {
    if (index === plan.chunks.length - 1) onLast();
    await api.put(
      uploadUrl,
      {
        'content-type': chunkType(file.type),
        'content-length': String(end - start),
        'content-range': `bytes ${start}-${end - 1}/${file.size}`,
      },
      streamOf(file, start, end),
    );
  }
}
