/**
 * Rows of the SQLite store → the records of the ports (src/store/row-records.ts), with SQLite's JSON
 * columns, which arrive as their text.
 */
import type { BrandRecord, DeliveryRecord, JobRecord } from '../../ports.js';
import * as rows from '../row-records.js';

export {
  BRAND_COLUMNS,
  CHANNEL_COLUMNS,
  COLLECTION_COLUMNS,
  MEDIA_COLUMNS,
  mediaValues,
  toChannel,
  toMedia,
  toUser,
  USER_COLUMNS,
} from '../row-records.js';

const fromText: rows.JsonColumn = (value) => JSON.parse(String(value));

export const toBrand = (row: rows.Row): BrandRecord => rows.toBrand(row, fromText);
export const toDelivery = (row: rows.Row): DeliveryRecord => rows.toDelivery(row, fromText);
export const toJob = (row: rows.Row): JobRecord => rows.toJob(row, fromText);
