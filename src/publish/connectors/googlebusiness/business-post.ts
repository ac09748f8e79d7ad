/**
 * What a post becomes on Google Business Profile: a standard local post (developers.google.com/
 * my-business/content/posts-data, LocalPost of the v4 API), `topicType: STANDARD`:
 *
 * - `summary`: the caption (at most 1,500 characters), as it is;
 * - `callToAction`: `{ actionType: LEARN_MORE, url }` from `link` (a "Learn more" button);
 * - `media`: one photo, `{ mediaFormat: PHOTO, sourceUrl }`, which Google fetches from its public address;
 * - `languageCode`: the connection's setting `languageCode` (a BCP 47 tag) when it has one; Google
 *   reads the language from the text otherwise.
 * The title, a poll and Stories have no place in a local post (the platform rules leave them out).
 */
import type { DeliveryJob } from '../../../ports.js';
import { NotForPlatform } from '../platform-api.js';

export const SUMMARY_LIMIT = 1_500;

export interface LocalPost {
  languageCode?: string;
  summary: string;
  topicType: 'STANDARD';
  callToAction?: { actionType: 'LEARN_MORE'; url: string };
  media?: { mediaFormat: 'PHOTO'; sourceUrl: string }[];
}

/** The photo of the post, when it has one: the only element, an image. Refuses what Google would. */
export function photoOf(
  content: DeliveryJob['content'],
): DeliveryJob['content']['media'][number] | undefined {
  const media = content.media;
  if (media.length === 0) return undefined;
  if (media.length > 1) {
    throw new NotForPlatform(
      `A Google Business Profile post carries one photo, not ${media.length}: keep one.`,
    );
  }
  const [element] = media as [DeliveryJob['content']['media'][number]];
  const type =
    element.type ?? (/\.(mp4|mov|m4v)(?:[?#]|$)/i.test(element.url ?? '') ? 'video/mp4' : undefined);
  if (type !== undefined && !['image/jpeg', 'image/png'].includes(type)) {
    throw new NotForPlatform(
      `Google Business Profile posts carry a JPEG or PNG photo, not ${type}: give a photo, or leave this channel out.`,
    );
  }
  return element;
}

export function localPostOf(
  content: DeliveryJob['content'],
  photoUrl: string | undefined,
  languageCode: string | undefined,
): LocalPost {
  const caption = content.caption?.trim() ?? '';
  const link = content.link?.trim();
  if (!caption) throw new NotForPlatform('A Google Business Profile post needs a caption (its summary).');
  const length = [...caption].length;
  if (length > SUMMARY_LIMIT) {
    throw new NotForPlatform(
      `The caption is too long for Google Business Profile: ${length} characters, at most ${SUMMARY_LIMIT}.`,
    );
  }
  return {
    ...(languageCode ? { languageCode } : {}),
    summary: caption,
    topicType: 'STANDARD',
    ...(link ? { callToAction: { actionType: 'LEARN_MORE', url: link } } : {}),
    ...(photoUrl ? { media: [{ mediaFormat: 'PHOTO', sourceUrl: photoUrl }] } : {}),
  };
}
