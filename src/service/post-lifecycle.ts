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
import type { BrandRecord, PostRecord, Store } from '../ports.js';
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
import { requestTime } from './request-time.js';

async function brandOf(context: PostContext, brandId: number): Promise<BrandRecord> {
  const brand = await context.store.findBrandOfUser(context.user.id, brandId);
  if (!brand) throw NotFoundError.brand();
  return brand;
}

async function postOf(store: Store, brand: BrandRecord, postId: number): Promise<PostRecord> {
  const post = await store.posts.find(brand.id, postId);
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

export async function present(context: PostContext, brand: BrandRecord, post: PostRecord): Promise<Post> {
  return presentPost(post, brand, await context.store.deliveries.ofPost(post.id));
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

export async function listPosts(context: PostContext, request: unknown): Promise<Page<Post>> {
  const query = validateOrThrow(ListPostsRequest, request);
  const brand = await brandOf(context, query.brandId);
  const filter = {
    status: query.status,
    collectionId: query.collectionId,
    fromMs: boundMs(query.from, brand.timezone),
    toMs: boundMs(query.to, brand.timezone),
    order: query.order ?? 'newest',
  };
  const { store } = context;
  const page = await readPage(
    query,
    () => store.posts.count(brand.id, filter),
    (window) => store.posts.list(brand.id, filter, window),
    (post) => post,
  );
  const deliveries = await store.deliveries.ofPosts(page.data.map((post) => post.id));
  return { ...page, data: page.data.map((post) => presentPost(post, brand, deliveries.get(post.id) ?? [])) };
}

export async function getPost(context: PostContext, request: unknown): Promise<Post> {
  const { brandId, postId } = validateOrThrow(PostRequest, request);
  const brand = await brandOf(context, brandId);
  return present(context, brand, await postOf(context.store, brand, postId));
}

/**
 * Changes the given fields of a post; `null` removes a field, an absent one is kept. The result is
 * validated as a whole, with the messages of create_post.
 */
export function updatePost(context: PostContext, request: unknown): Promise<Post> {
  return changePost(context, request, requestTime(context.clock));
}

/** `updatePost` at `nowMs`: the time the call arrived, against which a scheduledAt must be future. */
async function changePost(context: PostContext, request: unknown, nowMs: number): Promise<Post> {
  const { store } = context;
  const ids = validateOrThrow(PostRequest.pick({ brandId: true, postId: true }).loose(), request);
  const brand = await brandOf(context, ids.brandId);
  const post = await postOf(store, brand, ids.postId);
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
  const collection = await store.findCollection(brand.id, post.collectionId);
  const checked = await checkPayload(store, brand, collection, raw, nowMs);
  const whole = validate(PostPayload, raw);
  throwIfInvalid(schema.ok ? {} : schema.errors, whole.ok ? {} : whole.errors, checked.errors);
  if (!whole.ok) throw new ValidationError({});
  const payload = whole.value;
  await checkPlaylistChannels(store, brand.id, payload);

  const updated = await store.transaction(
    async (tx) => {
      // Read again in the transaction: the post may have started publishing since it was read.
      const current = await postOf(tx, brand, post.id);
      assertEditable(current, 'changed');
      // Keep a queued post's slot unless its mode changes; otherwise let it give up its old time first.
      const keepsSlot =
        current.publishMode === 'QUEUE' && payload.publishMode === 'QUEUE' && current.status === 'queued';
      if (!keepsSlot) await tx.posts.setStatus(post.id, 'draft', nowMs);
      const timing = keepsSlot
        ? { status: current.status, dueAtMs: current.dueAtMs }
        : await resolveTiming(tx, brand, payload, checked.scheduledAtMs, nowMs);
      await tx.posts.update(
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
      const stored = (await tx.posts.find(brand.id, post.id))!;
      if (timing.status === 'publishing') await startPublishing(tx, stored, nowMs);
      if (timing.status !== 'draft') await tx.announcePlanChange();
      return (await tx.posts.find(brand.id, post.id))!;
    },
    { brandId: brand.id },
  );
  if (updated.status !== 'draft') context.onPlanChanged?.();
  const presented = await present(context, brand, updated);
  const warnings = collection
    ? await preflightPost(
        store,
        collection,
        payload,
        context.defaultConnector ?? 'sandbox',
        context.publicMedia,
        nowMs,
      )
    : [];
  return warnings.length > 0 ? { ...presented, warnings } : presented;
}

export async function deletePost(context: PostContext, request: unknown): Promise<DeletedPost> {
  const nowMs = requestTime(context.clock);
  const { brandId, postId } = validateOrThrow(PostRequest, request);
  const brand = await brandOf(context, brandId);
  // Read and changed in one transaction: the post may not start publishing in between.
  return context.store.transaction(
    async (tx) => {
      const post = await postOf(tx, brand, postId);
      assertEditable(post, 'deleted');
      if (post.status === 'draft') {
        await tx.posts.remove(post.id);
        return { id: post.id, status: 'deleted', message: `Draft ${post.id} was deleted.` };
      }
      await tx.posts.setStatus(post.id, 'cancelled', nowMs);
      return {
        id: post.id,
        status: 'cancelled',
        message: `Post ${post.id} was cancelled: it was ${describePost(post, brand)} and will not be published. Its queue time is free again.`,
      };
    },
    { brandId: brand.id },
  );
}

/** Publishes a draft, queued or scheduled post now (its content is checked as for IMMEDIATE). */
export async function publishPost(context: PostContext, request: unknown): Promise<Post> {
  const nowMs = requestTime(context.clock);
  const { brandId, postId } = validateOrThrow(PostRequest, request);
  const brand = await brandOf(context, brandId);
  const post = await postOf(context.store, brand, postId);
  assertEditable(post, 'published now');
  return changePost(context, { brandId, postId, publishMode: 'IMMEDIATE' }, nowMs);
}
