/**
 * Starting and settling publication. Starting plans one delivery per channel of the collection (the
 * platform rules decide what each receives, or why it fails or is skipped); settling derives the
 * post's status from its deliveries once none is left to send.
 */

import { createHash } from 'node:crypto';
import type { PlatformContent } from '../domain/delivery.js';
import { planDelivery } from '../domain/platform-rules.js';
import type { PostStatus } from '../domain/post-schemas.js';
import type { CollectionRecord, JobRecord, NewDelivery, PostRecord, StepState, Store } from '../ports.js';

/** What starting a post did: the deliveries planned, and the post's status if none was left to send. */
export interface PublishingStart {
  deliveries: NewDelivery[];
  settled: PostStatus | undefined;
}

/** Collections read by earlier starts in the same transaction, by brand and id (a batch of due posts). */
export type CollectionsRead = Map<string, Promise<CollectionRecord | undefined>>;

/**
 * Creates the deliveries of a post that is due and marks it publishing. Runs inside a transaction
 * (`store` is its `tx`); `collections`, shared by the starts of one transaction, reads each collection once.
 */
export async function startPublishing(
  store: Store,
  post: PostRecord,
  nowMs: number,
  collections: CollectionsRead = new Map(),
): Promise<PublishingStart> {
  const key = `${post.brandId} ${post.collectionId}`;
  let read = collections.get(key);
  if (!read) {
    read = store.findCollection(post.brandId, post.collectionId);
    collections.set(key, read);
  }
  const collection = await read;
  const mediaIds = (post.payload.media ?? []).flatMap((element) => (element.id ? [element.id] : []));
  const media = await store.findMedia(post.brandId, mediaIds);
  const mediaTypes = new Map(media.map((record) => [record.id, record.type]));
  // What was prepared ahead for this content (media uploaded before the due time) goes to its send;
  // only a post with media is prepared.
  const prepared = post.payload.media?.length ? await store.jobs.preparedFor(post.id) : new Map();
  const deliveries: NewDelivery[] = (collection?.channels ?? []).map((channel) => {
    const plan = planDelivery(post.payload, channel, mediaTypes);
    const base = {
      postId: post.id,
      channelId: channel.id,
      channelName: channel.name,
      channelType: channel.type,
    };
    if (plan.action === 'send') {
      const ahead = preparedState(prepared.get(channel.id), plan.content, nowMs);
      return {
        ...base,
        status: 'pending',
        reason: null,
        notes: plan.notes,
        content: plan.content,
        prepared: ahead,
      };
    }
    return {
      ...base,
      status: plan.action === 'fail' ? 'failed' : 'skipped',
      reason: plan.reason,
      notes: [],
      content: null,
    };
  });
  await store.deliveries.insertMany(deliveries, nowMs);
  if (prepared.size > 0) await store.jobs.dropPrepared(post.id);
  await store.posts.setStatus(post.id, 'publishing', nowMs);
  // A delivery left to send: the post cannot be settled yet (its last send settles it).
  if (deliveries.some((delivery) => delivery.status === 'pending')) return { deliveries, settled: undefined };
  return { deliveries, settled: await settlePost(store, post.id, nowMs) };
}

/**
 * Once no delivery is pending or being sent: published when every delivery that could go went,
 * partially published when some failed, failed when none went out. Returns the status only to the
 * one caller that settled the post (it announces it); undefined while deliveries are open, or when
 * the post was settled already.
 */
export async function settlePost(
  store: Store,
  postId: number,
  nowMs: number,
): Promise<PostStatus | undefined> {
  const counts = await store.deliveries.counts(postId);
  if (counts.pending + counts.sending > 0) return undefined;
  let status: PostStatus;
  if (counts.sent === 0) status = 'failed';
  else if (counts.failed > 0) status = 'partially_published';
  else status = 'published';
  const finished = await store.posts.finishPublishing(postId, status, nowMs, counts.sent > 0 ? nowMs : null);
  return finished ? status : undefined;
}

/**
 * The state a prepare job left for this content: only a finished one, made for this very content (the
 * post may have changed since), while the platform still keeps what was prepared (a post moved later
 * may outlive it), is handed to the send.
 */
function preparedState(
  job: JobRecord | undefined,
  content: PlatformContent,
  nowMs: number,
): StepState | undefined {
  if (job?.status !== 'done') return undefined;
  const {
    content: preparedFor,
    keptUntilMs,
    ...state
  } = job.state as {
    content?: string;
    keptUntilMs?: number;
  };
  if (keptUntilMs !== undefined && nowMs >= keptUntilMs) return undefined;
  return preparedFor === contentKey(content) ? state : undefined;
}

/** What a prepare job remembers of the content it prepared, to tell whether it still matches. */
export function contentKey(content: PlatformContent): string {
  return createHash('sha256').update(JSON.stringify(content)).digest('base64url');
}
