/**
 * What the TikTok stand-in (tiktok-server.ts) does with a publish: its envelope, the chunk rules of a
 * FILE_UPLOAD and the chunks PUT to the upload address (developers.tiktok.com/doc/content-posting-api-
 * media-transfer-guide), the photos it pulls, and the status it tells (…-get-video-status).
 */
import { randomBytes } from 'node:crypto';
import type { FakeAnswer, FakeRequest } from './fake-platform/kit.js';

const MB = 1024 * 1024;

export interface TikTokPublish {
  publishId: string;
  kind: 'video' | 'photo';
  mode: 'DIRECT_POST' | 'MEDIA_UPLOAD';
  postInfo: Record<string, unknown>;
  size: number;
  chunkSize: number;
  chunkCount: number;
  received: number;
  chunks: { start: number; end: number; length: number }[];
  photoUrls: string[];
  downloaded: number[];
  completeAtMs: number | null;
  failReason: string | null;
  postId: string | null;
  uploadToken: string;
  createdAtMs: number;
}

export function tiktokError(
  status: number,
  code: string,
  message: string,
  headers?: Record<string, string>,
): FakeAnswer {
  return {
    status,
    ...(headers ? { headers } : {}),
    body: { data: {}, error: { code, message, log_id: randomBytes(8).toString('hex') } },
  };
}

export const ok = (data: unknown): FakeAnswer => ({
  status: 200,
  body: { data, error: { code: 'ok', message: '', log_id: randomBytes(8).toString('hex') } },
});
export const invalid = (message: string) => tiktokError(400, 'invalid_params', message);

/** Downloads `url` as TikTok's puller does: its bytes, or null. */
export async function download(url: string): Promise<number | null> {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    if (!answer.ok || !(answer.headers.get('content-type') ?? '').startsWith('image/')) return null;
    const bytes = (await answer.arrayBuffer()).byteLength;
    return bytes > 0 ? bytes : null;
  } catch {
    return null;
  }
}

/** TikTok's chunk rules for a FILE_UPLOAD (content-posting-api-media-transfer-guide), or what breaks them. */
export function chunkRuleBroken(size: number, chunkSize: number, count: number): string | undefined {
  if (!(size > 0 && chunkSize > 0 && count > 0))
    return 'video_size, chunk_size and total_chunk_count are required.';
  if (count !== Math.floor(size / chunkSize))
    return 'total_chunk_count must be video_size / chunk_size, rounded down.';
  if (count > 1000) return 'A video is uploaded in at most 1000 chunks.';
  if (size < 5 * MB && (chunkSize !== size || count !== 1))
    return 'A video under 5 MB is uploaded whole, in one chunk.';
  if (size >= 5 * MB && (chunkSize < 5 * MB || chunkSize > 64 * MB))
    return 'chunk_size must be 5 MB to 64 MB.';
  if (size > 64 * MB && count < 2) return 'A video over 64 MB is uploaded in several chunks.';
  if (size - chunkSize * (count - 1) > 128 * MB) return 'The last chunk may be at most 128 MB.';
  return undefined;
}

export function uploadChunk(
  publish: TikTokPublish | undefined,
  request: FakeRequest,
  received: (publish: TikTokPublish) => void,
): FakeAnswer {
  if (!publish || publish.uploadToken !== request.query.get('upload_token')) {
    return tiktokError(403, 'invalid_file_upload', 'The upload_url is invalid or has expired.');
  }
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(request.headers['content-range'] ?? ''));
  if (!range)
    return tiktokError(
      400,
      'invalid_file_upload',
      'Content-Range is required: bytes {first}-{last}/{total}.',
    );
  const [start, last, total] = range.slice(1).map(Number) as [number, number, number];
  const length = request.body.bytes.length;
  const index = publish.chunks.length;
  const final = index === publish.chunkCount - 1;
  const expected = final ? publish.size - publish.received : publish.chunkSize;
  if (
    total !== publish.size ||
    start !== publish.received ||
    last - start + 1 !== length ||
    length !== expected
  ) {
    return tiktokError(
      400,
      'invalid_file_upload',
      `Chunk ${index + 1} must be bytes ${publish.received}-${publish.received + expected - 1}/${publish.size}.`,
    );
  }
  if (Number(request.headers['content-length']) !== length)
    return tiktokError(400, 'invalid_file_upload', 'Content-Length does not match.');
  if (!/^video\/(mp4|quicktime|webm)$/.test(String(request.headers['content-type']))) {
    return tiktokError(
      400,
      'invalid_file_upload',
      'Content-Type must be video/mp4, video/quicktime or video/webm.',
    );
  }
  publish.chunks.push({ start, end: last + 1, length });
  publish.received += length;
  if (!final) return { status: 206, body: '' };
  received(publish);
  return { status: 201, body: '' };
}

export function statusOf(
  publish: TikTokPublish | undefined,
  nowMs: number,
  moderationMs: number,
): FakeAnswer {
  if (!publish) return invalid('publish_id is invalid.');
  const data: Record<string, unknown> = { uploaded_bytes: publish.received };
  if (publish.completeAtMs === null) data.status = 'PROCESSING_UPLOAD';
  else if (nowMs < publish.completeAtMs) data.status = 'PROCESSING_DOWNLOAD';
  else if (publish.failReason) Object.assign(data, { status: 'FAILED', fail_reason: publish.failReason });
  else if (publish.mode === 'MEDIA_UPLOAD') data.status = 'SEND_TO_USER_INBOX';
  else {
    data.status = 'PUBLISH_COMPLETE';
    if (nowMs >= publish.completeAtMs + moderationMs) data.publicaly_available_post_id = ['ID'];
  }
  // int64 ids as JSON numbers, as TikTok writes them (too long for a double).
  const text = JSON.stringify({ data, error: { code: 'ok', message: '', log_id: 'status' } }).replace(
    '"ID"',
    publish.postId ?? '0',
  );
  return { status: 200, headers: { 'content-type': 'application/json' }, body: text };
}
