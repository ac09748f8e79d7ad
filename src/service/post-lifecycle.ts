/**
 * The post lifecycle: list, read, change, delete and publish now. A post can be changed, published
 * now or deleted only while it is a draft, queued or scheduled; once publishing has started it belongs
 * to its deliveries.
 */

import { NotFoundError, ValidationError } from '../domain/errors.js';
import {
  type DeletedPost,
  EDITABLE_STATUSES,
  ListPostsRequest,
  type Post,
  PostPayload,
  PostRequest,
  UpdatePostRequest,
} from '../domain/post-schemas.js';
import { instantsOfWallClock, parseWallClock } from '../domain/time.js';
import { dropAbsentValues, isPlainObject, validate, validateOrThrow } from '../domain/validation.js';
import type { BrandRecord, PostRecord } from '../ports.js';
import { readPage } from './pagination.js';
import {
  checkPayload,
  checkPlaylistChannels,
  contentHash,
  resolveTiming,
  throwIfInvalid,
} from './post-checks.js';
import type { PostContext } from './post-context.js';
import { describePost } from './post-messages.js';
import { presentPost } from './post-resource.js';
import { preflightPost } from './preflight.js';
import { startPublishing } from './publishing.js';
import type { Page } from './publishing-service.js';

function brandOf(context: PostContext, brandId: number): BrandRecord {
  const brand = context.store.findBrandOfUser(context.user.id, brandId);
  if (!brand) throw NotFoundError.brand();
  return brand;
}

function postOf(context: PostContext, brand: BrandRecord, postId: number): PostRecord {
  const post = context.store.posts.find(brand.id, postId);
  if (!post) throw NotFoundError.post();
  return post;
}

function assertEditable(post: PostRecord, action: string): void {
  if (!EDITABLE_STATUSES.has(post.status)) {
    throw ValidationError.single(
      'postId',
      `The post ${post.id} is ${post.status.replace('_', ' ')}: only draft, queued and scheduled posts can be ${action}.`,
    );
  }
}

export function present(context: PostContext, brand: BrandRecord, post: PostRecord): Post {
  return presentPost(post, brand, context.store.deliveries.ofPost(post.id));
}

/** A local `Y-m-d H:i:s` bound of a filter, in UTC ms; a bound inside a DST gap means the first minute after it. */
function boundMs(text: string | undefined, timezone: string): number | undefined {
  if (text === undefined) return undefined;
  const wall = parseWallClock(text)!;
  for (let minutes = 0; minutes <= 24 * 60; minutes++) {
    const shifted = new Date(
      Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute + minutes, wall.second),
    );
    const [instant] = instantsOfWallClock(
      {
        year: shifted.getUTCFullYear(),
        month: shifted.getUTCMonth() + 1,
        day: shifted.getUTCDate(),
        hour: shifted.getUTCHours(),
        minute: shifted.getUTCMinutes(),
        second: shifted.getUTCSeconds(),
      },
      timezone,
    );
    if (instant !== undefined) return instant;
  }
  return undefined;
}

export function listPosts(context: PostContext, request: unknown): Page<Post> {
  const query = validateOrThrow(ListPostsRequest, request);
  const brand = brandOf(context, query.brandId);
  const filter = {
    status: query.status,
    collectionId: query.collectionId,
    fromMs: boundMs(query.from, brand.timezone),
    toMs: boundMs(query.to, brand.timezone),
    order: query.order ?? 'newest',
  };
  const { store } = context;
  const page = readPage(
    query,
    () => store.posts.count(brand.id, filter),
    (window) => store.posts.list(brand.id, filter, window),
    (post) => post,
  );
  const deliveries = store.deliveries.ofPosts(page.data.map((post) => post.id));
  return { ...page, data: page.data.map((post) => presentPost(post, brand, deliveries.get(post.id) ?? [])) };
}

