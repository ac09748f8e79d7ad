/**
 * Uploading a post's media to LinkedIn, each kind by its own API (learn.microsoft.com/linkedin/
 * marketing/community-management/shares/{images,videos,documents}-api), and never reading a file
 * whole: an image or a document goes up in one PUT streamed from disk; a video in the parts LinkedIn's
 * `uploadInstructions` name (`firstByte`..`lastByte`, 4 MiB each), each read with `file.range()`, then
 * `finalizeUpload` with the ETag of every part. LinkedIn then processes the video: the connector asks
 * `GET /rest/videos/{urn}` until it is AVAILABLE, in later steps, never waiting inside one.
 */
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import type { MediaSource } from '../../connector.js';
import { headerValue, type PlatformAnswer } from '../../platform-http.js';
import type { LinkedInMedia } from './linkedin-post.js';

/** One request of the connector (its token, version headers and 401 retry); a non-2xx answer is thrown. */
export type LinkedInSend = (call: {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  json?: unknown;
  /** Made anew for each try (a stream is read once). */
  bytes?: () => Promise<Uint8Array | Readable>;
  headers?: Record<string, string>;
}) => Promise<PlatformAnswer>;

/** An answer LinkedIn gave that is not what its API says: thrown as a 502, retried as transient. */
export class Malformed extends Error {
  constructor(readonly answer: PlatformAnswer) {
    super(`LinkedIn answered ${answer.status} without what its API promises`);
  }
}

export function mediaKindOf(type: string): LinkedInMedia['kind'] {
  if (type.startsWith('video/')) return 'video';
  if (type === 'application/pdf') return 'document';
  return 'image';
}

/** Uploads one file owned by `owner` (the post's author): its URN, and whether LinkedIn processes it. */
export async function uploadMedia(
  send: LinkedInSend,
  owner: string,
  file: MediaSource,
): Promise<LinkedInMedia & { processing: boolean }> {
  const kind = mediaKindOf(file.type);
  if (kind === 'video')
    return { kind, name: file.name, urn: await uploadVideo(send, owner, file), processing: true };
  const api = kind === 'image' ? 'images' : 'documents';
  const init = await send({
    method: 'POST',
    url: `/rest/${api}?action=initializeUpload`,
    json: { initializeUploadRequest: { owner } },
  });
  const value = valueIn(init);
  const urn = value[kind];
  if (typeof value.uploadUrl !== 'string' || typeof urn !== 'string') throw new Malformed(init);
  await send({
    method: 'PUT',
    url: value.uploadUrl,
    bytes: async () => Readable.fromWeb((await file.blob()).stream() as ReadableStream<Uint8Array>),
    headers: { 'content-length': String(file.size), 'content-type': file.type },
  });
  return { kind, name: file.name, urn, processing: false };
}

async function uploadVideo(send: LinkedInSend, owner: string, file: MediaSource): Promise<string> {
  const init = await send({
    method: 'POST',
    url: '/rest/videos?action=initializeUpload',
    json: {
      initializeUploadRequest: {
        owner,
        fileSizeBytes: file.size,
        uploadCaptions: false,
        uploadThumbnail: false,
      },
    },
  });
  const value = valueIn(init);
  const instructions = Array.isArray(value.uploadInstructions)
    ? (value.uploadInstructions as Record<string, unknown>[])
    : [];
  if (typeof value.video !== 'string' || instructions.length === 0) throw new Malformed(init);
  const etags: string[] = [];
  for (const instruction of instructions) {
    const { uploadUrl, firstByte, lastByte } = instruction;
    if (typeof uploadUrl !== 'string' || typeof firstByte !== 'number' || typeof lastByte !== 'number') {
      throw new Malformed(init);
    }
    const part = await send({
      method: 'PUT',
      url: uploadUrl,
      bytes: () => file.range(firstByte, lastByte + 1),
    });
    const etag = headerValue(part.headers, 'etag');
    if (!etag) throw new Malformed(part);
    etags.push(etag);
  }
  await send({
    method: 'POST',
    url: '/rest/videos?action=finalizeUpload',
    json: {
      finalizeUploadRequest: {
        video: value.video,
        uploadToken: typeof value.uploadToken === 'string' ? value.uploadToken : '',
        uploadedPartIds: etags,
      },
    },
  });
  return value.video;
}

/** A video's state: AVAILABLE, PROCESSING (or WAITING_UPLOAD), or failed with LinkedIn's reason. */
export async function videoStatus(
  send: LinkedInSend,
  urn: string,
): Promise<{ ready: boolean; failed?: string }> {
  const answer = await send({ method: 'GET', url: `/rest/videos/${encodeURIComponent(urn)}` });
  const video = (answer.json ?? {}) as Record<string, unknown>;
  if (video.status === 'AVAILABLE') return { ready: true };
  if (video.status === 'PROCESSING_FAILED') {
    const reason =
      typeof video.processingFailureReason === 'string' ? video.processingFailureReason : 'no reason given';
    return { ready: false, failed: reason };
  }
  return { ready: false };
}

function valueIn(answer: PlatformAnswer): Record<string, unknown> {
  const value = (answer.json as { value?: unknown } | undefined)?.value;
  if (typeof value !== 'object' || value === null) throw new Malformed(answer);
  return value as Record<string, unknown>;
}
