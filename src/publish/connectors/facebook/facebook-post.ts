/**
 * What a post becomes on a Page (docs/pages-api/posts, the Photo and Video references):
 *
 * - the caption is the `message` (`description` of a video); the link is `link` on a text post, and
 *   written after the message on a photo or video post (those have no link field);
 * - `platforms.facebook.location` is `place` (the Page id of the place: `location.id`): a long-standing
 *   parameter of /feed and /photos, not in Meta's current pages (unconfirmed);
 * - `platforms.facebook.reel` makes one video a Reel (`video_reels`: facebook-reels.ts), and
 *   `platforms.facebook.collab` invites a collaborator Page on it (Meta has collaborators on Reels only,
 *   so a collaborator on one video makes it a Reel, and on anything else is refused);
 * - media: one photo (`/photos` with the file as `source`), several photos (each uploaded unpublished,
 *   then one `/feed` post with `attached_media`), or one video (`/videos` with `source`); never photos
 *   and a video together;
 * - a Story (`postAsStory`): one photo, uploaded unpublished and published with `/photo_stories`, or
 *   one video (`video_stories`, the Reels' three phases);
 * - `alt` is not sent: the Graph API documents no alt text parameter for an uploaded photo.
 */
import type { PlatformContent } from '../../../domain/delivery.js';
import { NotForFacebook } from './facebook-api.js';

export type FacebookShape =
  | { kind: 'text' }
  | { kind: 'photos'; count: number }
  | { kind: 'video' }
  | { kind: 'reel' }
  | { kind: 'story-photo' }
  | { kind: 'story-video' };

const isVideo = (type: string) => type.startsWith('video/');

const NO_COLLAB_STORY =
  'Facebook invites a collaborator only on a Reel, not on a Story: remove platforms.facebook.collab or postAsStory.';

/** The collaborator to invite on a Reel (`platforms.facebook.collab`: a Page's id or name). */
export function collabOf(content: PlatformContent): string | undefined {
  const collab = content.overrides?.collab;
  return typeof collab === 'string' && collab.trim() ? collab.trim() : undefined;
}

/** What the post is on Facebook, from its media's types; throws NotForFacebook for what it cannot be. */
export function shapeOf(content: PlatformContent, types: readonly string[]): FacebookShape {
  const overrides = content.overrides ?? {};
  const videos = types.filter(isVideo).length;
  const oneVideo = videos === 1 && types.length === 1;
  const collab = overrides.collab !== undefined;
  if (content.format === 'story') {
    if (collab) throw new NotForFacebook(NO_COLLAB_STORY);
    if (types.length === 1) return { kind: videos === 1 ? 'story-video' : 'story-photo' };
    throw new NotForFacebook('A Facebook Story is one photo or one video: give exactly one.');
  }
  if (overrides.reel === true || collab) {
    if (oneVideo) return { kind: 'reel' };
    throw new NotForFacebook(
      collab
        ? 'Facebook invites a collaborator only on a Reel, which is one video: give one video, or remove platforms.facebook.collab.'
        : 'A Facebook Reel is one video: give exactly one video, or remove platforms.facebook.reel.',
    );
  }
  if (types.length === 0) return { kind: 'text' };
  if (videos === 0) {
    if (types.length > 10) throw new NotForFacebook('Facebook takes at most 10 photos in one post.');
    return { kind: 'photos', count: types.length };
  }
  if (oneVideo) return { kind: 'video' };
  throw new NotForFacebook(
    'Facebook takes several photos or one video in a post, not both, nor several videos.',
  );
}

/** The message of a post with media: the caption, and the link after it (media posts have no `link`). */
export function mediaMessage(content: PlatformContent): string {
  const caption = content.caption ?? '';
  if (!content.link || caption.includes(content.link)) return caption;
  return caption ? `${caption}\n\n${content.link}` : content.link;
}

/** `place`, when the post names a location (`platforms.facebook.location.id`). */
export function placeOf(content: PlatformContent): string | undefined {
  const location = content.overrides?.location as { id?: unknown } | undefined;
  return typeof location?.id === 'string' && location.id ? location.id : undefined;
}

/** The form of a `/feed` post: message, link, place, and the unpublished photos it attaches. */
export function feedForm(content: PlatformContent, photoIds: readonly string[]): URLSearchParams {
  const form = new URLSearchParams();
  const message = photoIds.length > 0 ? mediaMessage(content) : (content.caption ?? '');
  if (message) form.set('message', message);
  if (content.link && photoIds.length === 0) form.set('link', content.link);
  const place = placeOf(content);
  if (place) form.set('place', place);
  photoIds.forEach((id, index) => {
    form.set(`attached_media[${index}]`, JSON.stringify({ media_fbid: id }));
  });
  return form;
}

/** A post's public address: Meta's `permalink_url` (made absolute), else facebook.com/<id>. */
export function permalinkOf(answer: unknown, id: string): string {
  const permalink = (answer as { permalink_url?: unknown } | undefined)?.permalink_url;
  if (typeof permalink === 'string' && permalink) {
    return /^https?:\/\//.test(permalink)
      ? permalink
      : `https://www.facebook.com${permalink.startsWith('/') ? '' : '/'}${permalink}`;
  }
  return `https://www.facebook.com/${id}`;
}
