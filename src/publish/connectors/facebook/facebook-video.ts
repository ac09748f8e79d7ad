/**
 * A video to a Page (the Page Videos reference, `POST /{page}/videos` on graph-video.facebook.com):
 *
 * - up to RESUMABLE_FROM_BYTES, one multipart request with the file as `source` (streamed from disk);
 * - larger, the chunked upload: `upload_phase=start` with `file_size` (answers `upload_session_id`,
 *   `video_id` and the first `start_offset`/`end_offset`), then `upload_phase=transfer` with each
 *   chunk Meta asks for as `video_file_chunk` (read with `file.range`, one chunk in memory at a time),
 *   until Meta answers `start_offset` = `end_offset`, then `upload_phase=finish` with the description.
 *   Only the finish publishes: the start and the transfers are repeatable uploads. (The phases are from
 *   copies of the reference and integrators' code; Meta's current guides point to a newer Resumable
 *   Upload API, so this path is unconfirmed there.)
 *
 * Either way Meta then processes the video: the connector answers pending and asks for its status.
 */
import { Blob } from 'node:buffer';
import { FormData } from 'undici';
import type { MediaSource } from '../../connector.js';
import type { PlatformAnswer } from '../../platform-http.js';
import { type FacebookApi, NotForFacebook } from './facebook-api.js';

/** Files larger than this go up in chunks (our choice: Meta's limit for one request is not stated). */
export const RESUMABLE_FROM_BYTES = 50 * 1024 * 1024;
/** At most this many transfers (a stand-in or a proxy that never says the file is complete). */
const MAX_TRANSFERS = 10_000;

const text = (json: unknown, key: string): string | undefined => {
  const value = (json as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
};

/**
 * Uploads and publishes the video; `commit()` is called just before the request that publishes it (the
 * stage whose lost answer is unknown). Its id, and the answer that gave it.
 */
export async function postVideo(
  api: FacebookApi,
  page: string,
  file: MediaSource,
  description: string,
  commit: () => void,
): Promise<{ videoId: string | null; answer: PlatformAnswer }> {
  const url = `${api.videoBase}/${page}/videos`;
  if (file.size <= RESUMABLE_FROM_BYTES) {
    const blob = await file.blob();
    commit();
    const answer = await api.call('POST', url, () => {
      const form = new FormData();
      if (description) form.set('description', description);
      form.set('source', blob, file.name);
      return form;
    });
    return { videoId: text(answer.json, 'id') ?? null, answer };
  }
  const start = await api.call(
    'POST',
    url,
    () => new URLSearchParams({ upload_phase: 'start', file_size: String(file.size) }),
  );
  const session = text(start.json, 'upload_session_id');
  const videoId = text(start.json, 'video_id') ?? null;
  let from = Number(text(start.json, 'start_offset'));
  let to = Number(text(start.json, 'end_offset'));
  if (!session || !Number.isInteger(from) || !Number.isInteger(to)) {
    throw new NotForFacebook('Facebook did not open a video upload session: publish again.');
  }
  for (let transfers = 0; from < to; transfers++) {
    if (transfers >= MAX_TRANSFERS || to > file.size) {
      throw new NotForFacebook('Facebook asked for parts of the video that do not exist: publish again.');
    }
    const chunk = new Blob([await file.range(from, to)]);
    const offset = String(from);
    const answer = await api.call('POST', url, () => {
      const form = new FormData();
      form.set('upload_phase', 'transfer');
      form.set('upload_session_id', session);
      form.set('start_offset', offset);
      form.set('video_file_chunk', chunk, file.name);
      return form;
    });
    from = Number(text(answer.json, 'start_offset'));
    to = Number(text(answer.json, 'end_offset'));
    if (!Number.isInteger(from) || !Number.isInteger(to)) {
      throw new NotForFacebook('Facebook answered a video part without the next offsets: publish again.');
    }
  }
  commit();
  const finish = await api.call('POST', url, () => {
    const form = new URLSearchParams({ upload_phase: 'finish', upload_session_id: session });
    if (description) form.set('description', description);
    return form;
  });
  return { videoId: videoId ?? text(finish.json, 'video_id') ?? null, answer: finish };
}

const PHASES = ['uploading_phase', 'processing_phase', 'publishing_phase'];

/**
 * Why Meta could not process a video, from its `status` (the Video reference: `video_status` ready,
 * processing, error or expired; a Reel's or a Story's phases `uploading_phase`, `processing_phase`,
 * `publishing_phase`, each with a `status` and, when it failed, `errors: [{ code, message }]`), or
 * undefined while nothing failed. `what` names it: "Reel", "video of the post".
 */
export function videoFailure(status: Record<string, unknown> | undefined, what: string): string | undefined {
  if (!status) return undefined;
  const failed = PHASES.map((key) => status[key] as { status?: unknown; errors?: unknown } | undefined).find(
    (phase) => phase?.status === 'error',
  );
  const videoStatus = status.video_status;
  if (!failed && videoStatus !== 'error' && videoStatus !== 'expired') return undefined;
  const errors = Array.isArray(failed?.errors) ? failed.errors : [];
  const said = errors
    .map((error) => (error as { message?: unknown } | null)?.message)
    .filter((message): message is string => typeof message === 'string' && message.trim() !== '')
    .join('; ');
  return `Facebook could not process the ${what} (${said || `status ${String(videoStatus)}`}): check its format (MP4 or MOV).`;
}
