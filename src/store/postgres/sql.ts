/**
 * Statements on PostgreSQL through node-postgres: on any pooled connection outside a transaction, on
 * the one connection of a transaction inside it; transactions that nest as savepoints; every failure
 * classified once (database-faults.ts), told whether its statement saves something once it runs (a
 * write outside a transaction, a COMMIT).
 *
 * Every store transaction takes advisory locks first (advisory-locks.ts), so that transactions that
 * read and then write the same things run one at a time, as on SQLite, whose BEGIN IMMEDIATE takes the
 * database's write lock. The service was written for that: it reads and then writes in one transaction
 * (the next free queue slot, then the post that takes it; an idempotency key looked up, then the post
 * inserted; a post's deliveries counted, then the post settled), and under READ COMMITTED two such
 * transactions could otherwise both read before either writes. A transaction without a target takes
 * the write lock alone: it runs alone, across instances. One with a target (the Store port's
 * TransactionTarget) shares the write lock and takes its brand's lock, or shares its brand's and takes
 * its post's: transactions on different brands, or on different posts of a brand, run side by side.
 * Statements outside a transaction take no lock: each is atomic on its own, a claim picks its rows with
 * FOR UPDATE SKIP LOCKED, and every conditional change is re-checked by PostgreSQL against the row's
 * latest version once its lock is granted.
 *
 * A connection that failed or gave no answer in time is discarded without a ROLLBACK (a frozen server
 * would hold that too): PostgreSQL rolls back the transaction of a connection that goes, so one that did
 * not reach its COMMIT leaves nothing; one whose COMMIT went unanswered may be saved, and says so.
 */
import type { Pool, PoolClient, QueryResult } from 'pg';
import { DatabaseUnavailableError } from '../../domain/errors.js';
import type { TransactionTarget } from '../../ports.js';
import { lockStatements } from './advisory-locks.js';
import type { DatabaseFaults } from './database-faults.js';
import { checkOut, giveBack } from './pool-connections.js';
import { driverParams, statement } from './statements.js';

/** A statement parameter; arrays become PostgreSQL arrays (`= ANY($1)`), bytes become bytea. */
export type SqlParam = string | number | boolean | null | Uint8Array | readonly number[] | readonly string[];

export type Row = Record<string, unknown>;

/** Where the store's statements run: the pool, or one transaction's connection. */
export interface Sql {
  readonly inTransaction: boolean;
  all(text: string, ...params: SqlParam[]): Promise<Row[]>;
  get(text: string, ...params: SqlParam[]): Promise<Row | undefined>;
  /** Runs a write; returns how many rows it changed. */
  change(text: string, ...params: SqlParam[]): Promise<number>;
  /** The number in column `n` of the first row (a COUNT). */
  count(text: string, ...params: SqlParam[]): Promise<number>;
  /**
   * Runs `work` in one transaction, on one connection (`sql` is bound to it), under the locks of
   * `target` (see above): everything or nothing is written. Inside another, it is a savepoint, under the
   * outer transaction's locks: when `work` throws, only its own writes are undone. `readAtBegin`: a read
   * without parameters (integers written in) made in BEGIN's round trip, once the locks are granted, for
   * `takeReadAtBegin` (ignored inside another transaction).
   */
  transaction<T>(
    work: (sql: Sql) => Promise<T>,
    target?: TransactionTarget,
    readAtBegin?: string,
  ): Promise<T>;
  /**
   * As `transaction` (outside one), unless another transaction holds the target's brand: then `work`
   * does not run, and the answer is false at once.
   */
  tryTransaction(work: (sql: Sql) => Promise<void>, target: TransactionTarget): Promise<boolean>;
  /** Runs `work` in the transaction under way, else in one of its own: for a write of several statements. */
  atomic<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * Runs several statements without parameters (values written in: integers only) in one round trip;
   * the rows of the last. Each statement reads what was committed when it began (READ COMMITTED), so a
   * read after a statement that waited for a lock sees what the lock's holder committed.
   */
  script(text: string): Promise<Row[]>;
  /**
   * A write without parameters (integers only, written in) that may wait until the transaction commits:
   * it then runs in COMMIT's round trip, so that a lock it takes on a row many transactions change (a
   * channel's) is held for no longer than the commit. Undone with a savepoint it was made in; outside a
   * transaction it runs at once.
   */
  atCommit(text: string): Promise<void>;
  /**
   * In a transaction on a brand (TransactionTarget without a post): the brand's `plan_version` and
   * `plan_freed`, read in BEGIN's round trip once its lock was granted (`row` undefined: no such brand).
   * Given once, and only while the transaction has written nothing: its own writes may change them.
   * Undefined otherwise: read them with a statement.
   */
  takePlanAtBegin(brandId: number): { row: Row | undefined } | undefined;
  /**
   * The rows of the transaction's `readAtBegin`, if its text is `text`: given once, and only while the
   * transaction has written nothing (as `takePlanAtBegin`). Undefined otherwise: run the statement.
   */
  takeReadAtBegin(text: string): Row[] | undefined;
}

