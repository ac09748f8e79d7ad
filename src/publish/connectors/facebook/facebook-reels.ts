/**
 * A Reel or a video Story of a Page: the three phases of Meta's Reels publishing guide
 * (developers.facebook.com/documentation/video-api/guides/reels-publishing) and of the Page Stories API
 * (docs/page-stories-api), which uploads a video the same way:
 *
 * 1. `POST /{page}/video_reels` (or `/video_stories`) with `upload_phase=start`: Meta answers
 *    `video_id` and `upload_url` (on rupload.facebook.com);
 * 2. the file's bytes to that address (`Authorization: OAuth`, `offset: 0`, `file_size`), streamed;
 * 3. `upload_phase=finish` with the `video_id`: for a Reel `video_state=PUBLISHED` and the
 *    `description`, which publishes it; a Story publishes with the finish alone (answering `post_id`).
 *
 * The start and the upload create nothing public (repeatable); the finish is the commit. Meta then
 * processes the video: the connector answers pending and reads its `status` (facebook-connector.ts).
 *
 * Unconfirmed in the stored pages: the name of the collaborator parameter of the finish (the guide has
 * an optional "invite a collaborator" step; integrators name it `collaborators`, sent here as a JSON
 * list of the one Page given), and whether an unused upload is kept (so nothing is uploaded ahead).
 */
import type { PlatformContent } from '../../../domain/delivery.js';
import type { MediaSource } from '../../connector.js';
import type { PlatformAnswer } from '../../platform-http.js';
import { type FacebookApi, NotForFacebook } from './facebook-api.js';
import { collabOf, mediaMessage } from './facebook-post.js';

/** A Reel (`video_reels`) or a video Story (`video_stories`). */
export type ShortVideo = 'reel' | 'story';

const EDGE: Record<ShortVideo, string> = { reel: 'video_reels', story: 'video_stories' };

const text = (json: unknown, key: string): string | undefined => {
  const value = (json as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
};

/**
 * Where the bytes go: the `upload_url` Meta gave when it is on the upload host (the Page token is
 * sent there, so never to another host), else `{upload host}/video-upload/{version}/{video id}`.
 */
function uploadUrlOf(api: FacebookApi, given: string | undefined, videoId: string): string {
  const own = `${api.uploadBase}/${encodeURIComponent(videoId)}`;
  if (!given) return own;
  try {
    return new URL(given).origin === new URL(api.uploadBase).origin ? given : own;
  } catch {
    return own;
  }
}

/** Phases 1 and 2: an upload session, then the file's bytes. The video's id. */
export async function uploadShortVideo(
  api: FacebookApi,
  page: string,
  what: ShortVideo,
  file: MediaSource,
): Promise<string> {
  const start = await api.call(
    'POST',
    `/${page}/${EDGE[what]}`,
    () => new URLSearchParams({ upload_phase: 'start' }),
  );
  const videoId = text(start.json, 'video_id');
  if (!videoId) throw new NotForFacebook('Facebook did not open a video upload: publish again.');
  const upload = await api.upload(uploadUrlOf(api, text(start.json, 'upload_url'), videoId), file);
  if ((upload.json as { success?: unknown } | undefined)?.success === false) {
    throw new NotForFacebook('Facebook did not take the bytes of the video: publish again.');
  }
  return videoId;
}

/** Phase 3, which publishes: the Story's post id when Meta gives one, and the answer. */
export async function finishShortVideo(
  api: FacebookApi,
  page: string,
  what: ShortVideo,
  videoId: string,
  content: PlatformContent,
): Promise<{ postId: string | undefined; answer: PlatformAnswer }> {
  const form = new URLSearchParams({ upload_phase: 'finish', video_id: videoId });
  if (what === 'reel') {
    form.set('video_state', 'PUBLISHED');
    const description = mediaMessage(content);
    if (description) form.set('description', description);
    const collab = collabOf(content);
    if (collab) form.set('collaborators', JSON.stringify([collab]));
  }
  const answer = await api.call('POST', `/${page}/${EDGE[what]}`, () => form);
  if ((answer.json as { success?: unknown } | undefined)?.success === false) {
    throw new NotForFacebook(`Facebook did not publish the ${what === 'reel' ? 'Reel' : 'Story'}.`);
  }
  return { postId: text(answer.json, 'post_id'), answer };
}
