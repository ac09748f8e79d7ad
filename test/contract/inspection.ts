/**
 * Reads what the service stored, through a connection of its own to the runtime's store: its SQLite
 * file, or its PostgreSQL database.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import type { TestRuntime } from '../support/local.js';
import type { ContractWorld, StoredPost } from './service-contract.js';

type Row = Record<string, unknown>;

/** The first row of a statement with at most one parameter, written `?`, on either store. */
interface Reader {
  get(text: string, ...params: number[]): Promise<Row | undefined>;
  close(): Promise<void>;
}

function sqliteReader(dataDir: string): Reader {
  const db = openDatabase(join(dataDir, DATABASE_FILE));
  return {
    get: async (text, ...params) => db.prepare(text).get(...params) as Row | undefined,
    close: async () => db.close(),
  };
}

/** Connects on its first statement: most tests never inspect, and a connection costs a few ms. */
function postgresReader(url: string): Reader {
  let client: Promise<Client> | undefined;
  const connected = () => {
    client ??= (async () => {
      const opened = new Client({ connectionString: url });
      await opened.connect();
      return opened;
    })();
    return client;
  };
  return {
    get: async (text, ...params) =>
      (await (await connected()).query<Row>(text.replace('?', '$1'), params)).rows[0],
    close: async () => {
      await (await client)?.end();
    },
  };
}

export function openInspection(rt: TestRuntime): {
  inspect: NonNullable<ContractWorld['inspect']>;
  close(): Promise<void>;
} {
  const reader = rt.databaseUrl ? postgresReader(rt.databaseUrl) : sqliteReader(rt.dataDir);
  const staging = join(rt.dataDir, 'media', 'staging');
  return {
    inspect: {
      async count(table) {
        return Number((await reader.get(`SELECT COUNT(*) AS n FROM ${table}`))?.n);
      },
      async post(id) {
        const row = await reader.get(
          'SELECT brand_id, collection_id, publish_mode, status, due_at_ms, payload FROM posts WHERE id = ?',
          id,
        );
        if (!row) return undefined;
        const post: StoredPost = {
          brandId: Number(row.brand_id),
          collectionId: Number(row.collection_id),
          publishMode: String(row.publish_mode),
          status: String(row.status),
          dueAtMs: row.due_at_ms === null ? null : Number(row.due_at_ms),
          // SQLite keeps the JSON text; node-postgres parses a json column.
          payload: (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as Record<
            string,
            unknown
          >,
        };
        return post;
      },
      stagingEntries: () => readdirSync(staging),
    },
    close: () => reader.close(),
  };
}
