/**
 * What a post becomes on TikTok (developers.tiktok.com/doc/content-posting-api-reference-direct-post,
 * …-upload-video, …-photo-post): the init request of its media.
 *
 * - one video: `POST /v2/post/publish/video/init/` with `post_info` (`title`: the post's title and
 *   caption, the link after them when the caption does not hold it, at most 2,200 UTF-16 units;
 *   `privacy_level`: the channel's; `disable_comment`, `disable_duet`, `disable_stitch` as the creator
 *   has them in creator_info) and
 *   `source_info` FILE_UPLOAD with the chunks (tiktok-video.ts); with `platforms.tiktok.sendToInbox`,
 *   `POST /v2/post/publish/inbox/video/init/` with `source_info` only (the creator finishes the post in
 *   the TikTok app, where the caption is written);
 * - 1 to 35 photos: `POST /v2/post/publish/content/init/`, `media_type` PHOTO, `post_mode`
 *   DIRECT_POST (or MEDIA_UPLOAD for the inbox), `post_info.title` the post's title (at most 90 UTF-16
 *   units) and `description` the caption and link (at most 4,000), `source_info` PULL_FROM_URL with
 *   the photos' public addresses, which TikTok downloads: their domain must be verified for the app.
 * Videos and photos are never mixed, and a post without media is refused before anything is sent.
 */
import type { PlatformMedia } from '../../../domain/delivery.js';
import type { DeliveryJob } from '../../../ports.js';
import { NotForTikTok } from './tiktok-api.js';
import type { ChunkPlan } from './tiktok-video.js';

export const TIKTOK_VIDEO_TITLE_LIMIT = 2_200;
export const TIKTOK_PHOTO_TITLE_LIMIT = 90;
export const TIKTOK_PHOTO_DESCRIPTION_LIMIT = 4_000;
export const TIKTOK_MAX_PHOTOS = 35;

const VIDEO_EXTENSIONS = /\.(mp4|mov|m4v|webm)(?:[?#]|$)/i;

export function isVideo(media: PlatformMedia): boolean {
  return media.type ? media.type.startsWith('video/') : VIDEO_EXTENSIONS.test(media.url ?? '');
}

/** The caption, with the link after it when the caption does not hold it. */
function captionOf(content: DeliveryJob['content']): string {
  const caption = content.caption?.trim() ?? '';
  const link = content.link?.trim();
  if (!link || caption.includes(link)) return caption;
  return caption ? `${caption}\n\n${link}` : link;
}

/** A video's title at TikTok: the post's title, then the caption (TikTok shows it under the video). */
export function videoTitleOf(content: DeliveryJob['content']): string {
  const parts = [content.title?.trim(), captionOf(content)].filter((part): part is string => !!part);
  return parts.join('\n\n');
}

/** Counted as TikTok counts (UTF-16 code units); refused over `limit`. */
function checkLength(text: string, limit: number, what: string): string {
  if (text.length > limit) {
    throw new NotForTikTok(
      `The ${what} is too long for TikTok: ${text.length} UTF-16 units (an emoji counts 2), at most ${limit}.`,
    );
  }
  return text;
}

/** Whether the post goes to the creator's inbox (`platforms.tiktok.sendToInbox`) instead of their profile. */
export function sendsToInbox(job: DeliveryJob): boolean {
  return job.content.overrides?.sendToInbox === true;
}

/** The post's media: one video, or photos; refuses what TikTok would refuse before anything is sent. */
export function mediaKindOf(job: DeliveryJob): 'video' | 'photos' {
  const { media } = job.content;
  if (media.length === 0)
    throw new NotForTikTok('A TikTok post needs a video or photos: TikTok has no text posts.');
  const videos = media.filter(isVideo).length;
  if (videos > 0 && videos < media.length) {
    throw new NotForTikTok('TikTok takes one video or photos in a post, never both.');
  }
  if (videos > 1) throw new NotForTikTok(`TikTok takes one video in a post, not ${videos}.`);
  if (videos === 0 && media.length > TIKTOK_MAX_PHOTOS) {
    throw new NotForTikTok(
      `TikTok takes at most ${TIKTOK_MAX_PHOTOS} photos in a post, not ${media.length}.`,
    );
  }
  return videos === 1 ? 'video' : 'photos';
}

export interface PostChoices {
  privacyLevel: string;
  /** The creator has comments (duets, stitches) off: TikTok wants the post to say so too. */
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
}

/** The path and body of a video's init. */
export function videoInit(job: DeliveryJob, size: number, plan: ChunkPlan, choices: PostChoices) {
  const sourceInfo = {
    source: 'FILE_UPLOAD',
    video_size: size,
    chunk_size: plan.chunkSize,
    total_chunk_count: plan.totalChunkCount,
  };
  if (sendsToInbox(job))
    return { path: '/v2/post/publish/inbox/video/init/', body: { source_info: sourceInfo } };
  const title = checkLength(videoTitleOf(job.content), TIKTOK_VIDEO_TITLE_LIMIT, 'caption (with the title)');
  return {
    path: '/v2/post/publish/video/init/',
    body: {
      post_info: {
        ...(title ? { title } : {}),
        privacy_level: choices.privacyLevel,
        disable_comment: choices.commentDisabled,
        disable_duet: choices.duetDisabled,
        disable_stitch: choices.stitchDisabled,
      },
      source_info: sourceInfo,
    },
  };
}

/** The checks of a video's text, before anything is read or sent. */
export function checkVideoText(job: DeliveryJob): void {
  if (!sendsToInbox(job))
    checkLength(videoTitleOf(job.content), TIKTOK_VIDEO_TITLE_LIMIT, 'caption (with the title)');
}

/** The checks of a photo post's text. */
export function checkPhotoText(job: DeliveryJob): { title: string; description: string } {
  return {
    title: checkLength(job.content.title?.trim() ?? '', TIKTOK_PHOTO_TITLE_LIMIT, 'title of a photo post'),
    description: checkLength(
      captionOf(job.content),
      TIKTOK_PHOTO_DESCRIPTION_LIMIT,
      'description of a photo post',
    ),
  };
}

/** The path and body of a photo post's init. */
export function photoInit(job: DeliveryJob, urls: readonly string[], choices: PostChoices) {
  const { title, description } = checkPhotoText(job);
  const inbox = sendsToInbox(job);
  return {
    path: '/v2/post/publish/content/init/',
    body: {
      media_type: 'PHOTO',
      post_mode: inbox ? 'MEDIA_UPLOAD' : 'DIRECT_POST',
      post_info: {
        ...(title ? { title } : {}),
        ...(description ? { description } : {}),
        ...(inbox ? {} : { privacy_level: choices.privacyLevel, disable_comment: choices.commentDisabled }),
        auto_add_music: true,
      },
      source_info: { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: [...urls] },
    },
  };
}
