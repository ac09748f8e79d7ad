/**
 * The media upload endpoints of the X stand-in (x-server.ts), as docs.x.com/x-api/media describes the
 * dedicated v2 endpoints: `POST /2/media/upload` (one request, `media` and `media_category`),
 * `POST /2/media/upload/initialize` (JSON `media_type`, `total_bytes`, `media_category`),
 * `POST /2/media/upload/:id/append` (multipart `segment_index` 0–999 and `media`), `POST
 * /2/media/upload/:id/finalize` (the segments must add up to `total_bytes`; a video then processes),
 * and `GET /2/media/upload?command=STATUS&media_id=` (pending, in_progress with `progress_percent`,
 * succeeded or failed, each with `check_after_secs`). Uploads expire unattached after a day.
 */
import type { FakeAnswer, FakeRequest, FakeRoute } from './fake-platform/kit.js';

export const EXPIRES_AFTER_SECS = 86_400;

export interface XMedia {
  id: string;
  key: string;
  category: string;
  type: string;
  totalBytes: number;
  /** Bytes received per segment index. */
  segments: Map<number, number>;
  /** The requests' bodies' sizes, in the order they came (one per APPEND). */
  appendSizes: number[];
  finalized: boolean;
  /** Its alt text (`POST /2/media/metadata`). */
  altText: string | null;
  startedAtMs: number;
  readyAtMs: number;
  fails: boolean;
  statusAsked: number;
  expiresAtMs: number;
  ready(nowMs: number): boolean;
}

export type XMediaStore = Map<string, XMedia>;

const CATEGORIES = new Set(['tweet_image', 'tweet_gif', 'tweet_video', 'amplify_video', 'subtitles']);

