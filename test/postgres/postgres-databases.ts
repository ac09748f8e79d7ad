/**
 * What a test file of test/postgres needs: its own PostgreSQL server (harness.ts) for the file's
 * length, with one migrated database that each test gets emptied, new databases where a test needs one
 * never migrated, stores closed after each test, and plain SQL on the side, to look at what the store
 * wrote. (Emptying takes about 15 ms; creating a database, 100 to 400 ms.)
 */
import { Client } from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { type PostgresServer, startPostgres } from './harness.js';

export interface PostgresDatabases {
  server(): PostgresServer;
  /**
   * The URL of the file's migrated database, emptied (once per test: later calls in the same test give
   * the same database as it is); with `empty`, of a new database nothing was ever written to.
   */
  database(options?: { empty?: boolean }): Promise<string>;
  /** A store on `url` (by default the file's database, emptied), closed after the test. */
  open(url?: string, options?: { poolSize?: number; timeoutMs?: number }): Promise<PostgresStore>;
  /** Runs one statement on `url` with a connection of its own; its rows. */
  query<R extends Record<string, unknown>>(url: string, text: string, params?: unknown[]): Promise<R[]>;
}

/**
 * Every row the store writes goes: a brand takes its channels, collections, media and posts (and their
 * deliveries) with it, a user its keys; only the store's id and the migrations stay.
 */
export const EMPTY = 'DELETE FROM brands; DELETE FROM users; DELETE FROM sandbox_outbox';

/** EMPTY, and every id counts from 1 again, as in a new database. */
export const EMPTY_AND_RESTART_IDS = `${EMPTY};
  SELECT setval(oid, 1, false) FROM pg_class WHERE relkind = 'S' AND relnamespace = 'public'::regnamespace`;

async function query<R extends Record<string, unknown>>(url: string, text: string, params: unknown[] = []) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** Starts the file's server before its tests and stops it after; see PostgresDatabases. */
export function usePostgres(): PostgresDatabases {
  let server: PostgresServer | undefined;
  let shared: string | undefined;
  let emptied = false;
  const stores: PostgresStore[] = [];

  // A server that cannot start (test/postgres not installed, say) fails each test with the reason, rather
  // than the file alone, which would show its tests as skipped.
  let startFailure: unknown;
  beforeAll(async () => {
    try {
      server = await startPostgres();
      shared = await server.createDatabase();
      await (await openPostgresStore(shared)).close();
    } catch (error) {
      startFailure = error;
    }
  }, 60_000);
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    emptied = false;
  });
  afterAll(async () => {
    await server?.stop();
  });

  const running = (): PostgresServer => {
    if (startFailure !== undefined) throw startFailure;
    if (!server || !shared) throw new Error('The PostgreSQL server is not running.');
    return server;
  };
  const databases: PostgresDatabases = {
    server: running,
    async database(options = {}) {
      if (options.empty) return running().createDatabase();
      running();
      if (!emptied) await query(shared!, EMPTY);
      emptied = true;
      return shared!;
    },
    async open(url, options) {
      const store = await openPostgresStore(url ?? (await databases.database()), options);
      stores.push(store);
      return store;
    },
    query,
  };
  return databases;
}