export function getPost(context: PostContext, request: unknown): Post {
  const { brandId, postId } = validateOrThrow(PostRequest, request);
  const brand = brandOf(context, brandId);
  return present(context, brand, postOf(context, brand, postId));
}

/**
 * Changes the given fields of a post; `null` removes a field, an absent one is kept. The result is
 * validated as a whole, with the messages of create_post.
 */
export function updatePost(context: PostContext, request: unknown): Post {
  const { store, clock } = context;
  const ids = validateOrThrow(PostRequest.pick({ brandId: true, postId: true }).loose(), request);
  const brand = brandOf(context, ids.brandId);
  const post = postOf(context, brand, ids.postId);
  assertEditable(post, 'changed');

  const given = isPlainObject(request) ? request : {};
  const schema = validate(UpdatePostRequest, given);
  const merged: Record<string, unknown> = { ...post.payload };
  for (const [key, value] of Object.entries(given)) {
    if (key === 'brandId' || key === 'postId') continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const raw = dropAbsentValues(merged) as Record<string, unknown>;
  const nowMs = clock.now();
  const collection = store.findCollection(brand.id, post.collectionId);
  const checked = checkPayload(store, brand, collection, raw, nowMs);
  const whole = validate(PostPayload, raw);
  throwIfInvalid(schema.ok ? {} : schema.errors, whole.ok ? {} : whole.errors, checked.errors);
  if (!whole.ok) throw new ValidationError({});
  const payload = whole.value;
  checkPlaylistChannels(store, brand.id, payload);

  const updated = store.transaction(() => {
    // Keep a queued post's slot unless its mode changes; otherwise let it give up its old time first.
    const keepsSlot =
      post.publishMode === 'QUEUE' && payload.publishMode === 'QUEUE' && post.status === 'queued';
    if (!keepsSlot) store.posts.setStatus(post.id, 'draft', nowMs);
    const timing = keepsSlot
      ? { status: post.status, dueAtMs: post.dueAtMs }
      : resolveTiming(store, brand, payload, checked.scheduledAtMs, nowMs);
    store.posts.update(
      post.id,
      {
        collectionId: post.collectionId,
        publishMode: payload.publishMode,
        status: timing.status,
        payload,
        dueAtMs: timing.dueAtMs,
        contentHash: contentHash(post.collectionId, payload),
      },
      nowMs,
    );
    const stored = store.posts.find(brand.id, post.id)!;
    if (timing.status === 'publishing') startPublishing(store, stored, nowMs);
    return store.posts.find(brand.id, post.id)!;
  });
  if (updated.status !== 'draft') context.onPlanChanged?.();
  const presented = present(context, brand, updated);
  const warnings = collection
    ? preflightPost(store, collection, payload, context.defaultConnector ?? 'sandbox')
    : [];
  return warnings.length > 0 ? { ...presented, warnings } : presented;
}

export function deletePost(context: PostContext, request: unknown): DeletedPost {
  const { brandId, postId } = validateOrThrow(PostRequest, request);
  const brand = brandOf(context, brandId);
  const post = postOf(context, brand, postId);
  assertEditable(post, 'deleted');
  const nowMs = context.clock.now();
  if (post.status === 'draft') {
    context.store.posts.remove(post.id);
    return { id: post.id, status: 'deleted', message: `Draft ${post.id} was deleted.` };
  }
  context.store.posts.setStatus(post.id, 'cancelled', nowMs);
  return {
    id: post.id,
    status: 'cancelled',
    message: `Post ${post.id} was cancelled: it was ${describePost(post, brand)} and will not be published. Its queue time is free again.`,
  };
}

/** Publishes a draft, queued or scheduled post now (its content is checked as for IMMEDIATE). */
export function publishPost(context: PostContext, request: unknown): Post {
  const { brandId, postId } = validateOrThrow(PostRequest, request);
  const brand = brandOf(context, brandId);
  const post = postOf(context, brand, postId);
  assertEditable(post, 'published now');
  return updatePost(context, { brandId, postId, publishMode: 'IMMEDIATE' });
}
