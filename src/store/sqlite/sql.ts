/**
 * Prepared statements cached by SQL text, transactions that nest as savepoints, the change epoch that
 * caches of table contents compare (see `changeEpoch`), and SQLite's storage faults turned into the
 * service's typed errors.
 */
import { StorageFullError, StorageReadOnlyError } from '../../domain/errors.js';
import {
  rollBackFailed,
  type SqlColumnStatement,
  type SqlDatabase,
  type SqlStatement,
  type SqlValue,
  sqliteErrorCode,
} from './driver.js';

export type Row = Record<string, SqlValue>;

/** Sees each statement this connection runs for the store: its SQL text and parameters. */
export type StatementObserver = (sql: string, params: readonly SqlValue[]) => void;

/**
 * A disk-full or read-only fault as the service's typed error (the SQLite error kept as `cause`), which
 * the adapters answer with a specific status and message; any other error as it is.
 */
function storageFault(error: unknown): unknown {
  switch (sqliteErrorCode(error)) {
    case 'SQLITE_FULL':
      return new StorageFullError({ cause: error });
    case 'SQLITE_READONLY':
      return new StorageReadOnlyError({ cause: error });
    default:
      return error;
  }
}

export class Sql {
  private readonly statements = new Map<string, SqlStatement>();
  private readonly columnStatements = new Map<string, SqlColumnStatement>();
  /** 0 outside a transaction, 1 in one, 2 and more in savepoints inside it (savepoint `sp_<depth - 1>`). */
  private transactionDepth = 0;
  private dataVersion: number | undefined;
  private epoch = 0;
  /** Whether `changeEpoch` read the data version since the write transaction under way began. */
  private versionReadInTransaction = false;
  /**
   * The fault with which SQLite ended the whole transaction by itself, inside a savepoint: until the
   * outermost level unwinds, no statement may run (a write, RETURNING ones read through `get` and `all`
   * included, would be committed on its own) and nothing is committed.
   */
  private lost: unknown;
  private observer: StatementObserver | undefined;

  constructor(readonly db: SqlDatabase) {}

  /** Calls `observer` with every statement run from now on; `undefined` stops. Costs nothing when unset. */
  observe(observer: StatementObserver | undefined): void {
    this.observer = observer;
  }

  private statement(sql: string): SqlStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  get(sql: string, ...params: SqlValue[]): Row | undefined {
    if (this.lost !== undefined) throw this.lost;
    this.observer?.(sql, params);
    try {
      return this.statement(sql).get(...params) as Row | undefined;
    } catch (error) {
      throw storageFault(error);
    }
  }

  all(sql: string, ...params: SqlValue[]): Row[] {
    if (this.lost !== undefined) throw this.lost;
    this.observer?.(sql, params);
    try {
      return this.statement(sql).all(...params) as Row[];
    } catch (error) {
      throw storageFault(error);
    }
  }

  /**
   * A read whose text varies with its parameters (an IN list of any length): prepared for this call
   * only, since caching every length would keep statements without bound.
   */
  allOnce(sql: string, ...params: SqlValue[]): Row[] {
    this.observer?.(sql, params);
    try {
      return this.db.prepare(sql).all(...params) as Row[];
    } catch (error) {
      throw storageFault(error);
    }
  }

  /** The first column of every row: for long single-column reads, where building row objects dominates. */
  column(sql: string, ...params: SqlValue[]): SqlValue[] {
    this.observer?.(sql, params);
    let statement = this.columnStatements.get(sql);
    try {
      if (!statement) {
        statement = this.db.prepareColumn(sql);
        this.columnStatements.set(sql, statement);
      }
      return statement.all(...params);
    } catch (error) {
      throw storageFault(error);
    }
  }

  /** Runs a write; returns the last inserted rowid. */
  run(sql: string, ...params: SqlValue[]): number {
    return Number(this.write(sql, params).lastInsertRowid);
  }

  /** Runs a write; returns how many rows it changed. */
  change(sql: string, ...params: SqlValue[]): number {
    return Number(this.write(sql, params).changes);
  }

  /**
   * Runs `work` in the transaction under way, else in one of its own. A write outside a transaction
   * starts as a read and asks for the write lock only later; when another connection commits in
   * between, SQLite fails it with "database is locked" at once, without waiting (a stale snapshot cannot
   * be upgraded). BEGIN IMMEDIATE takes the write lock first, waiting its turn.
   */
  immediate<T>(work: () => T): T {
    return this.transactionDepth > 0 ? work() : this.transaction(work);
  }

  private write(sql: string, params: SqlValue[]): ReturnType<SqlStatement['run']> {
    if (this.transactionDepth === 0) return this.immediate(() => this.write(sql, params));
    if (this.lost !== undefined) throw this.lost;
    this.observer?.(sql, params);
    try {
      return this.statement(sql).run(...params);
    } catch (error) {
      throw storageFault(error);
    }
  }

