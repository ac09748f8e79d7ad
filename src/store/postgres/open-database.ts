/**
 * The store's PostgreSQL database, opened for use by one of possibly several instances starting at
 * once: a pool of connections, the schema brought up to date once (migrations.ts), and a database that
 * cannot be reached or used refused at once with a StorageStartError naming it (its password left out)
 * and what to do, rather than opened and then failing every call.
 */
import { Pool, types } from 'pg';
import { StorageStartError } from '../../domain/errors.js';
import { migrate } from './migrations.js';

/** Connections kept per store unless told otherwise: the scheduler's workers and a few requests at once. */
const DEFAULT_POOL_SIZE = 10;

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

/** A pool of connections to `url`, its schema brought up to date; a StorageStartError when it cannot be used. */
export async function openPool(url: string, options: { poolSize?: number } = {}): Promise<Pool> {
  const pool = new Pool({
    connectionString: url,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    types: storeTypes,
  });
  // An idle connection the server dropped (a restart, a network cut) is reported here; without a
  // listener it would end the process. The pool replaces it; the next statement reports any lasting fault.
  pool.on('error', () => {});
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => {});
    if (error instanceof StorageStartError) throw error;
    throw new StorageStartError(
      `The PostgreSQL database at ${displayUrl(url)} cannot be used (${(error as Error).message}). Check that the server runs and accepts this user, and that the database exists and this user may create tables in it.`,
      { cause: error },
    );
  }
  return pool;
}
