/**
 * Opens SQLite with whichever driver the running Node has: the built-in `node:sqlite` (Node >= 22.13)
 * or `better-sqlite3` (an optional dependency, for Node 20). The MCP bundle runs on Claude Desktop's
 * own Node, where native addons break, so the built-in driver is always preferred.
 */
import { createRequire } from 'node:module';

export type SqlValue = string | number | bigint | null | Uint8Array;

export interface SqlStatement {
  run(...params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
}

/** A query read for its first column only: one value per row, no row object built. */
export interface SqlColumnStatement {
  all(...params: SqlValue[]): SqlValue[];
}

export interface SqlDatabase {
  readonly driver: 'node:sqlite' | 'better-sqlite3';
  /**
   * Whether a transaction is open on this connection; undefined when the driver cannot tell (node:sqlite
   * before Node 22.16). SQLite rolls a transaction back by itself on some faults (SQLITE_FULL, some
   * SQLITE_IOERR), so what was begun is not always still open.
   */
  readonly inTransaction: boolean | undefined;
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  prepareColumn(sql: string): SqlColumnStatement;
  close(): void;
}

/**
 * Ends a transaction that failed, unless SQLite already has (it rolls back by itself on a full disk, and
 * then a ROLLBACK fails with "no transaction is active"). Never throws: the error that brought the
 * caller here is the one to report, not a failure of the rollback.
 */
export function rollBackFailed(db: Pick<SqlDatabase, 'inTransaction' | 'exec'>): void {
  if (db.inTransaction === false) return;
  try {
    db.exec('ROLLBACK');
  } catch {
    // Only a driver that cannot tell whether a transaction is open gets here, with none left to end.
  }
}

/** The first value of each row, for a driver that only returns row objects. */
function firstColumn(statement: SqlStatement): SqlColumnStatement {
  return {
    all: (...params) =>
      statement.all(...params).map((row) => {
        for (const key in row as Record<string, SqlValue>) return (row as Record<string, SqlValue>)[key]!;
        return null;
      }),
  };
}

interface NodeSqliteModule {
  DatabaseSync: new (
    path: string,
  ) => {
    exec(sql: string): void;
    prepare(sql: string): SqlStatement;
    close(): void;
    readonly isTransaction?: boolean;
  };
}

function loadNodeSqlite(): NodeSqliteModule | undefined {
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (!getBuiltin) return undefined;
  // Node 22/23 flag node:sqlite as experimental and warn on load; that warning is noise for our users.
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes('SQLite')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return getBuiltin('node:sqlite') as NodeSqliteModule | undefined;
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
}

export function openDatabase(file: string): SqlDatabase {
  const nodeSqlite = loadNodeSqlite();
  if (nodeSqlite) {
    const db = new nodeSqlite.DatabaseSync(file);
    return {
      driver: 'node:sqlite',
      get inTransaction() {
        return db.isTransaction;
      },
      exec: (sql) => db.exec(sql),
      prepare: (sql) => db.prepare(sql),
      prepareColumn: (sql) => firstColumn(db.prepare(sql)),
      close: () => db.close(),
    };
  }
  let BetterSqlite: new (
    path: string,
  ) => {
    exec(sql: string): void;
    prepare(sql: string): SqlStatement & { pluck(on: boolean): SqlColumnStatement };
    close(): void;
    readonly inTransaction: boolean;
  };
  try {
    BetterSqlite = createRequire(import.meta.url)('better-sqlite3');
  } catch (error) {
    throw new Error(
      `This Node (${process.version}) has no node:sqlite and better-sqlite3 is not installed: use Node >= 22.13 or run "npm install better-sqlite3".`,
      { cause: error },
    );
  }
  const db = new BetterSqlite(file);
  return {
    driver: 'better-sqlite3',
    get inTransaction() {
      return db.inTransaction;
    },
    exec: (sql) => db.exec(sql),
    prepare: (sql) => db.prepare(sql),
    // Plucked: better-sqlite3 returns the values themselves, a third of the cost of row objects.
    prepareColumn: (sql) => db.prepare(sql).pluck(true),
    close: () => db.close(),
  };
}

/** Primary result codes by number (node:sqlite reports `errcode`, which may be an extended code). */
const PRIMARY_CODES: Readonly<Record<number, string>> = {
  5: 'SQLITE_BUSY',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  26: 'SQLITE_NOTADB',
};

const KNOWN_CODES = new Set(Object.values(PRIMARY_CODES));

/**
 * SQLite's primary result code of an error either driver threw (`SQLITE_FULL`, `SQLITE_READONLY`, ...),
 * extended codes folded into theirs (`SQLITE_READONLY_DIRECTORY` is `SQLITE_READONLY`); undefined for
 * an error that did not come from SQLite, or a code no caller distinguishes.
 */
export function sqliteErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  // node:sqlite: code ERR_SQLITE_ERROR, the SQLite code in errcode (its low byte is the primary code).
  if (typeof errcode === 'number') return PRIMARY_CODES[errcode & 0xff];
  // better-sqlite3: code is the (extended) name.
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  const primary = `SQLITE_${code.split('_')[1]}`;
  return KNOWN_CODES.has(primary) ? primary : undefined;
}
