/** Stored posts and deliveries → the Post resource of our lifecycle extension. */
import type { Delivery, Post } from '../domain/post-schemas.js';
import { formatLocalTime, formatTimestamp } from '../domain/time.js';
import type { BrandRecord, DeliveryRecord, PostRecord } from '../ports.js';

const timestampOrNull = (epochMs: number | null) => (epochMs === null ? null : formatTimestamp(epochMs));

export function presentDelivery(delivery: DeliveryRecord): Delivery {
  return {
    id: delivery.id,
    channelId: delivery.channelId,
    channelName: delivery.channelName,
    channelType: delivery.channelType,
    status: delivery.status,
    reason: delivery.reason,
    notes: delivery.notes,
    content: delivery.content as Delivery['content'],
    externalId: delivery.externalId,
    url: delivery.url,
    attempts: delivery.attempts,
    retryAt: timestampOrNull(delivery.retryAtMs),
    sentAt: timestampOrNull(delivery.sentAtMs),
    comment: {
      status: delivery.commentStatus,
      dueAt: timestampOrNull(delivery.commentDueAtMs),
      sentAt: timestampOrNull(delivery.commentSentAtMs),
      reason: delivery.commentReason,
    },
  };
}

export function presentPost(
  post: PostRecord,
  brand: BrandRecord,
  deliveries: readonly DeliveryRecord[],
): Post {
  const { publishMode: _mode, scheduledAt: _scheduledAt, ...content } = post.payload;
  return {
    id: post.id,
    brandId: post.brandId,
    collectionId: post.collectionId,
    status: post.status,
    publishMode: post.publishMode,
    timezone: brand.timezone,
    scheduledAt: post.dueAtMs === null ? null : formatLocalTime(post.dueAtMs, brand.timezone),
    dueAt: timestampOrNull(post.dueAtMs),
    content,
    deliveries: deliveries.map(presentDelivery),
    createdAt: formatTimestamp(post.createdAtMs),
    updatedAt: formatTimestamp(post.updatedAtMs),
    publishedAt: timestampOrNull(post.publishedAtMs),
  };
}
