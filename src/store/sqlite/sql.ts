/**
 * Prepared statements cached by SQL text, transactions that nest, and the change epoch that caches of
 * table contents compare (see `changeEpoch`).
 */
import type { SqlColumnStatement, SqlDatabase, SqlStatement, SqlValue } from './driver.js';

export type Row = Record<string, SqlValue>;

export class Sql {
  private readonly statements = new Map<string, SqlStatement>();
  private readonly columnStatements = new Map<string, SqlColumnStatement>();
  private transactionDepth = 0;
  private dataVersion: number | undefined;
  private epoch = 0;
  /** Whether `changeEpoch` read the data version since the write transaction under way began. */
  private versionReadInTransaction = false;

  constructor(readonly db: SqlDatabase) {}

  private statement(sql: string): SqlStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  get(sql: string, ...params: SqlValue[]): Row | undefined {
    return this.statement(sql).get(...params) as Row | undefined;
  }

  all(sql: string, ...params: SqlValue[]): Row[] {
    return this.statement(sql).all(...params) as Row[];
  }

  /** The first column of every row: for long single-column reads, where building row objects dominates. */
  column(sql: string, ...params: SqlValue[]): SqlValue[] {
    let statement = this.columnStatements.get(sql);
    if (!statement) {
      statement = this.db.prepareColumn(sql);
      this.columnStatements.set(sql, statement);
    }
    return statement.all(...params);
  }

  /** Runs a write; returns the last inserted rowid. */
  run(sql: string, ...params: SqlValue[]): number {
    return Number(this.statement(sql).run(...params).lastInsertRowid);
  }

  /** Runs a write; returns how many rows it changed. */
  change(sql: string, ...params: SqlValue[]): number {
    return Number(this.statement(sql).run(...params).changes);
  }

  count(sql: string, ...params: SqlValue[]): number {
    return Number(this.get(sql, ...params)?.n ?? 0);
  }

  /**
   * Moves on whenever this connection may see rows it did not write itself: another connection committed
   * (SQLite's `PRAGMA data_version` changed), or one of its own transactions rolled back. A cache of
   * table contents kept since the same epoch is still exact, provided it also forgets what this
   * connection's own writes change. Inside a write transaction no other connection can commit, so the
   * version is read once per transaction.
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

  /** One write transaction; a transaction inside another joins it. */
  transaction<T>(work: () => T): T {
    if (this.transactionDepth > 0) return work();
    // Prepared once: `exec` would parse these on every transaction.
    this.statement('BEGIN IMMEDIATE').run();
    this.transactionDepth++;
    this.versionReadInTransaction = false;
    try {
      const result = work();
      this.statement('COMMIT').run();
      return result;
    } catch (error) {
      // What the transaction read or wrote is gone: no cache may keep it.
      this.epoch++;
      this.statement('ROLLBACK').run();
      throw error;
    } finally {
      this.transactionDepth--;
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
 * has moved on (another connection committed, or a transaction rolled back). The owner must still
 * drop or correct what its own writes change (`entries`, without the epoch check).
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
