/**
 * The checks and the time resolution that creating and updating a post share: every validation
 * failure of the payload at once, then the YouTube playlist channels (404), then when the post goes out.
 */
import { createHash } from 'node:crypto';
import { type FieldErrors, mergeFieldErrors, NotFoundError, ValidationError } from '../domain/errors.js';
import { message } from '../domain/messages.js';
import { checkPostRules } from '../domain/post-rules.js';
import type { PostPayload, PostStatus } from '../domain/post-schemas.js';
import { isPlainObject } from '../domain/validation.js';
import type { BrandRecord, CollectionRecord, Store } from '../ports.js';
import { nextFreeQueueSlot } from './queue-slot.js';

async function unknownMediaIds(
  store: Store,
  brandId: number,
  input: Record<string, unknown>,
): Promise<FieldErrors> {
  if (!Array.isArray(input.media)) return {};
  const referenced = input.media
    .map((element, index) => ({ index, id: isPlainObject(element) ? element.id : undefined }))
    .filter((entry): entry is { index: number; id: string } => typeof entry.id === 'string');
  const found = await store.findMedia(brandId, [...new Set(referenced.map((entry) => entry.id))]);
  const known = new Set(found.map((m) => m.id));
  const errors: FieldErrors = {};
  for (const { index, id } of referenced) {
    if (!known.has(id)) errors[`media.${index}.id`] = [message.mediaIdInvalid(index)];
  }
  return errors;
}

export interface PayloadCheck {
  errors: FieldErrors;
  scheduledAtMs: number | undefined;
}

/** The rules beyond the schema, on the (normalized) raw payload: they need the brand, the clock, the store. */
export async function checkPayload(
  store: Store,
  brand: BrandRecord,
  collection: CollectionRecord | undefined,
  raw: Record<string, unknown>,
  nowMs: number,
): Promise<PayloadCheck> {
  const rules = checkPostRules(raw, { timezone: brand.timezone, nowMs });
  const errors = mergeFieldErrors(rules.errors, await unknownMediaIds(store, brand.id, raw));
  const publishes =
    raw.publishMode === 'QUEUE' || raw.publishMode === 'SCHEDULE' || raw.publishMode === 'IMMEDIATE';
  if (collection && collection.channels.length === 0 && publishes)
    errors.collectionId = [message.collectionEmpty];
  return { errors, scheduledAtMs: rules.scheduledAtMs };
}

/** Throws the ValidationError of `errors` when there is any. */
export function throwIfInvalid(...sets: FieldErrors[]): void {
  const errors = mergeFieldErrors(...sets);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/** 404 for a YouTube playlist naming a channel the brand does not have (after validation passed). */
export async function checkPlaylistChannels(
  store: Store,
  brandId: number,
  payload: PostPayload,
): Promise<void> {
  const playlists = payload.platforms?.youtube?.playlists ?? [];
  for (const [index, playlist] of playlists.entries()) {
    if (!(await store.findChannel(brandId, playlist.channelId))) throw NotFoundError.playlistChannel(index);
  }
}

export interface PostTiming {
  status: PostStatus;
  dueAtMs: number | null;
}

/**
 * When the post goes out. Must run on the store of the transaction that stores the post (its `tx`), so
 * that two QUEUE posts never take the same slot.
 */
export async function resolveTiming(
  store: Store,
  brand: BrandRecord,
  payload: PostPayload,
  scheduledAtMs: number | undefined,
  nowMs: number,
): Promise<PostTiming> {
  switch (payload.publishMode) {
    case 'DRAFT':
      return { status: 'draft', dueAtMs: scheduledAtMs ?? null };
    case 'SCHEDULE':
      return { status: 'scheduled', dueAtMs: scheduledAtMs! };
    case 'IMMEDIATE':
      return { status: 'publishing', dueAtMs: nowMs };
    case 'QUEUE': {
      const slot = await nextFreeQueueSlot(store, brand, nowMs);
      if (slot === undefined) {
        throw ValidationError.single(
          'publishMode',
          'The brand has no queue times: use SCHEDULE with a scheduledAt.',
        );
      }
      return { status: 'queued', dueAtMs: slot };
    }
  }
}

/** Identifies "the same post": same collection and the same payload, whatever the key order. */
export function contentHash(collectionId: number, payload: PostPayload): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (isPlainObject(value)) {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, canonical(value[key])]),
      );
    }
    return value;
  };
  return createHash('sha256')
    .update(JSON.stringify([collectionId, canonical(payload)]))
    .digest('hex');
}
