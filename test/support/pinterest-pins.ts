/**
 * The pins of the Pinterest stand-in (pinterest-server.ts): `POST /v5/pins`'s PinCreate checked as
 * API v5 documents it, each media source read as Pinterest does (URLs downloaded, base64 decoded, a
 * video's processing state and cover).
 */
import type { FakeAnswer, FakeRequest } from './fake-platform/kit.js';

export interface PinterestPin {
  id: string;
  boardId: string;
  title: string | null;
  description: string | null;
  link: string | null;
  altText: string | null;
  sourceType: string;
  /** Each image's bytes (decoded base64, or downloaded from its URL), or the video's. */
  imageBytes: number[];
  imageUrls: string[];
  videoId: string | null;
  cover: 'url' | 'data' | 'key_frame' | null;
  createdAtMs: number;
}

/** A pin as the API answers it (the Pin schema's fields we use), in a create's answer and a list. */
export function pinJson(pin: PinterestPin) {
  return {
    id: pin.id,
    created_at: new Date(pin.createdAtMs).toISOString(),
    board_id: pin.boardId,
    title: pin.title,
    description: pin.description,
    link: pin.link,
    alt_text: pin.altText,
  };
}

export interface PinterestVideo {
  id: string;
  key: string;
  policy: string;
  bytes: number | null;
  uploadedAtMs: number | null;
  failed: boolean;
}

export interface PinWorld {
  boards: readonly { id: string; name: string }[];
  videos: ReadonlyMap<string, PinterestVideo>;
  statusOf(video: PinterestVideo): string;
  newId(): string;
  now(): number;
}

export const pinterestError = (
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
) => ({
  status,
  ...(headers ? { headers } : {}),
  body: { code, message },
});
const invalid = (message: string) => pinterestError(400, 1, `Invalid request: ${message}`);

async function download(url: string): Promise<number | null> {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    if (!answer.ok || !(answer.headers.get('content-type') ?? '').startsWith('image/')) return null;
    const bytes = (await answer.arrayBuffer()).byteLength;
    return bytes > 0 ? bytes : null;
  } catch {
    return null;
  }
}

const decoded = (type: unknown, data: unknown): number | string => {
  if (type !== 'image/jpeg' && type !== 'image/png') return 'content_type must be image/jpeg or image/png.';
  if (typeof data !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length === 0) {
    return 'data is not base64.';
  }
  return Buffer.from(data, 'base64').length;
};

export async function pinOf(
  request: FakeRequest,
  world: PinWorld,
): Promise<FakeAnswer | { pin: PinterestPin; answer: FakeAnswer }> {
  const { boards, videos, statusOf, newId, now } = world;
  const body = (request.body.json ?? {}) as Record<string, unknown>;
  const text = (name: string, limit: number): string | null | FakeAnswer => {
    const value = body[name];
    if (value === undefined) return null;
    if (typeof value !== 'string' || [...value].length > limit) {
      return invalid(`${name} must be a string of at most ${limit} characters.`);
    }
    return value;
  };
  const boardId = body.board_id;
  if (typeof boardId !== 'string' || !/^\d+$/.test(boardId)) {
    return invalid(`board_id '${String(boardId)}' does not match '^\\d+$'.`);
  }
  if (!boards.some((board) => board.id === boardId)) return pinterestError(404, 40, 'Board not found.');
  const fields = [text('title', 100), text('description', 800), text('link', 2048), text('alt_text', 500)];
  const refused = fields.find((field) => typeof field === 'object' && field !== null);
  if (refused) return refused as FakeAnswer;
  const [title, description, link, altText] = fields as (string | null)[];
  const source = (body.media_source ?? {}) as Record<string, unknown>;
  const pin: PinterestPin = {
    id: newId(),
    boardId,
    title: title ?? null,
    description: description ?? null,
    link: link ?? null,
    altText: altText ?? null,
    sourceType: String(source.source_type),
    imageBytes: [],
    imageUrls: [],
    videoId: null,
    cover: null,
    createdAtMs: now(),
  };
  const items = Array.isArray(source.items) ? (source.items as Record<string, unknown>[]) : [];
  switch (source.source_type) {
    case 'image_url':
    case 'multiple_image_urls': {
      const urls = source.source_type === 'image_url' ? [source.url] : items.map((item) => item.url);
      if (source.source_type !== 'image_url' && (urls.length < 2 || urls.length > 5)) {
        return invalid('constraint: minItems=2, maxItems=5 for items.');
      }
      for (const url of urls) {
        const bytes = typeof url === 'string' ? await download(url) : null;
        if (bytes === null) return invalid(`Unable to reach the URL ${String(url)}.`);
        pin.imageUrls.push(url as string);
        pin.imageBytes.push(bytes);
      }
      break;
    }
    case 'image_base64':
    case 'multiple_image_base64': {
      const images = source.source_type === 'image_base64' ? [source] : items;
      if (source.source_type !== 'image_base64' && (images.length < 2 || images.length > 5)) {
        return invalid('constraint: minItems=2, maxItems=5 for items.');
      }
      for (const image of images) {
        const bytes = decoded(image.content_type, image.data);
        if (typeof bytes === 'string') return invalid(bytes);
        pin.imageBytes.push(bytes);
      }
      break;
    }
    case 'video_id': {
      const video = videos.get(String(source.media_id));
      if (!video || statusOf(video) !== 'succeeded') {
        return invalid(`media_id ${String(source.media_id)} is not a video that finished processing.`);
      }
      if (typeof source.cover_image_url === 'string') pin.cover = 'url';
      else if (source.cover_image_data !== undefined) {
        if (typeof decoded(source.cover_image_content_type, source.cover_image_data) === 'string') {
          return invalid('cover_image_data must be base64 of image/jpeg or image/png.');
        }
        pin.cover = 'data';
      } else if (typeof source.cover_image_key_frame_time === 'number') pin.cover = 'key_frame';
      else return invalid('Missing cover_image_url or cover_image_content_type and cover_image_data.');
      pin.videoId = video.id;
      pin.imageBytes.push(video.bytes ?? 0);
      break;
    }
    default:
      return invalid('media_source.source_type is not one of the documented types.');
  }
  return { pin, answer: { status: 201, body: pinJson(pin) } };
}
