/**
 * What the Mastodon stand-in (mastodon-server.ts) takes in a status, and the status it makes of it:
 * PostStatusService's checks of media and polls, StatusLengthValidator's count, with Mastodon's error
 * wording; and the instance's description of those limits (GET /api/v2/instance).
 */
import type { FakeAnswer } from './fake-platform/kit.js';
import { stringOr } from './mastodon-sign-in.js';

type Json = Record<string, unknown>;

export interface CreatedStatus {
  id: string;
  text: string;
  mediaIds: string[];
  /** Each attached media's description (alt text), null when it had none. */
  descriptions: (string | null)[];
  poll: { options: string[]; expiresIn: number; multiple: boolean } | null;
  inReplyToId: string | null;
  idempotencyKey: string | null;
  visibility: string;
}

export interface UploadedMedia {
  id: string;
  type: 'image' | 'video';
  mimeType: string;
  fileName: string;
  size: number;
  description: string | null;
  /** GETs still to answer 206. */
  processingPolls: number;
  /** A video processing by time (`videoProcessingMs`) is ready then; 0 otherwise. */
  readyAtMs: number;
  statusId: string | null;
}

export const MIME_TYPES: Record<string, 'image' | 'video'> = {
  'image/jpeg': 'image',
  'image/png': 'image',
  'image/gif': 'image',
  'image/webp': 'image',
  'video/mp4': 'video',
  'video/quicktime': 'video',
  'video/webm': 'video',
};
const MAX_MEDIA = 4;
const POLL_LIMITS = { options: 4, characters: 50, min: 300, max: 2_629_746 };

export interface StatusBook {
  statuses: CreatedStatus[];
  media: Map<string, UploadedMedia>;
  maxCharacters: number;
  newId(): string;
  /** The status as the API shows it. */
  entityOf(status: CreatedStatus): Json;
  /** Whether an uploaded file is still processing. */
  processing(item: UploadedMedia): boolean;
}

/**
 * POST /api/v1/statuses: a status made of `params`, or Mastodon's refusal. A repeated Idempotency-Key
 * (kept per account) answers with the status the first request made.
 */
export function statusMaker(book: StatusBook): (params: Json, key: string | null) => FakeAnswer {
  const { statuses, media, maxCharacters, newId } = book;
  const statusEntity = book.entityOf;
  const idempotency = new Map<string, string>();
  return function createStatus(params, key) {
    const inReplyToId = stringOr(params.in_reply_to_id);
    if (inReplyToId && !statuses.some((status) => status.id === inReplyToId)) {
      return {
        status: 404,
        body: { error: 'The post you are trying to reply to does not appear to exist.' },
      };
    }
    const earlier = key === null ? undefined : idempotency.get(key);
    if (earlier)
      return { status: 200, body: statusEntity(statuses.find((status) => status.id === earlier)!) };
    const text = stringOr(params.status) ?? '';
    const mediaIds = Array.isArray(params.media_ids) ? params.media_ids.map(String) : [];
    const poll = params.poll as Json | undefined;
    const invalid = (error: string) => ({ status: 422, body: { error } });
    if (mediaIds.length > 0) {
      // PostStatusService#validate_media!: a poll with media is refused with the "too many" wording.
      if (mediaIds.length > MAX_MEDIA || poll) return invalid(`Cannot attach more than ${MAX_MEDIA} files`);
      const missing = mediaIds.filter((id) => media.get(id)?.statusId !== null);
      if (missing.length > 0) {
        return invalid(`Media ${missing.join(', ')} not found or already attached to another post`);
      }
      const attached = mediaIds.map((id) => media.get(id)!);
      if (attached.length > 1 && attached.some((item) => item.type === 'video')) {
        return invalid('Cannot attach a video to a post that already contains images');
      }
      if (attached.some(book.processing)) {
        return invalid('Cannot attach files that have not finished processing. Try again in a moment!');
      }
    }
    if (text.trim() === '' && mediaIds.length === 0) return invalid("Validation failed: Text can't be blank");
    if (countableLength(text) > maxCharacters) {
      return invalid(`Validation failed: Text character limit of ${maxCharacters} exceeded`);
    }
    let parsedPoll: CreatedStatus['poll'] = null;
    if (poll) {
      const pollOptions = Array.isArray(poll.options) ? poll.options.map(String) : [];
      const expiresIn = Number(poll.expires_in);
      const problem =
        pollOptions.length < 2
          ? 'Poll options must have more than one item'
          : pollOptions.length > POLL_LIMITS.options
            ? `Poll options can't contain more than ${POLL_LIMITS.options} items`
            : pollOptions.some((option) => graphemes(option) > POLL_LIMITS.characters)
              ? `Poll options cannot be longer than ${POLL_LIMITS.characters} characters each`
              : !Number.isFinite(expiresIn) || expiresIn < POLL_LIMITS.min
                ? 'Poll expires at is too soon'
                : expiresIn > POLL_LIMITS.max
                  ? 'Poll expires at is too far into the future'
                  : undefined;
      if (problem) return invalid(`Validation failed: ${problem}`);
      parsedPoll = {
        options: pollOptions,
        expiresIn,
        multiple: poll.multiple === true || poll.multiple === 'true',
      };
    }
    const status: CreatedStatus = {
      id: newId(),
      text,
      mediaIds,
      descriptions: mediaIds.map((id) => media.get(id)!.description),
      poll: parsedPoll,
      inReplyToId: inReplyToId ?? null,
      idempotencyKey: key,
      visibility: stringOr(params.visibility) ?? 'public',
    };
    statuses.push(status);
    for (const id of mediaIds) media.get(id)!.statusId = status.id;
    if (key !== null) idempotency.set(key, status.id);
    return { status: 200, body: statusEntity(status) };
  };
}

export function instanceEntity(host: string, maxCharacters: number): Json {
  return {
    domain: host.split(':')[0],
    title: 'Stand-in',
    version: '4.4.0',
    configuration: {
      statuses: {
        max_characters: maxCharacters,
        max_media_attachments: MAX_MEDIA,
        characters_reserved_per_url: 23,
      },
      media_attachments: {
        supported_mime_types: Object.keys(MIME_TYPES),
        description_limit: 1500,
        image_size_limit: 16_777_216,
        video_size_limit: 103_809_024,
      },
      polls: {
        max_options: POLL_LIMITS.options,
        max_characters_per_option: POLL_LIMITS.characters,
        min_expiration: POLL_LIMITS.min,
        max_expiration: POLL_LIMITS.max,
      },
    },
  };
}

/** StatusLengthValidator: grapheme clusters, a URL as 23, a mention without its domain. */
function countableLength(text: string): number {
  return graphemes(
    text
      .replace(/https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]']/g, 'x'.repeat(23))
      .replace(/@(\w+)@[\w.-]+\w/g, '@$1'),
  );
}

function graphemes(text: string): number {
  return [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].length;
}