  count(sql: string, ...params: SqlValue[]): number {
    return Number(this.get(sql, ...params)?.n ?? 0);
  }

  /**
   * Moves on whenever this connection may see rows it did not write itself: another connection committed
   * (SQLite's `PRAGMA data_version` changed), or one of its own transactions or savepoints rolled back.
   * A cache of table contents kept since the same epoch is still exact, provided it also forgets what
   * this connection's own writes change. Inside a write transaction no other connection can commit, so
   * the version is read once per transaction.
   */
  changeEpoch(): number {
    if (this.transactionDepth > 0 && this.versionReadInTransaction) return this.epoch;
    const version = Number((this.statement('PRAGMA data_version').get() as Row).data_version);
    if (version !== this.dataVersion) {
      this.dataVersion = version;
      this.epoch++;
    }
    if (this.transactionDepth > 0) this.versionReadInTransaction = true;
    return this.epoch;
  }

  /**
   * Runs `work` in one write transaction: everything or nothing is written. Inside another, it is a
   * savepoint: when `work` throws, only its own writes are undone, and the outer transaction goes on if
   * its caller catches the error. Any rollback moves the change epoch on, since caches may hold what
   * was rolled back.
   */
  transaction<T>(work: () => T): T {
    this.begin();
    try {
      const result = work();
      this.end();
      return result;
    } catch (error) {
      this.undo(error);
      throw error;
    }
  }

  /**
   * `transaction` for work that awaits. The connection is this process's only one: while `work` waits,
   * nothing else may run a statement on it but `work` itself (a statement would join the transaction).
   * The store's `TransactionScope` sees to that.
   */
  async transactionAsync<T>(work: () => Promise<T>): Promise<T> {
    this.begin();
    try {
      const result = await work();
      this.end();
      return result;
    } catch (error) {
      this.undo(error);
      throw error;
    }
  }

  /** Begins a transaction, or a savepoint inside the one under way. */
  private begin(): void {
    if (this.transactionDepth === 0) {
      // Prepared once (the statement cache): `exec` would parse these on every transaction.
      this.execute('BEGIN IMMEDIATE');
      this.versionReadInTransaction = false;
    } else {
      if (this.lost !== undefined) throw this.lost;
      this.execute(`SAVEPOINT sp_${this.transactionDepth}`);
    }
    this.transactionDepth++;
  }

  /** Commits the innermost level: the transaction, or the savepoint (released into its transaction). */
  private end(): void {
    if (this.transactionDepth === 1) {
      if (this.lost !== undefined) throw this.lost;
      this.execute('COMMIT');
    } else {
      this.execute(`RELEASE sp_${this.transactionDepth - 1}`);
    }
    this.transactionDepth--;
  }

  /** Undoes the innermost level after `error`: the whole transaction, or only the savepoint's writes. */
  private undo(error: unknown): void {
    // What the level read or wrote is gone: no cache may keep it.
    this.epoch++;
    if (this.transactionDepth === 1) {
      rollBackFailed(this.db);
      this.lost = undefined;
    } else {
      this.rollBackTo(`sp_${this.transactionDepth - 1}`, error);
    }
    this.transactionDepth--;
  }

  /**
   * Undoes a failed savepoint's writes. When SQLite ended the whole transaction itself, no outer level
   * may go on: it would write outside any transaction.
   */
  private rollBackTo(name: string, error: unknown): void {
    if (this.lost === undefined && this.db.inTransaction !== false) {
      try {
        this.execute(`ROLLBACK TO ${name}`);
        this.execute(`RELEASE ${name}`);
        return;
      } catch {
        // The savepoint is gone with the transaction: as below.
      }
    }
    this.lost ??= error;
  }

  private execute(sql: string): void {
    try {
      this.statement(sql).run();
    } catch (error) {
      throw storageFault(error);
    }
  }

  /** A map of table contents this connection read, emptied whenever `changeEpoch` moves on. */
  epochMap<K, V>(): EpochMap<K, V> {
    return new EpochMap(this);
  }

  close(): void {
    this.statements.clear();
    this.columnStatements.clear();
    this.db.close();
  }
}

/**
 * Entries exact as of the connection's change epoch: `current()` empties the map first when the epoch
 * has moved on (another connection committed, or a transaction or savepoint rolled back). The owner
 * must still drop or correct what its own writes change (`entries`, without the epoch check).
 */
export class EpochMap<K, V> {
  readonly entries = new Map<K, V>();
  private epoch = -1;

  constructor(private readonly sql: Sql) {}

  current(): Map<K, V> {
    const epoch = this.sql.changeEpoch();
    if (epoch !== this.epoch) {
      this.entries.clear();
      this.epoch = epoch;
    }
    return this.entries;
  }
}
