/**
 * Post creation: every rule of http-interface.md's post section and product.md, in the order the
 * interface implies: 404 for the brand and the collection, then every validation failure at once
 * (422), then the YouTube playlist channels (404). The queue slot is taken and the post stored in one
 * transaction, so two posts never get the same slot.
 */
import { type FieldErrors, mergeFieldErrors, NotFoundError, ValidationError } from '../domain/errors.js';
import { message } from '../domain/messages.js';
import { checkPostRules } from '../domain/post-rules.js';
import { type CreatedPost, CreatePostRequest, type PostPayload } from '../domain/schemas.js';
import { describeLocalTime, formatTimestamp } from '../domain/time.js';
import { dropAbsentValues, isPlainObject, validate } from '../domain/validation.js';
import type { BrandRecord, Clock, CollectionRecord, PostStatus, Store, UserRecord } from '../ports.js';
import { nextFreeQueueSlot } from './queue-slot.js';

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 ? value : undefined;
}

function unknownMediaIds(store: Store, brandId: number, input: Record<string, unknown>): FieldErrors {
  if (!Array.isArray(input.media)) return {};
  const referenced = input.media
    .map((element, index) => ({ index, id: isPlainObject(element) ? element.id : undefined }))
    .filter((entry): entry is { index: number; id: string } => typeof entry.id === 'string');
  const known = new Set(
    store.findMedia(brandId, [...new Set(referenced.map((entry) => entry.id))]).map((m) => m.id),
  );
  const errors: FieldErrors = {};
  for (const { index, id } of referenced) {
    if (!known.has(id)) errors[`media.${index}.id`] = [message.mediaIdInvalid(index)];
  }
  return errors;
}

function describeChannels(collection: CollectionRecord): string {
  const count = collection.channels.length;
  const inactive = collection.channels.filter((channel) => channel.status === 'INACTIVE');
  let text = `${count} channel${count === 1 ? '' : 's'} of collection "${collection.title}"`;
  if (inactive.length > 0) {
    const names = inactive.map((channel) => channel.name).join(', ');
    text += ` (${inactive.length} INACTIVE, will fail until reconnected: ${names})`;
  }
  return text;
}

function describeInstant(epochMs: number, brand: BrandRecord): string {
  return `${describeLocalTime(epochMs, brand.timezone)}, ${formatTimestamp(epochMs)} UTC`;
}

export function createPost(store: Store, clock: Clock, user: UserRecord, request: unknown): CreatedPost {
  const input = dropAbsentValues(request);
  const raw = isPlainObject(input) ? input : {};
  const schema = validate(CreatePostRequest, input);

  const brandId = positiveInteger(raw.brandId);
  const brand = brandId === undefined ? undefined : store.findBrandOfUser(user.id, brandId);
  if (brandId !== undefined && !brand) throw NotFoundError.brand();
  const collectionId = positiveInteger(raw.collectionId);
  const collection =
    brand && collectionId !== undefined ? store.findCollection(brand.id, collectionId) : undefined;
  if (brand && collectionId !== undefined && !collection) throw NotFoundError.collection();

  const nowMs = clock.now();
  const rules = brand ? checkPostRules(raw, { timezone: brand.timezone, nowMs }) : { errors: {} };
  const errors = mergeFieldErrors(
    schema.ok ? {} : schema.errors,
    rules.errors,
    brand ? unknownMediaIds(store, brand.id, raw) : {},
  );
  const publishes =
    raw.publishMode === 'QUEUE' || raw.publishMode === 'SCHEDULE' || raw.publishMode === 'IMMEDIATE';
  if (collection && collection.channels.length === 0 && publishes) {
    errors.collectionId = [message.collectionEmpty];
  }
  if (!schema.ok || Object.keys(errors).length > 0 || !brand || !collection)
    throw new ValidationError(errors);

  const { brandId: _brand, collectionId: _collection, ...payload } = schema.value;
  payload.platforms?.youtube?.playlists?.forEach((playlist, index) => {
    if (!store.findChannel(brand.id, playlist.channelId)) throw NotFoundError.playlistChannel(index);
  });

  return store.transaction(() =>
    storePost(store, { brand, collection, user, payload, nowMs, scheduledAtMs: rules.scheduledAtMs }),
  );
}

interface PostToStore {
  brand: BrandRecord;
  collection: CollectionRecord;
  user: UserRecord;
  payload: PostPayload;
  nowMs: number;
  scheduledAtMs: number | undefined;
}

function storePost(store: Store, post: PostToStore): CreatedPost {
  const { brand, collection, payload, nowMs, scheduledAtMs } = post;
  let status: PostStatus;
  let dueAtMs: number | null;
  switch (payload.publishMode) {
    case 'DRAFT':
      status = 'draft';
      dueAtMs = scheduledAtMs ?? null;
      break;
    case 'SCHEDULE':
      status = 'scheduled';
      dueAtMs = scheduledAtMs!;
      break;
    case 'QUEUE': {
      const slot = nextFreeQueueSlot(store, brand, nowMs);
      if (slot === undefined) {
        throw ValidationError.single(
          'publishMode',
          'The brand has no queue times: use SCHEDULE with a scheduledAt.',
        );
      }
      status = 'queued';
      dueAtMs = slot;
      break;
    }
    case 'IMMEDIATE':
      status = 'publishing';
      dueAtMs = nowMs;
      break;
  }
  const id = store.insertPost({
    brandId: brand.id,
    collectionId: collection.id,
    userId: post.user.id,
    publishMode: payload.publishMode,
    status,
    payload,
    dueAtMs,
    createdAtMs: nowMs,
  });
  return { id, message: resultMessage(post, id, dueAtMs) };
}

function resultMessage(post: PostToStore, id: number, dueAtMs: number | null): string {
  const { brand, collection, payload } = post;
  const channels = describeChannels(collection);
  let text: string;
  switch (payload.publishMode) {
    case 'DRAFT':
      text = `Draft ${id} saved for ${channels}; it is not published or scheduled.`;
      if (dueAtMs !== null) text += ` Planned time: ${describeInstant(dueAtMs, brand)}.`;
      break;
    case 'SCHEDULE':
      text = `Post ${id} scheduled for ${describeInstant(dueAtMs!, brand)}, to ${channels}.`;
      break;
    case 'QUEUE':
      text = `Post ${id} added to the queue of ${brand.title}: it goes out ${describeInstant(dueAtMs!, brand)}, to ${channels}.`;
      break;
    case 'IMMEDIATE':
      text = `Post ${id} is being published now to ${channels}.`;
      break;
  }
  if (
    payload.scheduledAt !== undefined &&
    (payload.publishMode === 'QUEUE' || payload.publishMode === 'IMMEDIATE')
  ) {
    text += ` scheduledAt (${payload.scheduledAt}) was ignored because publishMode is ${payload.publishMode}.`;
  }
  return text;
}
