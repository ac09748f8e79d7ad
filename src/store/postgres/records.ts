/**
 * Rows of the PostgreSQL store → the records of the ports (src/store/row-records.ts). node-postgres has
 * already parsed `json` and `jsonb` columns, and the pool parses bigint as a number (open-database.ts).
 */
import type { BrandRecord, DeliveryRecord, JobRecord } from '../../ports.js';
import * as rows from '../row-records.js';
import type { Row } from './sql.js';

export {
  BRAND_COLUMNS,
  CHANNEL_COLUMNS,
  COLLECTION_COLUMNS,
  MEDIA_COLUMNS,
  mediaValues,
  nullableNumber,
  nullableString,
  toChannel,
  toMedia,
  toUser,
  USER_COLUMNS,
} from '../row-records.js';

/** node-postgres has parsed `json` and `jsonb` columns already. */
const parsed: rows.JsonColumn = (value) => value;

export const toBrand = (row: Row): BrandRecord => rows.toBrand(row, parsed);
export const toDelivery = (row: Row): DeliveryRecord => rows.toDelivery(row, parsed);
export const toJob = (row: Row): JobRecord => rows.toJob(row, parsed);

/** The smallest value of column `t` of a MIN query, if there was one. */
export function minimum(row: Row | undefined): number | undefined {
  return row?.t === null || row?.t === undefined ? undefined : Number(row.t);
}
