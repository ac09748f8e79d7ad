/**
 * A post's media on X, through the dedicated v2 upload endpoints (docs.x.com/x-api/media): an image in
 * one multipart request (`POST /2/media/upload`, `media` and `media_category`); a video in chunks
 * (`/2/media/upload/initialize`, `/{id}/append` with `segment_index` and the bytes of each chunk read
 * from disk as it is sent, `/{id}/finalize`), which X then processes: `GET /2/media/upload?command=
 * STATUS` says `pending`, `in_progress`, `succeeded` or `failed`, and how long to wait
 * (`check_after_secs`). Nothing is waited for here: the connector answers `pending`.
 *
 * Every answer gives `expires_after_secs`: how long X keeps the upload unattached (a day, in the
 * examples of the upload reference); the prepared media are not used past it.
 */
import { FormData } from 'undici';
import type { MediaSource } from '../../connector.js';
import type { PlatformAnswer } from '../../platform-http.js';
import { PlatformRefusal } from '../platform-api.js';
import type { XApi } from './x-api.js';

/** The most bytes of one APPEND: 1 MiB, or more for a video that would need over 1,000 segments. */
const CHUNK_BYTES = 1024 * 1024;
const MAX_SEGMENTS = 1000;

export interface UploadedMedia {
  id: string;
  /** `3_…` for an image, `7_…` for a video: what a post's `attachments.media_keys` lists. */
  mediaKey: string | null;
  /** X is still processing it: ask STATUS after `checkAfterMs`. */
  processing: boolean;
  checkAfterMs: number;
  /** Until when X keeps it unattached (UTC ms), when it said. */
  expiresAtMs: number | null;
}

export type ProcessingState =
  | { state: 'ready' }
  | { state: 'processing'; checkAfterMs: number; progress: number | null }
  | { state: 'failed'; said: string };

/** What X's media categories call a file of this type. */
export function mediaCategoryOf(type: string): 'tweet_image' | 'tweet_gif' | 'tweet_video' {
  if (type === 'image/gif') return 'tweet_gif';
  return type.startsWith('video/') ? 'tweet_video' : 'tweet_image';
}

/** Uploads one file: images in one request, videos and GIFs in chunks. */
export async function uploadMedia(api: XApi, file: MediaSource, nowMs: number): Promise<UploadedMedia> {
  const category = mediaCategoryOf(file.type);
  if (category === 'tweet_image') {
    const blob = await file.blob();
    const answer = await api.call('POST', '/2/media/upload', () => {
      const form = new FormData();
      form.append('media', blob, file.name);
      form.append('media_category', category);
      return form;
    });
    return uploadedOf(answer, nowMs);
  }
  const init = await api.json('POST', '/2/media/upload/initialize', {
    media_type: file.type,
    total_bytes: file.size,
    media_category: category,
  });
  const { id } = uploadedOf(init, nowMs);
  const chunk = Math.max(CHUNK_BYTES, Math.ceil(file.size / MAX_SEGMENTS));
  for (let start = 0, segment = 0; start < file.size; start += chunk, segment++) {
    const bytes = await file.range(start, Math.min(start + chunk, file.size));
    await api.call('POST', `/2/media/upload/${encodeURIComponent(id)}/append`, () => {
      const form = new FormData();
      form.append('segment_index', String(segment));
      form.append('media', new Blob([bytes], { type: 'application/octet-stream' }), file.name);
      return form;
    });
  }
  const finalized = await api.call('POST', `/2/media/upload/${encodeURIComponent(id)}/finalize`);
  return uploadedOf(finalized, nowMs);
}

/** The most characters of an image's alt text (X's media metadata). */
const ALT_TEXT_LIMIT = 1_000;

/**
 * Describes an uploaded image (`POST /2/media/metadata`, `metadata.alt_text.text`, docs.x.com/x-api/
 * media/create-media-metadata). X describes images and GIFs only. A description X refuses (4xx but a
 * 401 or a 429) is told in the log, and the post goes without it: alt text is not worth the post.
 */
export async function describeMedia(
  api: XApi,
  id: string,
  alt: string,
  log: (line: string) => void,
): Promise<void> {
  const text = [...alt].slice(0, ALT_TEXT_LIMIT).join('');
  try {
    await api.json('POST', '/2/media/metadata', { id, metadata: { alt_text: { text } } });
  } catch (error) {
    const status = error instanceof PlatformRefusal ? error.answer.status : 0;
    if (status < 400 || status >= 500 || status === 401 || status === 429) throw error;
    log(`X did not take the alt text of media ${id} (HTTP ${status}): the post goes without it.`);
  }
}

/** Asks X how the processing of an upload goes. */
export async function processingOf(api: XApi, id: string): Promise<ProcessingState> {
  const query = new URLSearchParams({ command: 'STATUS', media_id: id });
  const answer = await api.call('GET', `/2/media/upload?${query}`);
  return processingStateOf(dataOf(answer).processing_info);
}

type MediaData = {
  id?: unknown;
  media_id_string?: unknown;
  media_key?: unknown;
  expires_after_secs?: unknown;
  processing_info?: unknown;
};

function dataOf(answer: PlatformAnswer): MediaData {
  const body = (answer.json ?? {}) as { data?: MediaData } & MediaData;
  return body.data ?? body;
}

function uploadedOf(answer: PlatformAnswer, nowMs: number): UploadedMedia {
  const data = dataOf(answer);
  const id = typeof data.id === 'string' ? data.id : data.media_id_string;
  // A 2xx without an id is no upload: a gateway's answer, worth trying again.
  if (typeof id !== 'string' || !id) throw new PlatformRefusal({ ...answer, status: 502 });
  const processing = processingStateOf(data.processing_info);
  const expires = Number(data.expires_after_secs);
  return {
    id,
    mediaKey: typeof data.media_key === 'string' ? data.media_key : null,
    processing: processing.state === 'processing',
    checkAfterMs: processing.state === 'processing' ? processing.checkAfterMs : 0,
    expiresAtMs: Number.isFinite(expires) && expires > 0 ? nowMs + expires * 1000 : null,
  };
}

/** No `processing_info`: ready. X's own words when it failed. */
function processingStateOf(info: unknown): ProcessingState {
  if (typeof info !== 'object' || info === null) return { state: 'ready' };
  const {
    state,
    check_after_secs: after,
    progress_percent: progress,
    error,
  } = info as Record<string, unknown>;
  if (state === 'succeeded') return { state: 'ready' };
  if (state === 'failed') {
    const { message, name } = (error ?? {}) as { message?: unknown; name?: unknown };
    const said = [name, message].filter((part) => typeof part === 'string' && part).join(': ');
    return { state: 'failed', said: said || 'processing failed' };
  }
  const seconds = Number(after);
  return {
    state: 'processing',
    checkAfterMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 5_000,
    progress: typeof progress === 'number' ? progress : null,
  };
}
