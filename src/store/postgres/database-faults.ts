/**
 * The PostgreSQL server's faults as the service's typed errors, classified here, once, for every
 * statement of the store (sql.ts): a full disk or a read-only server as the storage faults SQLite has
 * too; a server that cannot be used just now (it refuses or drops connections, is shutting down or
 * starting, has no connection free, or gave no answer within the database deadline) as a
 * DatabaseUnavailableError naming the database; anything else as it is (a unique violation stays the
 * driver's error, code 23505, as SQLite's stays its driver's). An outage is logged once, with the
 * driver's reason, when it begins, and again when the database answers: not once per request.
 */
import { DatabaseUnavailableError, StorageFullError, StorageReadOnlyError } from '../../domain/errors.js';

/** SQLSTATE codes of PostgreSQL's storage faults. */
const DISK_FULL = '53100';
const READ_ONLY_SQL_TRANSACTION = '25006';

/** Node's codes for a connection that could not be made: nothing was sent. */
const NOT_CONNECTED: Record<string, string> = {
  ECONNREFUSED: 'it refuses connections',
  EHOSTUNREACH: 'its host is unreachable',
  ENETUNREACH: 'its network is unreachable',
  ENOTFOUND: 'its host name does not resolve',
  EAI_AGAIN: 'its host name does not resolve just now',
};

/** Node's codes for a connection lost on the way: a statement sent may have run. */
const LOST: Record<string, string> = {
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EPIPE: 'the connection was closed',
};

/** SQLSTATE codes of a server that cannot serve just now; those marked `ran: false` ran nothing. */
const SERVER_STATES: Record<string, { problem: string; ran: boolean }> = {
  '57P01': { problem: 'it is shutting down', ran: true }, // admin_shutdown: sessions ended
  '57P02': { problem: 'it is restarting after a crash', ran: true }, // crash_shutdown
  '57P03': { problem: 'it is starting up or shutting down', ran: false }, // cannot_connect_now
  '53300': { problem: 'it has no connection free', ran: false }, // too_many_connections
};

/** What a failure says, or undefined when it is not the server being unavailable. */
interface Unavailability {
  problem: string;
  /** A statement sent may have run: a change may have been saved. */
  ran: boolean;
}

/** Reads a driver's error: node-postgres's own messages, node's codes, PostgreSQL's SQLSTATE. */
function unavailability(error: unknown, deadlineMs: number): Unavailability | undefined {
  // Node reports a connection refused at every address of a host as an AggregateError without a code.
  if (error instanceof AggregateError && !(error as { code?: unknown }).code) {
    return unavailability(error.errors[0], deadlineMs);
  }
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  const deadline = `${deadlineMs / 1000} s`;
  // The pool's, or the connection's own, deadline for connecting: no statement went out.
  if (text === 'timeout exceeded when trying to connect' || text.includes('due to connection timeout')) {
    return { problem: `no connection within ${deadline}`, ran: false };
  }
  if (text === 'Query read timeout') return { problem: `no answer within ${deadline}`, ran: true };
  if (typeof code === 'string') {
    if (code in NOT_CONNECTED) return { problem: NOT_CONNECTED[code]!, ran: false };
    if (code in LOST) return { problem: LOST[code]!, ran: true };
    if (code in SERVER_STATES) return SERVER_STATES[code];
    // query_canceled by the server's own deadline (statement_timeout): rolled back, nothing saved.
    if (code === '57014' && text.includes('statement timeout')) {
      return { problem: `no answer within ${deadline}`, ran: false };
    }
    if (code.startsWith('08')) return { problem: 'the connection failed', ran: true }; // connection_exception
  }
  if (text.startsWith('Connection terminated') || text.includes('not queryable')) {
    return { problem: 'the connection was lost', ran: true };
  }
  return undefined;
}

/** `host:port/database` of a PostgreSQL URL: what may be shown of it (no user, no password). */
export function databaseName(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost';
    return `${host}:${parsed.port || '5432'}${decodeURIComponent(parsed.pathname) || '/'}`;
  } catch {
    return 'the PostgreSQL URL given';
  }
}

/** A new outage within this long of the last one's start is not logged again (a flapping server). */
const QUIET_MS = 60_000;

/** The store's statements' faults, classified, and the outages of its database, logged once each. */
export class DatabaseFaults {
  private outage: { sinceMs: number; logged: boolean } | undefined;
  private lastLoggedMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly options: {
      /** `databaseName(url)` */
      database: string;
      /** The deadline of a statement and of a connection, for the words. */
      deadlineMs: number;
      log: (message: string) => void;
    },
  ) {}

  /**
   * The error to throw for a statement's failure. `wrote`: the statement would save something once it
   * ran (a write outside a transaction, a COMMIT), so when it may have run, the error says so.
   */
  fault(error: unknown, wrote: boolean): unknown {
    switch ((error as { code?: unknown } | null)?.code) {
      case DISK_FULL:
        return new StorageFullError({ cause: error });
      case READ_ONLY_SQL_TRANSACTION:
        return new StorageReadOnlyError({ cause: error });
    }
    const found = unavailability(error, this.options.deadlineMs);
    if (!found) return error;
    const fault = new DatabaseUnavailableError(this.options.database, found.problem, wrote && found.ran, {
      cause: error,
    });
    this.began(fault);
    return fault;
  }

  /** A statement answered: the outage under way, if any, is over. */
  answered(): void {
    const outage = this.outage;
    if (outage === undefined) return;
    this.outage = undefined;
    if (!outage.logged) return;
    const seconds = Math.round((Date.now() - outage.sinceMs) / 100) / 10;
    this.options.log(`the database at ${this.options.database} answers again, after ${seconds} s`);
  }

  private began(fault: DatabaseUnavailableError): void {
    if (this.outage !== undefined) return;
    const now = Date.now();
    const logged = now - this.lastLoggedMs >= QUIET_MS;
    this.outage = { sinceMs: now, logged };
    if (!logged) return;
    this.lastLoggedMs = now;
    const cause = fault.cause instanceof Error ? fault.cause.message : String(fault.cause);
    const code = (fault.cause as { code?: unknown } | undefined)?.code;
    this.options.log(
      `the database at ${this.options.database} is unavailable (${fault.problem}): every call that needs it answers 503 until it answers again. The driver said: ${cause}${typeof code === 'string' && !cause.includes(code) ? ` (${code})` : ''}`,
    );
  }
}
