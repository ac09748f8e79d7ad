/**
 * Post creation: every rule of http-interface.md's post section and product.md, in the order the
 * interface implies: 404 for the brand and the collection, then every validation failure at once
 * (422), then the YouTube playlist channels (404). The queue slot is taken and the post stored in one
 * transaction on the brand, so two posts never get the same slot. An idempotency key, or the same post created
 * again within ten minutes, returns the first post instead of publishing twice.
 */
import { NotFoundError, ValidationError } from '../domain/errors.js';
import { type CreatedPost, CreatePostRequest, type PostPayload } from '../domain/post-schemas.js';
import type { PreflightWarning } from '../domain/preflight.js';
import { dropAbsentValues, isPlainObject, validate } from '../domain/validation.js';
import type { BrandRecord, CollectionRecord, PostRecord, Store } from '../ports.js';
import {
  checkPayload,
  checkPlaylistChannels,
  contentHash,
  type PostTiming,
  resolveTiming,
  throwIfInvalid,
} from './post-checks.js';
import type { PostContext } from './post-context.js';
import { describeOutcome, describePost } from './post-messages.js';
import { preflightPost } from './preflight.js';
import { startPublishing } from './publishing.js';
import { requestTime } from './request-time.js';

/** How long the same post created again counts as a duplicate. */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 ? value : undefined;
}

export async function createPost(context: PostContext, request: unknown): Promise<CreatedPost> {
  const { store, clock, user } = context;
  // "In the future" is judged against the time the call arrived, not the time the database answered.
  const nowMs = requestTime(clock);
  const input = dropAbsentValues(request);
  const raw = isPlainObject(input) ? input : {};
  const schema = validate(CreatePostRequest, input);

  const brandId = positiveInteger(raw.brandId);
  const collectionId = positiveInteger(raw.collectionId);
  // Both read at once (on PostgreSQL, two round trips side by side); the collection counts only if the
  // brand is the user's.
  const [brand, collectionOfBrand] = await Promise.all([
    brandId === undefined ? undefined : store.findBrandOfUser(user.id, brandId),
    brandId === undefined || collectionId === undefined
      ? undefined
      : store.findCollection(brandId, collectionId),
  ]);
  if (brandId !== undefined && !brand) throw NotFoundError.brand();
  const collection = brand ? collectionOfBrand : undefined;
  if (brand && collectionId !== undefined && !collection) throw NotFoundError.collection();

  const checked = brand
    ? await checkPayload(store, brand, collection, raw, nowMs)
    : { errors: {}, scheduledAtMs: undefined };
  throwIfInvalid(schema.ok ? {} : schema.errors, checked.errors);
  if (!schema.ok || !brand || !collection) throw new ValidationError({});

  const { brandId: _b, collectionId: _c, idempotencyKey, dryRun, ...payload } = schema.value;
  await checkPlaylistChannels(store, brand.id, payload);
  const hash = contentHash(collection.id, payload);
  const target = { brand, collection, payload, nowMs, scheduledAtMs: checked.scheduledAtMs };

  // The pre-flight's reads go out now, beside the transaction's statements (on PostgreSQL, on other
  // connections: one round trip fewer to wait for); it is awaited inside the transaction, so that a
  // failed read still stores nothing. Until then, a failure is held for that await (never unhandled).
  // Its reads ask the pool for connections before the transaction does, and the pool serves in order:
  // the transaction never waits for a read queued behind it (postgres/small-pool.test.ts).
  const preflight = preflightPost(
    store,
    collection,
    payload,
    context.defaultConnector ?? 'sandbox',
    context.publicMedia,
    nowMs,
  );
  preflight.catch(() => undefined);
  const withWarnings = (result: CreatedPost, warnings: PreflightWarning[]): CreatedPost =>
    warnings.length > 0 && !result.duplicate ? { ...result, warnings } : result;
  if (dryRun) {
    const warnings = await preflight;
    // Answer what the real call would: a duplicate is reported as one, a reused key as its 422.
    const earlier = await findEarlier(store, brand.id, idempotencyKey, hash, nowMs);
    if (!earlier) return withWarnings(await dryRunResult(store, target), warnings);
    const duplicate = duplicateResult(earlier, brand, idempotencyKey !== undefined);
    return { ...duplicate, dryRun: true, message: `Dry run, nothing stored: ${duplicate.message}` };
  }
  const created = await store.transaction(
    async (tx) => {
      // A repeat is answered with the earlier post, read only when there is one: the insert looks for it
      // in its own statement, under the brand's lock (one round trip fewer).
      const repeated = async (earlier: Earlier): Promise<CreatedPost> => {
        const duplicate = duplicateResult(earlier, brand, idempotencyKey !== undefined);
        await preflight;
        return duplicate;
      };
      const findRepeated = () => findEarlier(tx, brand.id, idempotencyKey, hash, nowMs);
      let timing: PostTiming;
      try {
        timing = await resolveTiming(tx, brand, payload, checked.scheduledAtMs, nowMs);
      } catch (error) {
        // Also when its timing no longer resolves (the brand's queue times gone since).
        const earlier = await findRepeated();
        if (!earlier) throw error;
        return repeated(earlier);
      }
      const id = await tx.posts.insertUnlessRepeated(
        {
          brandId: brand.id,
          collectionId: collection.id,
          userId: user.id,
          publishMode: payload.publishMode,
          status: timing.status,
          payload,
          dueAtMs: timing.dueAtMs,
          createdAtMs: nowMs,
          idempotencyKey: idempotencyKey ?? null,
          contentHash: hash,
        },
        nowMs - DUPLICATE_WINDOW_MS,
      );
      if (id === undefined) return repeated((await findRepeated())!);
      if (timing.status === 'publishing')
        await startPublishing(tx, (await tx.posts.find(brand.id, id))!, nowMs);
      if (payload.publishMode !== 'DRAFT') await tx.announcePlanChange();
      await preflight;
      return { id, message: describeOutcome({ ...target, id, dueAtMs: timing.dueAtMs }) };
    },
    { brandId: brand.id, walksQueue: payload.publishMode === 'QUEUE' },
  );
  if (payload.publishMode !== 'DRAFT' && !created.duplicate) context.onPlanChanged?.();
  return withWarnings(created, await preflight);
}

