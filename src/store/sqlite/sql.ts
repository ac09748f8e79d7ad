/** Prepared statements cached by SQL text, and transactions that nest. */
import type { SqlColumnStatement, SqlDatabase, SqlStatement, SqlValue } from './driver.js';

export type Row = Record<string, SqlValue>;

export class Sql {
  private readonly statements = new Map<string, SqlStatement>();
  private readonly columnStatements = new Map<string, SqlColumnStatement>();
  private transactionDepth = 0;

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

  /** One write transaction; a transaction inside another joins it. */
  transaction<T>(work: () => T): T {
    if (this.transactionDepth > 0) return work();
    this.db.exec('BEGIN IMMEDIATE');
    this.transactionDepth++;
    try {
      const result = work();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    } finally {
      this.transactionDepth--;
    }
  }

  close(): void {
    this.statements.clear();
    this.columnStatements.clear();
    this.db.close();
  }
}
