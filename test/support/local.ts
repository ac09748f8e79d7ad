/**
 * A real embedded service on a fresh store: a SQLite file in a temporary data directory, or, in the
 * `postgres` project of vitest.config.ts, a PostgreSQL database of the run's server with nothing in it
 * (test/postgres/run-databases.ts). Media stay in the temporary data directory either way.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { Config } from '../../src/config.js';
import { type LocalRuntime, openLocalRuntime } from '../../src/local-runtime.js';
import type { Workspace } from '../../src/publish/connectors/schemas.js';
import { authenticate, resolveLocalUser } from '../../src/service/acting-user.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { type ImportedIds, importWorkspace } from '../../src/service/workspace.js';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import type { Sql } from '../../src/store/sqlite/sql.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { RunDatabase } from '../postgres/run-databases.js';
import { FakeClock } from './fake-clock.js';
import { makeTempDir } from './temp-dirs.js';

/** The stores a test runtime can open. */
export type TestStore = 'sqlite' | 'postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The store of the project's runtimes (vitest.config.ts); SQLite when not given. */
    testStore: TestStore;
  }
}

/** The store this test file's runtimes open, as its vitest project says. */
export function storeUnderTest(): TestStore {
  return inject('testStore') ?? 'sqlite';
}

export const STORE_NAMES: Record<TestStore, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

/** 2026-11-21 12:00:00 UTC, a Saturday: 07:00 in New York (EST), 21:00 in Tokyo. */
export const TEST_NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

export interface TestRuntime {
  dataDir: string;
  /** The store's kind; for PostgreSQL, `databaseUrl` names its database. */
  store: TestStore;
  databaseUrl?: string;
  /** Where the runtime's store is: for opening another runtime on it, as another process would. */
  storeConfig: Pick<Config, 'dataDir' | 'database'>;
  runtime: LocalRuntime;
  /**
   * The connection of the runtime's store, for tests that run SQL or provoke a fault: SQLite only
   * (throws on PostgreSQL).
   */
  sql: Sql;
  clock: FakeClock;
  /** The service acting as the demo user (or the only user). */
  service: LocalPublishingService;
  /** The service acting as the owner of `apiKey`. */
  serviceFor(apiKey: string): Promise<LocalPublishingService>;
  importWorkspace(workspace: Workspace): Promise<ImportedIds>;
  close(): Promise<void>;
}

export { makeTempDir };

/**
 * Opens a runtime with the demo workspace (unless `demo: false`) and a fake clock at TEST_NOW, on the
 * store of the file's vitest project.
 */
export async function openTestRuntime(options: { demo?: boolean; now?: number } = {}): Promise<TestRuntime> {
  const store = storeUnderTest();
  const dataDir = makeTempDir();
  const clock = new FakeClock(options.now ?? TEST_NOW);
  let database: RunDatabase | undefined;
  let storeConfig: TestRuntime['storeConfig'];
  let runtime: LocalRuntime;
  try {
    // Loaded only here: the SQLite runs need neither pg nor the server's harness.
    if (store === 'postgres') {
      const { takeRunDatabase } = await import('../postgres/run-databases.js');
      database = await takeRunDatabase();
    }
    // The pool size is SOCIAL_PUBLISHER_DATABASE_POOL_SIZE's default.
    storeConfig = database ? { dataDir, database: { url: database.url, poolSize: 10 } } : { dataDir };
    runtime = await openLocalRuntime({ ...storeConfig, demo: options.demo ?? true }, { clock });
  } catch (error) {
    database?.release();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  // As in stdio mode: upload paths name files on this machine.
  const local = { ...runtime, allowLocalPaths: true };
  /** The service of the store's only user; undefined while it has none (or several). */
  const onlyUserService = async () => {
    const user = await resolveLocalUser(runtime.store, undefined).catch(() => undefined);
    return user && new LocalPublishingService(local, user);
  };
  let service = await onlyUserService();
  return {
    dataDir,
    store,
    ...(database && { databaseUrl: database.url }),
    storeConfig,
    runtime,
    get sql() {
      if (!(runtime.store instanceof SqliteStore)) {
        throw new Error(`This test runs SQL of SQLite; the runtime's store is ${STORE_NAMES[store]}.`);
      }
      return runtime.store.sql;
    },
    clock,
    get service() {
      if (!service) throw new Error('The store has no single user to act as.');
      return service;
    },
    serviceFor: async (apiKey) =>
      new LocalPublishingService(local, await authenticate(runtime.store, apiKey)),
    importWorkspace: async (workspace) => {
      const ids = await importWorkspace(runtime.store, clock, workspace);
      service ??= await onlyUserService();
      return ids;
    },
    async close() {
      try {
        await runtime.close();
        database?.release();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * A statement run on the runtime's database by a connection of its own, committed as another process's
 * would be (the store's caches see it as a change made elsewhere).
 */
export async function runSqlElsewhere(
  rt: Pick<TestRuntime, 'dataDir' | 'databaseUrl'>,
  text: string,
): Promise<void> {
  if (!rt.databaseUrl) {
    const db = openDatabase(join(rt.dataDir, DATABASE_FILE));
    try {
      db.exec(text);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: rt.databaseUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
