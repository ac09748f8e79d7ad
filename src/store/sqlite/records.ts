/** Rows of the SQLite store → the records of the ports. */
import type { DeliveryStatus } from '../../domain/delivery.js';
import type { BrandRecord, ChannelRecord, DeliveryRecord, MediaRecord, UserRecord } from '../../ports.js';
import type { Row } from './sql.js';

export const USER_COLUMNS = 'id, name, timezone, joined_at_ms';
export const BRAND_COLUMNS =
  'b.id, b.title, b.description, b.timezone, b.queue_times, b.created_at_ms, b.updated_at_ms';
export const CHANNEL_COLUMNS = 'id, brand_id, name, type, status, created_at_ms, updated_at_ms';
export const COLLECTION_COLUMNS = 'id, brand_id, title, description, status, created_at_ms, updated_at_ms';

export function toUser(row: Row): UserRecord {
  return {
    id: String(row.id),
    name: String(row.name),
    timezone: String(row.timezone),
    joinedAtMs: Number(row.joined_at_ms),
  };
}

export function toBrand(row: Row): BrandRecord {
  return {
    id: Number(row.id),
    title: String(row.title),
    description: row.description === null ? null : String(row.description),
    timezone: String(row.timezone),
    queueTimes: JSON.parse(String(row.queue_times)) as string[],
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
  };
}

export function toChannel(row: Row): ChannelRecord {
  return {
    id: Number(row.id),
    brandId: Number(row.brand_id),
    name: String(row.name),
    type: String(row.type) as ChannelRecord['type'],
    status: String(row.status) as ChannelRecord['status'],
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
  };
}

export function toMedia(row: Row): MediaRecord {
  return {
    id: String(row.id),
    brandId: Number(row.brand_id),
    type: String(row.type),
    size: Number(row.size),
    sha256: String(row.sha256),
    path: String(row.path),
    createdAtMs: Number(row.created_at_ms),
  };
}

export const DELIVERY_COLUMNS = `id, post_id, channel_id, channel_name, channel_type, status, reason, notes, content, external_id,
  url, attempts, retry_at_ms, sent_at_ms, comment_status, comment_due_at_ms, comment_sent_at_ms, comment_reason,
  poll_close_at_ms, poll_close_status`;

const nullableNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));
const nullableString = (value: unknown) => (value === null || value === undefined ? null : String(value));

export function toDelivery(row: Row): DeliveryRecord {
  return {
    id: Number(row.id),
    postId: Number(row.post_id),
    channelId: Number(row.channel_id),
    channelName: String(row.channel_name),
    channelType: String(row.channel_type) as DeliveryRecord['channelType'],
    status: String(row.status) as DeliveryStatus,
    reason: nullableString(row.reason),
    notes: JSON.parse(String(row.notes)) as string[],
    content: row.content === null ? null : (JSON.parse(String(row.content)) as DeliveryRecord['content']),
    externalId: nullableString(row.external_id),
    url: nullableString(row.url),
    attempts: Number(row.attempts),
    retryAtMs: nullableNumber(row.retry_at_ms),
    sentAtMs: nullableNumber(row.sent_at_ms),
    commentStatus: String(row.comment_status) as DeliveryRecord['commentStatus'],
    commentDueAtMs: nullableNumber(row.comment_due_at_ms),
    commentSentAtMs: nullableNumber(row.comment_sent_at_ms),
    commentReason: nullableString(row.comment_reason),
    pollCloseAtMs: nullableNumber(row.poll_close_at_ms),
    pollCloseStatus: String(row.poll_close_status) as DeliveryRecord['pollCloseStatus'],
  };
}
