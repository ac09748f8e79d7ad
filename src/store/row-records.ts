/**
 * Rows of either store → the records of the ports: the columns the queries select and one converter per
 * record, shared by the SQLite and PostgreSQL adapters. They differ only in how a JSON column arrives
 * (SQLite gives its text, node-postgres the parsed value), so a converter of a record with one takes the
 * store's `JsonColumn`. Numbers arrive as numbers from both (PostgreSQL's bigint is parsed as one: a time
 * in ms or an id is far below 2^53).
 */
import type { DeliveryStatus } from '../domain/delivery.js';
import type {
  BrandRecord,
  ChannelRecord,
  DeliveryRecord,
  JobRecord,
  MediaRecord,
  UserRecord,
} from '../ports.js';

export type Row = Readonly<Record<string, unknown>>;
/** A JSON column's value as the store gives it → the value it holds. */
export type JsonColumn = (value: unknown) => unknown;

export const USER_COLUMNS = 'id, name, timezone, joined_at_ms';
export const BRAND_COLUMNS =
  'b.id, b.title, b.description, b.timezone, b.queue_times, b.created_at_ms, b.updated_at_ms';
export const CHANNEL_COLUMNS = 'id, brand_id, name, type, status, created_at_ms, updated_at_ms';
export const COLLECTION_COLUMNS = 'id, brand_id, title, description, status, created_at_ms, updated_at_ms';
export const MEDIA_COLUMNS = 'id, brand_id, type, size, sha256, path, created_at_ms, duration_ms';
/**
 * A delivery as the ports read it: its own row, with what its jobs know (deliveries `d`, its send job
 * `s` and its comment job `c`): the attempts, the time of a retry, the auto-comment's progress.
 */
export const DELIVERY_SELECT = `SELECT d.id, d.post_id, d.channel_id, d.channel_name, d.channel_type, d.status,
  d.reason, d.notes, d.content, d.external_id, d.url, d.sent_at_ms,
  COALESCE(s.attempts, 0) AS attempts,
  CASE WHEN s.status = 'waiting' AND s.step = 'commit' AND s.attempts > 0 THEN s.due_at_ms END AS retry_at_ms,
  CASE c.status WHEN 'waiting' THEN 'pending' WHEN 'active' THEN 'sending' WHEN 'done' THEN 'sent'
    WHEN 'failed' THEN 'failed' ELSE 'none' END AS comment_status,
  c.due_at_ms AS comment_due_at_ms,
  CASE WHEN c.status = 'done' THEN c.finished_at_ms END AS comment_sent_at_ms,
  c.reason AS comment_reason
FROM deliveries d
LEFT JOIN jobs s ON s.delivery_id = d.id AND s.kind = 'send'
LEFT JOIN jobs c ON c.delivery_id = d.id AND c.kind = 'comment'`;

/** The columns of a job row. */
export const JOB_COLUMN_NAMES = [
  'id',
  'kind',
  'delivery_id',
  'post_id',
  'channel_id',
  'status',
  'step',
  'due_at_ms',
  'owner',
  'lease_until_ms',
  'attempts',
  'reason',
  'state',
  'finished_at_ms',
] as const;

export const nullableNumber = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);
export const nullableString = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

export function toUser(row: Row): UserRecord {
  return {
    id: String(row.id),
    name: String(row.name),
    timezone: String(row.timezone),
    joinedAtMs: Number(row.joined_at_ms),
  };
}

export function toBrand(row: Row, json: JsonColumn): BrandRecord {
  return {
    id: Number(row.id),
    title: String(row.title),
    description: nullableString(row.description),
    timezone: String(row.timezone),
    queueTimes: json(row.queue_times) as string[],
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

/** A media record's values, in MEDIA_COLUMNS' order (an INSERT's parameters). */
export function mediaValues(media: MediaRecord): (string | number | null)[] {
  const { id, brandId, type, size, sha256, path, createdAtMs, durationMs } = media;
  return [id, brandId, type, size, sha256, path, createdAtMs, durationMs];
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
    durationMs: row.duration_ms === null || row.duration_ms === undefined ? null : Number(row.duration_ms),
  };
}

export function toDelivery(row: Row, json: JsonColumn): DeliveryRecord {
  return {
    id: Number(row.id),
    postId: Number(row.post_id),
    channelId: Number(row.channel_id),
    channelName: String(row.channel_name),
    channelType: String(row.channel_type) as DeliveryRecord['channelType'],
    status: String(row.status) as DeliveryStatus,
    reason: nullableString(row.reason),
    notes: json(row.notes) as string[],
    content:
      row.content === null || row.content === undefined
        ? null
        : (json(row.content) as DeliveryRecord['content']),
    externalId: nullableString(row.external_id),
    url: nullableString(row.url),
    attempts: Number(row.attempts),
    retryAtMs: nullableNumber(row.retry_at_ms),
    sentAtMs: nullableNumber(row.sent_at_ms),
    commentStatus: String(row.comment_status) as DeliveryRecord['commentStatus'],
    commentDueAtMs: nullableNumber(row.comment_due_at_ms),
    commentSentAtMs: nullableNumber(row.comment_sent_at_ms),
    commentReason: nullableString(row.comment_reason),
  };
}

export function toJob(row: Row, json: JsonColumn): JobRecord {
  return {
    id: Number(row.id),
    kind: String(row.kind) as JobRecord['kind'],
    deliveryId: nullableNumber(row.delivery_id),
    postId: nullableNumber(row.post_id),
    channelId: Number(row.channel_id),
    status: String(row.status) as JobRecord['status'],
    step: String(row.step) as JobRecord['step'],
    dueAtMs: Number(row.due_at_ms),
    owner: nullableString(row.owner),
    leaseUntilMs: nullableNumber(row.lease_until_ms),
    attempts: Number(row.attempts),
    reason: nullableString(row.reason),
    state: (json(row.state) ?? {}) as JobRecord['state'],
    finishedAtMs: nullableNumber(row.finished_at_ms),
  };
}
