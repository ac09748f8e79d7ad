/**
 * One SQLite connection serves every async flow of the process, and a transaction is the connection's,
 * not a flow's: a statement that another flow ran while one flow's transaction was open would join it,
 * to be committed or rolled back with work it knows nothing of. So the connection is used through
 * scopes: the store outside any transaction is one, and each open transaction (or savepoint) is one
 * more, inside the scope it was opened from. A scope lets one thing at a time use the connection: a
 * call, whose statements run synchronously at once when the scope is free, or a transaction opened from
 * it, which holds the scope until it ends. Calls and transactions wait their turn in order of arrival.
 *
 * While a transaction is open, only its own scope (the `tx` its work was given) reaches the connection;
 * the store's other callers wait for it to end. Its work must therefore use `tx`, never the store
 * itself, which would wait for the very transaction it runs in.
 */
import type { Sql } from './sql.js';

export class TransactionScope {
  /** Whether a call or a transaction has the scope; the next in `waiting` is handed it on release. */
  private busy = false;
  private readonly waiting: Array<{ resolve(): void; reject(error: Error): void }> = [];
  /** Set when the transaction of this scope has ended: it takes no more calls. */
  private ended = false;

  constructor(private readonly sql: Sql) {}

  /** Runs `statements` (synchronous, on the connection) once it is this scope's turn. */
  async run<T>(statements: () => T): Promise<T> {
    const turn = this.take();
    if (turn) await turn;
    try {
      return statements();
    } finally {
      this.release();
    }
  }

  /**
   * Opens a transaction (a savepoint inside another) once it is this scope's turn, and holds the scope
   * until it ends. `work` is given the transaction's own scope. The transaction ends only once what was
   * started in that scope has finished (a call or a nested transaction `work` did not await), so nothing
   * started in it runs outside it.
   */
  async transaction<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    const turn = this.take();
    if (turn) await turn;
    try {
      const inner = new TransactionScope(this.sql);
      return await this.sql.transactionAsync(async () => {
        try {
          return await work(inner);
        } finally {
          await inner.end();
        }
      });
    } finally {
      this.release();
    }
  }

  /** Waits for the calls started in this scope, then refuses any more: its transaction is ending. */
  private async end(): Promise<void> {
    const turn = this.take();
    if (turn) await turn;
    this.ended = true;
    for (const late of this.waiting.splice(0)) late.reject(endedError());
  }

  /**
   * Resolves once the scope is this caller's. Free, it is taken at once, without giving way to other
   * flows: the caller's statements run in the same synchronous step as the check.
   */
  private take(): Promise<void> | undefined {
    if (this.ended) return Promise.reject(endedError());
    if (!this.busy) {
      this.busy = true;
      return undefined;
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Hands the scope to the next caller waiting, if any. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next.resolve();
    else this.busy = false;
  }
}

function endedError(): Error {
  return new Error(
    'This transaction has ended: a call on its store (`tx`) came after its work was done. Use the store itself, or a transaction of its own.',
  );
}
