/**
 * Rows of the PostgreSQL store → the records of the ports. node-postgres has already parsed `json` and
 * `jsonb` columns, and the pool parses bigint as a number (open-database.ts): a time in ms or an id is
 * far below 2^53.
 */
import type { BrandRecord, ChannelRecord, MediaRecord, UserRecord } from '../../ports.js';
import type { Row } from './sql.js';

export const USER_COLUMNS = 'id, name, timezone, joined_at_ms';
export const BRAND_COLUMNS =
  'b.id, b.title, b.description, b.timezone, b.queue_times, b.created_at_ms, b.updated_at_ms';
export const CHANNEL_COLUMNS = 'id, brand_id, name, type, status, created_at_ms, updated_at_ms';
export const COLLECTION_COLUMNS = 'id, brand_id, title, description, status, created_at_ms, updated_at_ms';
export const MEDIA_COLUMNS = 'id, brand_id, type, size, sha256, path, created_at_ms';

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

export function toBrand(row: Row): BrandRecord {
  return {
    id: Number(row.id),
    title: String(row.title),
    description: nullableString(row.description),
    timezone: String(row.timezone),
    queueTimes: row.queue_times as string[],
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

/** The smallest value of column `t` of a MIN query, if there was one. */
export function minimum(row: Row | undefined): number | undefined {
  return row?.t === null || row?.t === undefined ? undefined : Number(row.t);
}
