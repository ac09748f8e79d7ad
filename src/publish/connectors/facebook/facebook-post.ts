/**
 * What a post becomes on a Page (docs/pages-api/posts, the Photo and Video references):
 *
 * - the caption is the `message` (`description` of a video); the link is `link` on a text post, and
 *   written after the message on a photo or video post (those have no link field);
 * - `platforms.facebook.location` is `place` (the Page id of the place: `location.id`): a long-standing
 *   parameter of /feed and /photos, not in Meta's current pages (unconfirmed);
 * - `platforms.facebook.collab` is refused: Meta invites a collaborator on Reels only, which this
 *   connector does not publish;
 * - media: one photo (`/photos` with the file as `source`), several photos (each uploaded unpublished,
 *   then one `/feed` post with `attached_media`), or one video (`/videos` with `source`); never photos
 *   and a video together;
 * - a Story (`postAsStory`): one photo, uploaded unpublished and published with `/photo_stories`;
 *   video Stories need Meta's rupload host, which this connector does not use yet.
 * - `alt` is not sent: the Graph API documents no alt text parameter for an uploaded photo.
 */
import type { PlatformContent } from '../../../domain/delivery.js';
import { NotForFacebook } from './facebook-api.js';

export type FacebookShape =
  | { kind: 'text' }
  | { kind: 'photos'; count: number }
  | { kind: 'video' }
  | { kind: 'story-photo' };

const isVideo = (type: string) => type.startsWith('video/');

/** What the post is on Facebook, from its media's types; throws NotForFacebook for what it cannot be. */
export function shapeOf(content: PlatformContent, types: readonly string[]): FacebookShape {
  const overrides = content.overrides ?? {};
  if (overrides.collab !== undefined) {
    throw new NotForFacebook(
      'Facebook invites a collaborator only on Reels, which this connector does not publish: remove platforms.facebook.collab.',
    );
  }
  const videos = types.filter(isVideo).length;
  if (content.format === 'story') {
    if (types.length === 1 && videos === 0) return { kind: 'story-photo' };
    throw new NotForFacebook(
      videos > 0
        ? 'A Facebook Story with a video is not published by this connector yet (it needs Meta’s resumable upload host): post it to the feed, or as a photo Story.'
        : 'A Facebook Story is one photo: give exactly one image.',
    );
  }
  if (types.length === 0) return { kind: 'text' };
  if (videos === 0) {
    if (types.length > 10) throw new NotForFacebook('Facebook takes at most 10 photos in one post.');
    return { kind: 'photos', count: types.length };
  }
  if (videos === 1 && types.length === 1) return { kind: 'video' };
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
