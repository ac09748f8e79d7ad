/**
 * The one place that chooses the store's adapter; everything above the Store port is the same whichever
 * it is: PostgreSQL when SOCIAL_PUBLISHER_DATABASE_URL names a server (shared by every instance), else
 * SQLite, one file in the data directory. The PostgreSQL adapter (and pg) is loaded only when chosen.
 * Opening is asynchronous because a server database's adapter connects before it can answer.
 */
import { join } from 'node:path';
import type { Config } from '../config.js';
import { logInfo } from '../logger.js';
import { type PlanSignal, pollingOnly, type Store } from '../ports.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { assertWritableDirectory } from './writable-directory.js';

export const DATABASE_FILE = 'social-publisher.sqlite';

/** A store, and the signal by which the processes sharing it tell one another that the plan changed. */
export interface OpenedStore {
  store: Store;
  planSignal: PlanSignal;
}

/**
 * Opens the store, its schema brought up to date, with its plan signal: LISTEN/NOTIFY on PostgreSQL; on
 * SQLite none (its processes share a file on one machine, and each notices the others' plans by polling). Storage that cannot be used (a read-only or
 * unwritable directory, a file that is not a database, a disk too full, a PostgreSQL server that cannot
 * be reached) is refused with a StorageStartError naming the path or server and the fix.
 */
export async function openStore(config: Pick<Config, 'dataDir' | 'database'>): Promise<OpenedStore> {
  if (config.database) {
    const { openPostgresStore } = await import('./postgres/postgres-store.js');
    const store = await openPostgresStore(config.database.url, { poolSize: config.database.poolSize });
    return { store, planSignal: store.planSignal(logInfo) };
  }
  assertWritableDirectory(
    config.dataDir,
    'data directory',
    `SQLite needs to write ${DATABASE_FILE} and its -wal/-shm files there.`,
  );
  return { store: SqliteStore.open(join(config.dataDir, DATABASE_FILE)), planSignal: pollingOnly };
}
