/**
 * A video's resumable upload (developers.google.com/youtube/v3/guides/using_resumable_upload_protocol):
 *
 * 1. `POST /upload/youtube/v3/videos?uploadType=resumable&part=snippet,status` with the video resource
 *    and `X-Upload-Content-Length`/`X-Upload-Content-Type`: Google answers the session URI (`Location`).
 * 2. `PUT <session>` of each chunk with `Content-Range: bytes a-b/total`, read from disk as it is sent
 *    (`MediaSource.range`), never the file whole: 308 Resume Incomplete with `Range: bytes=0-N` (the
 *    last byte Google has) until the last one, answered 200 or 201 with the video.
 * 3. After a broken connection or a restart: `PUT <session>` with `Content-Range: bytes *\/total` and no
 *    body: 308 with the `Range` Google has (none: nothing yet), or 200/201 when the video is complete.
 *    The upload goes on from the byte after it, never from the start.
 *
 * The session is the upload's idempotency: the video exists only once its last byte has arrived, and a
 * probe after a lost answer finds it. Chunks are a multiple of 256 KiB, as the protocol asks.
 */
import type { MediaSource } from '../../connector.js';
import type { PlatformAnswer } from '../../platform-http.js';
import { headerValue } from '../../platform-http.js';
import { PlatformRefusal } from '../platform-api.js';
import type { YouTubeApi } from './youtube-api.js';

/**
 * 1 MiB (4 × 256 KiB): a 100 MB video in 100 requests. Each chunk is read from disk as one buffer while
 * it goes, so its size is what a send holds in memory (youtube-resume.test.ts holds it under 30 MiB).
 */
export const CHUNK_BYTES = 4 * 256 * 1024;

/** Where a session stands: how many bytes Google has, or the video once complete. */
export type SessionState = { done: false; received: number } | { done: true; video: Record<string, unknown> };

/** Starts a session for `file` with the video resource; its URI. */
export async function startSession(
  api: YouTubeApi,
  resource: unknown,
  file: Pick<MediaSource, 'size' | 'type'>,
): Promise<string> {
  const answer = await api.call(
    'POST',
    '/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status',
    () => JSON.stringify(resource),
    {
      headers: {
        'content-type': 'application/json; charset=UTF-8',
        'x-upload-content-length': String(file.size),
        'x-upload-content-type': file.type,
      },
    },
  );
  const location = headerValue(answer.headers, 'location');
  // A 2xx without a session is no session: a gateway's answer, worth trying again.
  if (!location || !/^https?:\/\//.test(location)) throw new PlatformRefusal({ ...answer, status: 502 });
  return location;
}

/** A 308's `Range: bytes=0-N`: N + 1 bytes received; none without the header. */
function receivedOf(answer: PlatformAnswer): number {
  const range = /bytes=0-(\d+)/.exec(headerValue(answer.headers, 'range') ?? '');
  return range ? Number(range[1]) + 1 : 0;
}

/** A PUT to the session: 308 is progress, 200/201 the video; anything else is thrown as a refusal. */
async function put(
  api: YouTubeApi,
  session: string,
  body: Uint8Array,
  headers: Record<string, string>,
): Promise<SessionState> {
  try {
    const answer = await api.call('PUT', session, () => body, { headers });
    const video = (answer.json ?? {}) as Record<string, unknown>;
    if (typeof video.id !== 'string') throw new PlatformRefusal({ ...answer, status: 502 });
    return { done: true, video };
  } catch (error) {
    if (error instanceof PlatformRefusal && error.answer.status === 308) {
      return { done: false, received: receivedOf(error.answer) };
    }
    throw error;
  }
}

/** Asks the session how much it has (the probe). */
export function probeSession(api: YouTubeApi, session: string, size: number): Promise<SessionState> {
  return put(api, session, new Uint8Array(0), { 'content-range': `bytes */${size}` });
}

/**
 * Sends the file from byte `from` to its end, chunk by chunk, each read from disk only as it goes; goes
 * on from what each 308 says Google has (which may be less than was sent). The video, at the end.
 */
export async function uploadFrom(
  api: YouTubeApi,
  session: string,
  file: Pick<MediaSource, 'size' | 'range' | 'type'>,
  from: number,
): Promise<Record<string, unknown>> {
  let offset = from;
  let stalls = 0;
  for (;;) {
    const end = Math.min(offset + CHUNK_BYTES, file.size);
    const bytes = await file.range(offset, end);
    const state = await put(api, session, bytes, {
      'content-range': `bytes ${offset}-${end - 1}/${file.size}`,
      'content-type': file.type,
    });
    if (state.done) return state.video;
    // Google may keep less than was sent: the next chunk starts where it says. A session that keeps
    // nothing more, again and again, cannot finish.
    stalls = state.received > offset ? 0 : stalls + 1;
    if (stalls >= 3 || state.received >= file.size) throw new SessionStalled(state.received);
    offset = state.received;
  }
}

/** The session takes no more bytes and gives no video: it cannot finish. */
export class SessionStalled extends Error {
  constructor(readonly received: number) {
    super(`YouTube's upload session keeps ${received} bytes and takes no more: the upload starts again.`);
  }
}