interface Target {
  brand: BrandRecord;
  collection: CollectionRecord;
  payload: PostPayload;
  nowMs: number;
  scheduledAtMs: number | undefined;
}

/** The post a new one repeats, and whether with the same content (a key reused for other content is not). */
interface Earlier {
  post: PostRecord;
  sameContent: boolean;
}

async function findEarlier(
  store: Store,
  brandId: number,
  idempotencyKey: string | undefined,
  hash: string,
  nowMs: number,
): Promise<Earlier | undefined> {
  if (idempotencyKey !== undefined) {
    const post = await store.posts.findByIdempotencyKey(brandId, idempotencyKey);
    return post && { post, sameContent: post.contentHash === hash };
  }
  const post = await store.posts.findRecentSame(brandId, hash, nowMs - DUPLICATE_WINDOW_MS);
  return post && { post, sameContent: true };
}

function duplicateResult(earlier: Earlier, brand: BrandRecord, byKey: boolean): CreatedPost {
  const { post, sameContent } = earlier;
  if (!sameContent) {
    throw ValidationError.single(
      'idempotencyKey',
      `The idempotency key was already used for post ${post.id}, with different content. Use a new key for a new post.`,
    );
  }
  const why = byKey ? 'the same idempotency key' : 'the same content less than 10 minutes ago';
  return {
    id: post.id,
    duplicate: true,
    message: `Duplicate: post ${post.id} was already created with ${why}; nothing new was created or published. It is ${describePost(post, brand)}.`,
  };
}

/** What creating would do, without storing anything: the time a QUEUE post would take is read, not taken. */
async function dryRunResult(store: Store, target: Target): Promise<CreatedPost> {
  const timing = await resolveTiming(store, target.brand, target.payload, target.scheduledAtMs, target.nowMs);
  return {
    id: null,
    dryRun: true,
    message: `Dry run, nothing stored: valid. ${describeOutcome({ ...target, id: null, dueAtMs: timing.dueAtMs })}`,
  };
}
