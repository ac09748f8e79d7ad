/**
 * The store's PostgreSQL database, opened for use by one of possibly several instances starting at
 * once: a pool of connections, the schema brought up to date once (migrations.ts), and a database that
 * cannot be reached or used refused at once with a StorageStartError naming it (its password left out)
 * and what to do, rather than opened and then failing every call.
 *
 * Every wait for the database has a deadline (SOCIAL_PUBLISHER_DATABASE_TIMEOUT_SECONDS): for a
 * connection (the pool's `connectionTimeoutMillis`: a free one, or a new one made), and for a statement's
 * answer. The server cancels a statement itself a little before the deadline (`statement_timeout`: the
 * statement is rolled back, and its connection stays usable); a server that does not answer at all
 * (frozen, cut off) never does, so node-postgres gives up at the deadline too (`query_timeout`), and the
 * connection is discarded (sql.ts). The migrations run on a pool of their own without a statement
 * deadline: they may wait for another instance's, or take long on a large table.
 */
import { Pool, type PoolConfig, types } from 'pg';
import { StorageStartError } from '../../domain/errors.js';
import { DatabaseFaults, databaseName } from './database-faults.js';
import { migrate } from './migrations.js';

/** Connections kept per store unless told otherwise: the scheduler's workers and a few requests at once. */
const DEFAULT_POOL_SIZE = 10;

/** The deadline of each wait for the database unless told otherwise (config-values.ts has the same). */
const DEFAULT_DATABASE_TIMEOUT_MS = 10_000;

/** How much sooner than the client the server cancels a statement, so that its answer arrives in time. */
const SERVER_LEAD_MS = 250;

/**
 * bigint (int8) as a JavaScript number, for this pool only (node-postgres's default is a string, to
 * lose nothing above 2^53; the store's ids, counts and times in ms stay far below).
 */
const storeTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === types.builtins.INT8 && format !== 'binary'
      ? Number
      : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
};

/** The URL as it may be shown: without its password. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the PostgreSQL URL given';
  }
}

export interface PoolOptions {
  poolSize?: number;
  /** The deadline of each wait for the database, in ms (see above). */
  timeoutMs?: number;
  /** Where an outage of the database is logged, when it begins and when it ends. Default: nowhere. */
  log?: (message: string) => void;
}

/**
 * A pool of connections to `url`, its schema brought up to date, and what classifies its statements'
 * failures (database-faults.ts); a StorageStartError when it cannot be used.
 */
export async function openPool(
  url: string,
  options: PoolOptions = {},
): Promise<{ pool: Pool; faults: DatabaseFaults }> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  const pool = (settings: Partial<PoolConfig>) => {
    const made = new Pool({
      connectionString: url,
      types: storeTypes,
      connectionTimeoutMillis: timeoutMs,
      ...settings,
    });
    // An idle connection the server dropped (a restart, a network cut) is reported here; without a
    // listener it would end the process. The pool replaces it; the next statement reports any lasting fault.
    made.on('error', () => {});
    return made;
  };
  const migrations = pool({ max: 1 });
  try {
    await migrate(migrations);
  } catch (error) {
    if (error instanceof StorageStartError) throw error;
    throw new StorageStartError(
      `The PostgreSQL database at ${displayUrl(url)} cannot be used (${(error as Error).message}). Check that the server runs and accepts this user, and that the database exists and this user may create tables in it.`,
      { cause: error },
    );
  } finally {
    await migrations.end().catch(() => {});
  }
  return {
    pool: pool({
      max: options.poolSize ?? DEFAULT_POOL_SIZE,
      query_timeout: timeoutMs,
      statement_timeout: Math.max(1, timeoutMs - SERVER_LEAD_MS),
    }),
    faults: new DatabaseFaults({
      database: databaseName(url),
      deadlineMs: timeoutMs,
      log: options.log ?? (() => {}),
    }),
  };
}