const invalid = (message: string): FakeAnswer => ({
  status: 400,
  body: {
    errors: [{ message }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: 'https://api.x.com/2/problems/invalid-request',
  },
});

export function registerMedia(world: {
  media: XMediaStore;
  now: () => number;
  newId: () => string;
  processingMs: number;
  fails: boolean;
}): (FakeRoute & { handle(request: FakeRequest): FakeAnswer })[] {
  const { media, now } = world;

  function create(category: string, type: string, totalBytes: number): XMedia {
    const id = world.newId();
    const video = category !== 'tweet_image';
    const item: XMedia = {
      id,
      key: `${video ? 7 : 3}_${id}`,
      category,
      type,
      totalBytes,
      segments: new Map(),
      appendSizes: [],
      finalized: !video,
      altText: null,
      startedAtMs: now(),
      readyAtMs: video ? Number.POSITIVE_INFINITY : now(),
      fails: video && world.fails,
      statusAsked: 0,
      expiresAtMs: now() + EXPIRES_AFTER_SECS * 1000,
      ready: (nowMs) => item.finalized && !item.fails && nowMs >= item.readyAtMs,
    };
    media.set(id, item);
    return item;
  }

  function processingInfo(item: XMedia): Record<string, unknown> | undefined {
    if (item.category === 'tweet_image') return undefined;
    if (item.fails && item.statusAsked > 0) {
      return {
        state: 'failed',
        progress_percent: 0,
        error: { code: 1, name: 'InvalidMedia', message: 'Unsupported video codec' },
      };
    }
    if (item.ready(now())) return { state: 'succeeded', progress_percent: 100 };
    const left = Math.max(1, Math.ceil((item.readyAtMs - now()) / 1000));
    if (item.statusAsked === 0) return { state: 'pending', check_after_secs: left };
    const total = Math.max(1, item.readyAtMs - item.startedAtMs);
    const progress = Math.min(99, Math.floor((100 * (now() - item.startedAtMs)) / total));
    return { state: 'in_progress', check_after_secs: left, progress_percent: progress };
  }

  const entity = (item: XMedia) => {
    const info = processingInfo(item);
    return {
      data: {
        id: item.id,
        media_key: item.key,
        size: item.totalBytes,
        expires_after_secs: Math.max(0, Math.round((item.expiresAtMs - now()) / 1000)),
        ...(info ? { processing_info: info } : {}),
      },
    };
  };

  function simple(request: FakeRequest): FakeAnswer {
    const file = request.body.files.find((part) => part.field === 'media');
    const category = request.body.fields.find(([name]) => name === 'media_category')?.[1];
    if (!file || !category) return invalid('media and media_category are required.');
    if (!CATEGORIES.has(category)) return invalid(`media_category ${category} is not valid.`);
    const item = create(category, file.type, file.size);
    if (category !== 'tweet_image') {
      item.finalized = true;
      item.readyAtMs = now() + world.processingMs;
    }
    return { status: 200, body: entity(item) };
  }

  function initialize(request: FakeRequest): FakeAnswer {
    const body = (request.body.json ?? Object.fromEntries(request.body.fields)) as Record<string, unknown>;
    const total = Number(body.total_bytes);
    const category = String(body.media_category ?? '');
    if (typeof body.media_type !== 'string' || !Number.isInteger(total) || total <= 0) {
      return invalid('media_type and total_bytes are required.');
    }
    if (!CATEGORIES.has(category)) return invalid(`media_category ${category} is not valid.`);
    const item = create(category, body.media_type, total);
    item.finalized = false;
    return { status: 200, body: entity(item) };
  }

  function append(request: FakeRequest): FakeAnswer {
    const item = media.get(request.params.id ?? '');
    if (!item || item.finalized) return invalid('The media id is not valid for APPEND.');
    const index = Number(request.body.fields.find(([name]) => name === 'segment_index')?.[1]);
    const file = request.body.files.find((part) => part.field === 'media');
    if (!Number.isInteger(index) || index < 0 || index > 999)
      return invalid('segment_index must be 0 to 999.');
    if (!file) return invalid('media is required.');
    item.segments.set(index, file.size);
    item.appendSizes.push(file.size);
    return { status: 200, body: { data: { expires_at: Math.floor(item.expiresAtMs / 1000) } } };
  }

  function finalize(request: FakeRequest): FakeAnswer {
    const item = media.get(request.params.id ?? '');
    if (!item) return invalid('The media id is not valid for FINALIZE.');
    const received = [...item.segments.values()].reduce((sum, size) => sum + size, 0);
    if (received !== item.totalBytes) return invalid('Segments do not add up to provided total file size.');
    if (!item.finalized) {
      item.finalized = true;
      item.startedAtMs = now();
      item.readyAtMs = now() + world.processingMs;
    }
    return { status: 200, body: entity(item) };
  }

  function status(request: FakeRequest): FakeAnswer {
    if (request.query.get('command') !== 'STATUS') return invalid('command must be STATUS.');
    const item = media.get(request.query.get('media_id') ?? '');
    if (!item) return invalid('The media id is not valid.');
    const answer = { status: 200, body: entity(item) };
    item.statusAsked++;
    return answer;
  }

  function metadata(request: FakeRequest): FakeAnswer {
    const body = (request.body.json ?? {}) as { id?: unknown; metadata?: { alt_text?: { text?: unknown } } };
    const item = media.get(String(body.id ?? ''));
    if (!item) return invalid('The media id is not valid.');
    const text = body.metadata?.alt_text?.text;
    if (typeof text !== 'string' || [...text].length > 1_000)
      return invalid('alt_text.text must be 1 to 1000 characters.');
    if (item.category === 'tweet_video') return invalid('Alt text is supported for images and GIFs only.');
    item.altText = text;
    return { status: 200, body: { data: { id: item.id, associated_metadata: { alt_text: { text } } } } };
  }

  return [
    { method: 'POST', path: '/2/media/metadata', handle: metadata },
    { method: 'POST', path: '/2/media/upload', handle: simple },
    { method: 'GET', path: '/2/media/upload', handle: status },
    { method: 'POST', path: '/2/media/upload/initialize', handle: initialize },
    { method: 'POST', path: '/2/media/upload/:id/append', handle: append },
    { method: 'POST', path: '/2/media/upload/:id/finalize', handle: finalize },
  ];
}
