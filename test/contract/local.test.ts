/** The service contract on the local service: a real SQLite file in a temporary data directory. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../src/local-runtime.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { openTestRuntime } from '../support/local.js';
import {
  CONTRACT_NOW,
  type ContractWorld,
  OTHER_API_KEY,
  OTHER_WORKSPACE,
  SOUTHERN_API_KEY,
  type StoredPost,
  serviceContract,
} from './service-contract.js';

async function openLocalWorld(): Promise<ContractWorld> {
  const rt = openTestRuntime({ now: CONTRACT_NOW });
  try {
    // The demo user is resolved as "the only user": do it before the second user exists.
    const service = rt.service;
    rt.importWorkspace(OTHER_WORKSPACE);
    const other = rt.serviceFor(OTHER_API_KEY);
    const southern = rt.serviceFor(SOUTHERN_API_KEY);
    // A second connection to the same file, only for reading what the service stored.
    const db = openDatabase(join(rt.dataDir, DATABASE_FILE));
    const staging = join(rt.dataDir, 'media', 'staging');
    return {
      service,
      other,
      southern,
      clock: rt.clock,
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
      async close() {
        db.close();
        rt.close();
      },
    };
  } catch (error) {
    rt.close();
    throw error;
  }
}

serviceContract('PublishingService contract: local service (SQLite)', openLocalWorld, {
  inspection: true,
  clock: true,
});