/** An integer written into a statement's text (`script`, `atCommit`): anything else is refused. */
export function literal(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return String(value);
}

/** A brand's plan version and the times its latest change freed (post-rows.ts `heldQueueRun`). */
export const PLAN_OF_BRAND = 'SELECT plan_version, plan_freed FROM brands';

/** A statement that only reads (SELECT … FOR UPDATE locks rows, and changes nothing). */
const READ = /^\s*SELECT\b/i;

/** What both kinds of `Sql` run the same way, over their own `query`. */
abstract class Statements implements Sql {
  abstract readonly inTransaction: boolean;
  protected abstract query(text: string, params: unknown[]): Promise<QueryResult<Row>>;
  abstract transaction<T>(
    work: (sql: Sql) => Promise<T>,
    target?: TransactionTarget,
    readAtBegin?: string,
  ): Promise<T>;
  abstract tryTransaction(work: (sql: Sql) => Promise<void>, target: TransactionTarget): Promise<boolean>;
  abstract atomic<T>(work: (sql: Sql) => Promise<T>): Promise<T>;

  async all(text: string, ...params: SqlParam[]): Promise<Row[]> {
    return (await this.query(text, driverParams(params))).rows;
  }

  async get(text: string, ...params: SqlParam[]): Promise<Row | undefined> {
    return (await this.query(text, driverParams(params))).rows[0];
  }

  async change(text: string, ...params: SqlParam[]): Promise<number> {
    return (await this.query(text, driverParams(params))).rowCount ?? 0;
  }

  async count(text: string, ...params: SqlParam[]): Promise<number> {
    return Number((await this.get(text, ...params))?.n ?? 0);
  }

  async script(text: string): Promise<Row[]> {
    return lastRows((await this.query(text, [])) as QueryResult<Row> | QueryResult<Row>[]);
  }

  abstract atCommit(text: string): Promise<void>;

  takePlanAtBegin(_brandId: number): { row: Row | undefined } | undefined {
    return undefined;
  }

  takeReadAtBegin(_text: string): Row[] | undefined {
    return undefined;
  }
}

/** A simple query of several statements answers one result per statement: the last one's rows. */
function lastRows(result: QueryResult<Row> | QueryResult<Row>[]): Row[] {
  return (Array.isArray(result) ? result[result.length - 1]!.rows : result.rows) ?? [];
}

/** Statements on any connection of the pool; a transaction checks one out for its whole length. */
export class PoolSql extends Statements {
  readonly inTransaction = false;

  constructor(
    private readonly pool: Pool,
    private readonly faults: DatabaseFaults,
  ) {
    super();
  }

  protected async query(text: string, params: unknown[]): Promise<QueryResult<Row>> {
    const result = await this.pool.query<Row>(statement(text, params)).catch((error: unknown) => {
      throw this.faults.fault(error, !READ.test(text));
    });
    this.faults.answered();
    return result;
  }

  async transaction<T>(
    work: (sql: Sql) => Promise<T>,
    target?: TransactionTarget,
    readAtBegin?: string,
  ): Promise<T> {
    return (await this.run(work, target, false, readAtBegin)).result as T;
  }

  async tryTransaction(work: (sql: Sql) => Promise<void>, target: TransactionTarget): Promise<boolean> {
    return (await this.run(work, target, true)).ran;
  }

