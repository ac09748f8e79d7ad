/**
 * Opens SQLite through one API, node:sqlite's `DatabaseSync`: the built-in module where the running Node
 * has it (>= 22.13), else `@photostructure/sqlite` (an optional dependency, for Node 20), which implements
 * the same API as a prebuilt N-API addon (no compiler at install). The MCP bundle runs on Claude Desktop's
 * own Node, where native addons break, so the built-in module is always preferred.
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

/** Where the `DatabaseSync` came from. */
export type SqliteDriver = 'node:sqlite' | '@photostructure/sqlite';

export interface SqlDatabase {
  readonly driver: SqliteDriver;
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

/** The part of node:sqlite's API the store uses; `@photostructure/sqlite` has the same. */
interface NodeSqliteStatement extends SqlStatement {
  /** Rows as arrays of values (Node >= 22.16): no object built per row. */
  setReturnArrays?(enabled: boolean): void;
  /** The result's columns (Node >= 22.16). */
  columns?(): Array<{ name: string }>;
}

interface NodeSqliteModule {
  DatabaseSync: new (
    path: string,
    options?: { readOnly?: boolean },
  ) => {
    exec(sql: string): void;
    prepare(sql: string): NodeSqliteStatement;
    close(): void;
    readonly isTransaction?: boolean;
  };
}

/**
 * Rows built here from arrays of values: both implementations set each property of a row object from
 * C++, which costs more than returning arrays and naming their values in JavaScript (on 20 rows of 8
 * columns, 40% less time with @photostructure/sqlite, 20% with node:sqlite). The driver's own row
 * objects where it cannot (node:sqlite before 22.16) or a column is named `__proto__`.
 */
function rowsBuiltHere(statement: NodeSqliteStatement): SqlStatement {
  if (!statement.setReturnArrays || !statement.columns) return statement;
  const columns = () => statement.columns!().map((column) => column.name);
  let names = columns();
  if (names.includes('__proto__')) return statement;
  statement.setReturnArrays(true);
  const row = (values: SqlValue[]): Record<string, SqlValue> => {
    // SQLite prepares a statement again after a schema change: `SELECT *` may have more columns then.
    if (values.length !== names.length) names = columns();
    const object: Record<string, SqlValue> = {};
    for (let i = 0; i < names.length; i++) object[names[i]!] = values[i]!;
    return object;
  };
  return {
    run: statement.run.bind(statement),
    get: (...params) => {
      const values = statement.get(...params) as SqlValue[] | undefined;
      return values === undefined ? undefined : row(values);
    },
    all: (...params) => (statement.all(...params) as SqlValue[][]).map(row),
  };
}

/** The first value of each row: read as arrays where the driver can, else taken from row objects. */
function firstColumn(statement: NodeSqliteStatement): SqlColumnStatement {
  if (statement.setReturnArrays) {
    statement.setReturnArrays(true);
    return { all: (...params) => (statement.all(...params) as SqlValue[][]).map((row) => row[0] ?? null) };
  }
  return {
    all: (...params) =>
      statement.all(...params).map((row) => {
        for (const key in row as Record<string, SqlValue>) return (row as Record<string, SqlValue>)[key]!;
        return null;
      }),
  };
}

function loadBuiltin(): NodeSqliteModule | undefined {
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (!getBuiltin) return undefined;
  // Node 22/23 flag node:sqlite as experimental and warn on load; that warning is noise for our users.
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes('SQLite')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    // Undefined, or a throw, where this Node has no node:sqlite (Node 20; Node 22 before 22.13 without
    // --experimental-sqlite).
    return getBuiltin('node:sqlite') as NodeSqliteModule | undefined;
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** The replacement package, or an error saying what to do when it cannot be loaded. */
function loadPackage(): NodeSqliteModule {
  try {
    return createRequire(import.meta.url)('@photostructure/sqlite') as NodeSqliteModule;
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const why =
      code === 'MODULE_NOT_FOUND' && message.includes("'@photostructure/sqlite'")
        ? 'it is not installed'
        : `it cannot be loaded on ${process.platform}-${process.arch} (${message.split('\n')[0]})`;
    throw new Error(
      `This Node (${process.version}) has no built-in node:sqlite, and its replacement, the optional dependency @photostructure/sqlite, is unavailable: ${why}. Use Node >= 22.13 (then nothing else is needed), or run "npm ci" again, without --omit=optional, on a platform that package ships binaries for (Linux, macOS or Windows, x64 or arm64).`,
      { cause: error },
    );
  }
}

let driver: { name: SqliteDriver; module: NodeSqliteModule } | undefined;

/** The driver this process uses: chosen, and loaded, once. */
export function sqliteDriver(): { name: SqliteDriver; module: NodeSqliteModule } {
  if (!driver) {
    const builtin = loadBuiltin();
    driver = builtin
      ? { name: 'node:sqlite', module: builtin }
      : { name: '@photostructure/sqlite', module: loadPackage() };
  }
  return driver;
}

/** Opens (creating unless read-only) the SQLite file; `:memory:` for a database in memory. */
export function openDatabase(file: string, options: { readOnly?: boolean } = {}): SqlDatabase {
  const { name, module } = sqliteDriver();
  const db = new module.DatabaseSync(file, { readOnly: options.readOnly ?? false });
  return {
    driver: name,
    get inTransaction() {
      return db.isTransaction;
    },
    exec: (sql) => db.exec(sql),
    prepare: (sql) => rowsBuiltHere(db.prepare(sql)),
    prepareColumn: (sql) => firstColumn(db.prepare(sql)),
    close: () => db.close(),
  };
}

/** Primary result codes by number (`errcode` may be an extended code). */
const PRIMARY_CODES: Readonly<Record<number, string>> = {
  5: 'SQLITE_BUSY',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  26: 'SQLITE_NOTADB',
};

/**
 * SQLite's primary result code of an error the driver threw (`SQLITE_FULL`, `SQLITE_READONLY`, ...),
 * extended codes folded into theirs (`SQLITE_READONLY_DIRECTORY` is `SQLITE_READONLY`); undefined for
 * an error that did not come from SQLite, or a code no caller distinguishes.
 */
export function sqliteErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  // Both drivers: code ERR_SQLITE_ERROR, the SQLite code in errcode (its low byte is the primary code).
  const { errcode } = error as { errcode?: unknown };
  return typeof errcode === 'number' ? PRIMARY_CODES[errcode & 0xff] : undefined;
}
