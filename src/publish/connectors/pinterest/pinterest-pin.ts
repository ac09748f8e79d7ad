/**
 * What a post becomes on Pinterest (API v5, `POST /v5/pins`, the PinCreate schema): one pin on the
 * channel's board.
 *
 * - `title` from the post's title (≤ 100), `description` from the caption (≤ 800), `link` (≤ 2,048),
 *   `alt_text` from alt (≤ 500);
 * - one image: `image_url` when it is a URL element (Pinterest fetches it; nothing goes through us),
 *   `image_base64` for an uploaded file (its bytes, base64 encoded as the body is sent, never held
 *   whole in memory: streamedJson below);
 * - 2 to 5 images: a carousel, `multiple_image_urls` when every image is a URL element, else
 *   `multiple_image_base64`;
 * - one video (with at most one image, its cover): `video_id` with the media id of the upload, the
 *   cover by `cover_image_url` or `cover_image_data`, else the frame at one second
 *   (`cover_image_key_frame_time`).
 * A pin needs media: a post without any is refused before anything is sent.
 */
import { Readable } from 'node:stream';
import type { PlatformMedia } from '../../../domain/delivery.js';
import type { DeliveryJob } from '../../../ports.js';
import type { MediaSource } from '../../connector.js';

export const PIN_LIMITS = { title: 100, description: 800, link: 2048, alt: 500 } as const;
export const PINTEREST_MAX_CAROUSEL = 5;
/** The types Pinterest takes as base64 (`image_base64`'s `content_type` enum). */
const INLINE_IMAGE_TYPES = ['image/jpeg', 'image/png'];
const VIDEO_EXTENSIONS = /\.(mp4|mov|m4v)(?:[?#]|$)/i;

/** Refused before anything is sent (or after Pinterest said why): what a pin cannot take, in our words. */
export class NotForPinterest extends Error {}

export function isVideo(element: PlatformMedia): boolean {
  return element.type ? element.type.startsWith('video/') : VIDEO_EXTENSIONS.test(element.url ?? '');
}

/** How the post's media go: the video (if any), and the images (the carousel, or the video's cover). */
export interface PinMedia {
  video: PlatformMedia | undefined;
  images: PlatformMedia[];
  /** Every image is a URL element: Pinterest fetches them. */
  imagesByUrl: boolean;
}

const length = (text: string) => [...text].length;

/** Refuses, before anything is sent, what Pinterest would refuse; says how the media go. */
export function planPin(content: DeliveryJob['content']): PinMedia {
  const fields: [string, string | undefined, number][] = [
    ['title', content.title, PIN_LIMITS.title],
    ['description (the caption)', content.caption, PIN_LIMITS.description],
    ['link', content.link, PIN_LIMITS.link],
    ['alt text', content.alt, PIN_LIMITS.alt],
  ];
  for (const [name, value, limit] of fields) {
    if (value !== undefined && length(value) > limit) {
      throw new NotForPinterest(
        `The pin's ${name} is ${length(value)} characters; Pinterest takes at most ${limit}.`,
      );
    }
  }
  const videos = content.media.filter(isVideo);
  const images = content.media.filter((element) => !isVideo(element));
  if (content.media.length === 0) {
    throw new NotForPinterest('A Pinterest pin needs an image or a video: add one to the post.');
  }
  if (videos.length > 1) throw new NotForPinterest('A Pinterest pin holds one video, not several.');
  if (videos.length === 1 && images.length > 1) {
    throw new NotForPinterest(
      'A Pinterest video pin takes one image beside the video (its cover), not a carousel.',
    );
  }
  if (images.length > PINTEREST_MAX_CAROUSEL) {
    throw new NotForPinterest(
      `A Pinterest carousel holds 2 to ${PINTEREST_MAX_CAROUSEL} images, not ${images.length}.`,
    );
  }
  return { video: videos[0], images, imagesByUrl: images.every((element) => element.url !== undefined) };
}

/** An image to send as base64: it must be JPEG or PNG. */
export function checkInlineImage(file: MediaSource): void {
  if (!INLINE_IMAGE_TYPES.includes(file.type)) {
    throw new NotForPinterest(`Pinterest takes uploaded images as JPEG or PNG, not ${file.type}.`);
  }
}

/** A base64 field of the body: the file's bytes, encoded as they are sent. */
export interface InlineFile {
  inline: MediaSource;
}

/** The pin's fields (the media source holds InlineFile where bytes go). */
export function pinFields(
  boardId: string,
  content: DeliveryJob['content'],
  mediaSource: Record<string, unknown>,
): Record<string, unknown> {
  return {
    board_id: boardId,
    ...(content.title ? { title: content.title } : {}),
    ...(content.caption ? { description: content.caption } : {}),
    ...(content.link ? { link: content.link } : {}),
    ...(content.alt ? { alt_text: content.alt } : {}),
    media_source: mediaSource,
  };
}

/** The media source of images: by URL, or each file's bytes (InlineFile). */
export function imageSource(urls: readonly string[], files: readonly MediaSource[]): Record<string, unknown> {
  if (urls.length === 1) return { source_type: 'image_url', url: urls[0] };
  if (urls.length > 1) return { source_type: 'multiple_image_urls', items: urls.map((url) => ({ url })) };
  if (files.length === 1) {
    const [file] = files as [MediaSource];
    return { source_type: 'image_base64', content_type: file.type, data: { inline: file } };
  }
  return {
    source_type: 'multiple_image_base64',
    items: files.map((file) => ({ content_type: file.type, data: { inline: file } })),
  };
}

/** The media source of a video pin, with its cover (a URL, a file's bytes, or a frame). */
export function videoSource(mediaId: string, cover: { url?: string; file?: MediaSource }) {
  if (cover.url) return { source_type: 'video_id', media_id: mediaId, cover_image_url: cover.url };
  if (cover.file) {
    return {
      source_type: 'video_id',
      media_id: mediaId,
      cover_image_content_type: cover.file.type,
      cover_image_data: { inline: cover.file },
    };
  }
  return { source_type: 'video_id', media_id: mediaId, cover_image_key_frame_time: 1 };
}

/** Bytes read and encoded at a time: a multiple of 3, so that the pieces join into one base64 text. */
const CHUNK = 3 * 256 * 1024;
const MARK = '\u0000inline:';

/**
 * The body as JSON, each InlineFile written as the base64 text of its file, read a chunk at a time as
 * the body is sent: the body's length is known ahead (content-length), and memory holds one chunk.
 * Made anew for each try (a stream is read once).
 */
export function streamedJson(value: Record<string, unknown>): { length: number; body: () => Readable } {
  const files: MediaSource[] = [];
  const text = JSON.stringify(value, (_key, field: unknown) => {
    if (field && typeof field === 'object' && 'inline' in field) {
      files.push((field as InlineFile).inline);
      return `${MARK}${files.length - 1}`;
    }
    return field;
  });
  const pieces = text.split(/"\\u0000inline:(\d+)"/);
  let total = 0;
  pieces.forEach((piece, index) => {
    total += index % 2 === 0 ? Buffer.byteLength(piece) : 2 + 4 * Math.ceil(files[Number(piece)]!.size / 3);
  });
  async function* generate() {
    for (const [index, piece] of pieces.entries()) {
      if (index % 2 === 0) {
        yield Buffer.from(piece);
        continue;
      }
      const file = files[Number(piece)]!;
      yield Buffer.from('"');
      for (let start = 0; start < file.size; start += CHUNK) {
        const chunk = await file.range(start, Math.min(start + CHUNK, file.size));
        yield Buffer.from(Buffer.from(chunk).toString('base64'));
      }
      yield Buffer.from('"');
    }
  }
  return { length: total, body: () => Readable.from(generate()) };
}

/** The pin's public page. */
export function pinUrl(id: string): string {
  return `https://www.pinterest.com/pin/${encodeURIComponent(id)}/`;
}