  private async run<T>(
    work: (sql: Sql) => Promise<T>,
    target: TransactionTarget | undefined,
    ifFree: boolean,
    readAtBegin?: string,
  ): Promise<{ ran: boolean; result?: T }> {
    const client = await checkOut(this.pool).catch((error: unknown) => {
      throw this.faults.fault(error, false);
    });
    const tx = new TransactionSql(client, this.faults);
    // A connection whose ROLLBACK failed is in an unknown state: the pool must not hand it out again.
    let broken: Error | undefined;
    try {
      if (!(await tx.begin(target, ifFree, readAtBegin))) {
        broken = await tx.rollBack();
        return { ran: false };
      }
      const result = await work(tx);
      await tx.commit();
      return { ran: true, result };
    } catch (error) {
      broken = await tx.rollBack();
      throw error;
    } finally {
      tx.end();
      giveBack(client, broken);
    }
  }

  atomic<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.transaction(work);
  }

  async atCommit(text: string): Promise<void> {
    await this.query(text, []);
  }
}

/**
 * Statements on a transaction's connection. PostgreSQL aborts the whole transaction at the first failed
 * statement (SQLite undoes only that statement): from then on, every statement and the commit fail with
 * that first error, not with PostgreSQL's "current transaction is aborted", until a savepoint that
 * began before it is rolled back to.
 */
class TransactionSql extends Statements {
  readonly inTransaction = true;
  /** 1 in the transaction, 2 and more in savepoints inside it. */
  private depth = 1;
  private aborted: unknown;
  private over = false;
  /** `atCommit`'s writes, each with the depth it was made at (a savepoint undone drops its own). */
  private readonly deferred: Array<{ text: string; depth: number }> = [];
  /** The brand's plan read with BEGIN (`takePlanAtBegin`), until taken or until a write. */
  private planAtBegin: { brandId: number; row: Row | undefined } | undefined;
  /** The rows of the read made with BEGIN (`takeReadAtBegin`), until taken or until a write. */
  private readAtBegin: { text: string; rows: Row[] } | undefined;
  /** The connection failed or gave no answer in time: nothing more is sent on it, not even ROLLBACK. */
  private lost: Error | undefined;

  constructor(
    private readonly client: PoolClient,
    private readonly faults: DatabaseFaults,
  ) {
    super();
  }

  /** A statement of the store: refused once the transaction is aborted or over. */
  protected async query(text: string, params: unknown[]): Promise<QueryResult<Row>> {
    if (this.aborted !== undefined) throw this.aborted;
    // Anything but a read may change the brand's plan (its triggers count changes to planned posts).
    if (!READ.test(text)) {
      this.planAtBegin = undefined;
      this.readAtBegin = undefined;
    }
    try {
      return await this.control(text, params);
    } catch (error) {
      this.aborted ??= error;
      throw error;
    }
  }

  /** A statement that begins or ends a level; runs even in an aborted transaction, not on a lost connection. */
  private async control(text: string, params: unknown[] = [], commits = false): Promise<QueryResult<Row>> {
    if (this.over) {
      throw new Error(
        'This transaction has ended: a store bound to a transaction may only be used inside its work.',
      );
    }
    if (this.lost) throw this.lost;
    let result: QueryResult<Row>;
    try {
      result = await this.client.query<Row>(statement(text, params));
    } catch (error) {
      const fault = this.faults.fault(error, commits);
      if (fault instanceof DatabaseUnavailableError) this.lost = fault;
      throw fault;
    }
    this.faults.answered();
    return result;
  }

