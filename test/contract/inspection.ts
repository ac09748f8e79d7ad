/** Reads what the service stored, through a second connection to its SQLite file. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import type { ContractWorld, StoredPost } from './service-contract.js';

export function openInspection(dataDir: string): {
  inspect: NonNullable<ContractWorld['inspect']>;
  close(): void;
} {
  const db = openDatabase(join(dataDir, DATABASE_FILE));
  const staging = join(dataDir, 'media', 'staging');
  return {
    inspect: {
      count(table) {
        const row = db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number | bigint };
        return Number(row.n);
      },
      post(id) {
        const row = db
          .prepare(
            'SELECT brand_id, collection_id, publish_mode, status, due_at_ms, payload FROM posts WHERE id = ?',
          )
          .get(id) as Record<string, string | number | bigint | null> | undefined;
        if (!row) return undefined;
        const post: StoredPost = {
          brandId: Number(row.brand_id),
          collectionId: Number(row.collection_id),
          publishMode: String(row.publish_mode),
          status: String(row.status),
          dueAtMs: row.due_at_ms === null ? null : Number(row.due_at_ms),
          payload: JSON.parse(String(row.payload)) as Record<string, unknown>,
        };
        return post;
      },
      stagingEntries: () => readdirSync(staging),
    },
    close: () => db.close(),
  };
}
