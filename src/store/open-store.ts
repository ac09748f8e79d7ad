/**
 * The one place that chooses the store's adapter; everything above the Store port is the same whichever
 * it is: PostgreSQL when SOCIAL_PUBLISHER_DATABASE_URL names a server (shared by every instance), else
 * SQLite, one file in the data directory. The PostgreSQL adapter (and pg) is loaded only when chosen.
 * Opening is asynchronous because a server database's adapter connects before it can answer.
 */
import { join } from 'node:path';
import type { Config } from '../config.js';
import { logInfo } from '../logger.js';
import { type EventRelay, type PlanSignal, pollingOnly, type Store } from '../ports.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { assertWritableDirectory } from './writable-directory.js';

export const DATABASE_FILE = 'social-publisher.sqlite';

/** A store, and the signals by which the processes sharing it tell one another what changed. */
export interface OpenedStore {
  store: Store;
  planSignal: PlanSignal;
  eventRelay: EventRelay;
}

/**
 * Opens the store, its schema brought up to date, with its signals: LISTEN/NOTIFY on PostgreSQL; on
 * SQLite none (its processes share a file on one machine, and each notices the others' plans by polling;
 * publishing events stay in the process that published). Storage that cannot be used (a read-only or
 * unwritable directory, a file that is not a database, a disk too full, a PostgreSQL server that cannot
 * be reached) is refused with a StorageStartError naming the path or server and the fix.
 */
export async function openStore(config: Pick<Config, 'dataDir' | 'database'>): Promise<OpenedStore> {
  if (config.database) {
    const { openPostgresStore } = await import('./postgres/postgres-store.js');
    const { url, poolSize, timeoutMs } = config.database;
    const store = await openPostgresStore(url, { poolSize, timeoutMs, log: logInfo });
    const signals = store.signals(logInfo);
    return { store, planSignal: signals, eventRelay: signals };
  }
  assertWritableDirectory(
    config.dataDir,
    'data directory',
    `SQLite needs to write ${DATABASE_FILE} and its -wal/-shm files there.`,
  );
  const store = SqliteStore.open(join(config.dataDir, DATABASE_FILE));
  return { store, planSignal: pollingOnly, eventRelay: pollingOnly };
}
