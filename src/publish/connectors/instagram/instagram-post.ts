/**
 * What a post becomes on Instagram (…/instagram-platform/instagram-graph-api/reference/ig-user/media):
 * the containers to create, each a form of `POST /{ig-user}/media`.
 *
 * - one image: `image_url` with the caption, `alt_text` (the post's alt), `location_id`, `collaborators`;
 * - one video: a Reel (`media_type=REELS`: a lone feed video is published as a Reel since 2023-07-01),
 *   `video_url`, with `share_to_feed`, `trial_params`, `collaborators`, `location_id`;
 * - 2 to 10 files: a carousel: one child per file (`is_carousel_item=true`, a video as
 *   `media_type=VIDEO`), then `media_type=CAROUSEL` with `children` (their ids) and the caption,
 *   `location_id`, `collaborators` (the collaborators page lists carousels; integrators report refusals:
 *   Meta's refusal then fails the delivery in its words);
 * - `postAsStory`: `media_type=STORIES` with `image_url` or `video_url`, one file (Stories show no
 *   caption and take no collaborators: neither is sent).
 *
 * The caption is the post's, with the link after it when it does not hold it already (Instagram shows
 * links in captions as text, not as links). `platforms.instagram.collab` is one or more usernames
 * (separated by commas or spaces, `@` optional, at most 3), `location.id` a Facebook Page id of a place,
 * `trialReel` MANUAL or SS_PERFORMANCE (`trial_params.graduation_strategy`, Reels only), `shareToFeed`
 * a Reel's `share_to_feed`. Meta's refusal of a value (an unknown location, a collaborator who cannot be
 * tagged, an account without trial reels: subcode 2207081) fails the delivery in Meta's words.
 */
import type { DeliveryJob } from '../../../ports.js';
import { NotForPlatform } from '../platform-api.js';

export const INSTAGRAM_MAX_CAROUSEL = 10;
export const INSTAGRAM_CAPTION_LIMIT = 2_200;
const MAX_COLLABORATORS = 3;
const TRIAL_STRATEGIES = ['MANUAL', 'SS_PERFORMANCE'];

/** A file Instagram fetches: where, and whether it is a video. */
export interface InstagramMedia {
  url: string;
  video: boolean;
}

const VIDEO_EXTENSIONS = /\.(mp4|mov|m4v)(?:[?#]|$)/i;

export function isVideo(type: string | undefined, url: string): boolean {
  return type ? type.startsWith('video/') : VIDEO_EXTENSIONS.test(url);
}

/** The caption: the post's, and the link when the caption does not hold it. */
export function captionOf(content: DeliveryJob['content']): string {
  const caption = content.caption?.trim() ?? '';
  const link = content.link?.trim();
  if (!link || caption.includes(link)) return caption;
  return caption ? `${caption}\n\n${link}` : link;
}

interface InstagramOverrides {
  collab?: string;
  location?: { id?: string };
  trialReel?: string;
  shareToFeed?: boolean;
}

const overridesOf = (job: DeliveryJob): InstagramOverrides =>
  (job.content.overrides ?? {}) as InstagramOverrides;

/** Refuses, before any container is made, what Instagram would refuse. */
export function checkPost(job: DeliveryJob, media: readonly InstagramMedia[]): void {
  const caption = captionOf(job.content);
  if ([...caption].length > INSTAGRAM_CAPTION_LIMIT) {
    throw new NotForPlatform(
      `The caption is too long for Instagram: ${[...caption].length} characters, at most ${INSTAGRAM_CAPTION_LIMIT}.`,
    );
  }
  if (media.length === 0) {
    throw new NotForPlatform('An Instagram post needs an image or a video: add one to the post.');
  }
  if (job.content.format === 'story' && media.length > 1) {
    throw new NotForPlatform(
      `An Instagram Story is one image or video, not ${media.length}: give the story one file, or post them to the feed.`,
    );
  }
  if (media.length > INSTAGRAM_MAX_CAROUSEL) {
    throw new NotForPlatform(
      `An Instagram carousel holds at most ${INSTAGRAM_MAX_CAROUSEL} files, not ${media.length}.`,
    );
  }
  const { trialReel } = overridesOf(job);
  if (trialReel !== undefined && !TRIAL_STRATEGIES.includes(trialReel.trim().toUpperCase())) {
    throw new NotForPlatform(
      `platforms.instagram.trialReel is ${TRIAL_STRATEGIES.join(' or ')} (how the trial Reel graduates), not "${trialReel}".`,
    );
  }
  if (collaboratorsOf(job).length > MAX_COLLABORATORS) {
    throw new NotForPlatform(
      `Instagram takes at most ${MAX_COLLABORATORS} collaborators (platforms.instagram.collab), not ${collaboratorsOf(job).length}.`,
    );
  }
}

function collaboratorsOf(job: DeliveryJob): string[] {
  const { collab } = overridesOf(job);
  return (collab ?? '')
    .split(/[\s,]+/)
    .map((name) => name.replace(/^@/, ''))
    .filter(Boolean);
}

/** Caption, location and collaborators: what a feed container (image, Reel, carousel) carries. */
function feedFields(job: DeliveryJob, form: URLSearchParams): void {
  const caption = captionOf(job.content);
  if (caption) form.set('caption', caption);
  const { location } = overridesOf(job);
  if (location?.id) form.set('location_id', location.id);
  const collaborators = collaboratorsOf(job);
  if (collaborators.length > 0) form.set('collaborators', JSON.stringify(collaborators));
}

/** The form of the post's own container (a carousel's, with its children's ids). */
export function postForm(
  job: DeliveryJob,
  media: readonly InstagramMedia[],
  children: readonly string[],
): URLSearchParams {
  checkPost(job, media);
  const form = new URLSearchParams();
  const [file] = media as [InstagramMedia];
  if (job.content.format === 'story') {
    form.set('media_type', 'STORIES');
    form.set(file.video ? 'video_url' : 'image_url', file.url);
    return form;
  }
  if (media.length > 1) {
    form.set('media_type', 'CAROUSEL');
    form.set('children', children.join(','));
  } else if (file.video) {
    const { shareToFeed, trialReel } = overridesOf(job);
    form.set('media_type', 'REELS');
    form.set('video_url', file.url);
    if (shareToFeed !== undefined) form.set('share_to_feed', String(shareToFeed));
    if (trialReel !== undefined) {
      form.set('trial_params', JSON.stringify({ graduation_strategy: trialReel.trim().toUpperCase() }));
    }
  } else {
    form.set('image_url', file.url);
    // …/content-publishing: `alt_text` on image posts since 2025-03-24 (not Reels, not Stories).
    if (job.content.alt) form.set('alt_text', job.content.alt);
  }
  feedFields(job, form);
  return form;
}

/** The form of one carousel item. */
export function childForm(file: InstagramMedia): URLSearchParams {
  const form = new URLSearchParams({ is_carousel_item: 'true' });
  if (file.video) {
    form.set('media_type', 'VIDEO');
    form.set('video_url', file.url);
  } else form.set('image_url', file.url);
  return form;
}