  /**
   * BEGIN and the target's locks in one round trip (no parameters: a simple query may hold several);
   * `ifFree`: the brand's lock only if no one holds it. Whether the locks were taken.
   */
  async begin(target: TransactionTarget | undefined, ifFree = false, readAtBegin?: string): Promise<boolean> {
    const statements = ['BEGIN', ...lockStatements(target, ifFree)];
    if (ifFree) return lastRows(await this.control(statements.join('; ')))[0]?.locked === true;
    // A transaction holding a brand's lock alone reads its plan in the same round trip: one fewer for
    // create_post's queue walk (queue-slot.ts), a few microseconds of the server's for the others.
    const planOf = target && target.postId === undefined ? target.brandId : undefined;
    if (planOf !== undefined) statements.push(`${PLAN_OF_BRAND} WHERE id = ${literal(planOf)}`);
    if (readAtBegin !== undefined) statements.push(readAtBegin);
    const results = [await this.control(statements.join('; '))].flat() as QueryResult<Row>[];
    const rowsOf = (fromEnd: number) => results[results.length - fromEnd]?.rows ?? [];
    if (readAtBegin !== undefined) this.readAtBegin = { text: readAtBegin, rows: rowsOf(1) };
    if (planOf !== undefined) this.planAtBegin = { brandId: planOf, row: rowsOf(readAtBegin ? 2 : 1)[0] };
    return true;
  }

  override takeReadAtBegin(text: string): Row[] | undefined {
    const read = this.readAtBegin;
    if (read?.text !== text) return undefined;
    this.readAtBegin = undefined;
    return read.rows;
  }

  override takePlanAtBegin(brandId: number): { row: Row | undefined } | undefined {
    const plan = this.planAtBegin;
    if (plan?.brandId !== brandId) return undefined;
    this.planAtBegin = undefined;
    return { row: plan.row };
  }

  async commit(): Promise<void> {
    if (this.aborted !== undefined) throw this.aborted;
    const writes = this.deferred.map((write) => `${write.text}; `).join('');
    // Several statements answer one result each. A deferred write that fails has PostgreSQL skip the
    // COMMIT after it (the transaction is aborted); no answer at all leaves the COMMIT in doubt.
    const result = (await this.control(`${writes}COMMIT`, [], true)) as QueryResult<Row> | QueryResult<Row>[];
    const last = Array.isArray(result) ? result[result.length - 1]! : result;
    // PostgreSQL answers COMMIT of an aborted transaction with a rollback, not an error.
    if (last.command === 'ROLLBACK') throw new Error('PostgreSQL rolled the transaction back at COMMIT.');
  }

  async atCommit(text: string): Promise<void> {
    if (this.aborted !== undefined) throw this.aborted;
    this.deferred.push({ text, depth: this.depth });
  }

  /** Ends the transaction after a failure; the error when even that failed (the connection is lost). */
  async rollBack(): Promise<Error | undefined> {
    if (this.lost) return this.lost;
    try {
      await this.control('ROLLBACK');
      return undefined;
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  /** No statement may run on the connection from now on: it goes back to the pool. */
  end(): void {
    this.over = true;
  }

  /** A savepoint, under the outer transaction's locks: there is nothing to wait for. */
  async tryTransaction(work: (sql: Sql) => Promise<void>, target: TransactionTarget): Promise<boolean> {
    await this.transaction(work, target);
    return true;
  }

  async transaction<T>(
    work: (sql: Sql) => Promise<T>,
    _target?: TransactionTarget,
    _readAtBegin?: string,
  ): Promise<T> {
    if (this.aborted !== undefined) throw this.aborted;
    const name = `sp_${this.depth}`;
    await this.control(`SAVEPOINT ${name}`);
    this.depth++;
    try {
      const result = await work(this);
      if (this.aborted !== undefined) throw this.aborted;
      await this.control(`RELEASE SAVEPOINT ${name}`);
      // Its deferred writes are the enclosing level's now: undone only if that level is.
      for (const write of this.deferred) write.depth = Math.min(write.depth, this.depth - 1);
      return result;
    } catch (error) {
      await this.rollBackTo(name);
      throw error;
    } finally {
      this.depth--;
    }
  }

  /** Undoes a failed savepoint's writes; the failure, if any, happened inside it, so the rest goes on. */
  private async rollBackTo(name: string): Promise<void> {
    try {
      await this.control(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`);
      this.aborted = undefined;
      // The writes deferred inside it are undone with it (its depth is still counted here).
      while (this.deferred.length > 0 && this.deferred[this.deferred.length - 1]!.depth >= this.depth) {
        this.deferred.pop();
      }
    } catch (error) {
      // The connection is lost: nothing more can run in this transaction.
      this.aborted ??= error;
    }
  }

  atomic<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return work(this);
  }
}
