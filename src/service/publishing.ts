/**
 * Starting and settling publication. Starting plans one delivery per channel of the collection (the
 * platform rules decide what each receives, or why it fails or is skipped); settling derives the
 * post's status from its deliveries once none is left to send.
 */
import { planDelivery } from '../domain/platform-rules.js';
import type { PostStatus } from '../domain/post-schemas.js';
import type { NewDelivery, PostRecord, Store } from '../ports.js';

/** What starting a post did: the deliveries planned, and the post's status if none was left to send. */
export interface PublishingStart {
  deliveries: NewDelivery[];
  settled: PostStatus | undefined;
}

/** Creates the deliveries of a post that is due and marks it publishing. Runs inside a transaction. */
export function startPublishing(store: Store, post: PostRecord, nowMs: number): PublishingStart {
  const collection = store.findCollection(post.brandId, post.collectionId);
  const mediaIds = (post.payload.media ?? []).flatMap((element) => (element.id ? [element.id] : []));
  const mediaTypes = new Map(store.findMedia(post.brandId, mediaIds).map((media) => [media.id, media.type]));
  const deliveries: NewDelivery[] = (collection?.channels ?? []).map((channel) => {
    const plan = planDelivery(post.payload, channel, mediaTypes);
    const base = {
      postId: post.id,
      channelId: channel.id,
      channelName: channel.name,
      channelType: channel.type,
    };
    if (plan.action === 'send') {
      return { ...base, status: 'pending', reason: null, notes: plan.notes, content: plan.content };
    }
    return {
      ...base,
      status: plan.action === 'fail' ? 'failed' : 'skipped',
      reason: plan.reason,
      notes: [],
      content: null,
    };
  });
  store.deliveries.insertMany(deliveries);
  store.posts.setStatus(post.id, 'publishing', nowMs);
  return { deliveries, settled: settlePost(store, post.id, nowMs) };
}

/**
 * Once no delivery is pending or being sent: published when every delivery that could go went,
 * partially published when some failed, failed when none went out. Returns the status only to the
 * one caller that settled the post (it announces it); undefined while deliveries are open, or when
 * the post was settled already.
 */
export function settlePost(store: Store, postId: number, nowMs: number): PostStatus | undefined {
  const counts = store.deliveries.counts(postId);
  if (counts.pending + counts.sending > 0) return undefined;
  let status: PostStatus;
  if (counts.sent === 0) status = 'failed';
  else if (counts.failed > 0) status = 'partially_published';
  else status = 'published';
  return store.posts.finishPublishing(postId, status, nowMs, counts.sent > 0 ? nowMs : null)
    ? status
    : undefined;
}
