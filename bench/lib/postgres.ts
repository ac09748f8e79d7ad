/**
 * PostgreSQL for the benchmarks: the throwaway server of test/postgres (harness.ts, installed by
 * `node test/postgres/install.mjs`), plain SQL on a connection of the benchmark's own, posts seeded in
 * bulk (INSERT … SELECT over generate_series: seconds for a million rows, where a million service calls
 * would take an hour), and the plans PostgreSQL chooses for the store's statements.
 */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { queueSlotsAfter } from '../../src/domain/queue.js';
import type { BrandRecord } from '../../src/ports.js';
import { LOCK_NAMESPACE } from '../../src/store/postgres/advisory-locks.js';
import { type PostgresServer, startPostgres } from '../../test/postgres/harness.js';

export type { PostgresServer };

/**
 * Starts the test harness's server. It runs with fsync, synchronous_commit and full_page_writes off
 * (a disposable cluster): a commit does not wait for the disk, as it would on a durable server.
 */
export function startBenchPostgres(): Promise<PostgresServer> {
  return startPostgres();
}

const DAY_MS = 86_400_000;

/** One connection of the benchmark's own (not the store's pool). */
export class BenchSql {
  private postmaster: number | undefined;

  private constructor(readonly client: pg.Client) {}

  static async connect(url: string): Promise<BenchSql> {
    const client = new pg.Client({ connectionString: url });
    // The server stopping (at the end, or after a failure) ends the connection: not a crash of the run.
    client.on('error', () => {});
    await client.connect();
    return new BenchSql(client);
  }

  async query<R extends Record<string, unknown>>(text: string, params: unknown[] = []): Promise<R[]> {
    return (await this.client.query<R>(text, params)).rows;
  }

  async count(text: string, params: unknown[] = []): Promise<number> {
    return Number((await this.query<{ n: string | number }>(text, params))[0]?.n ?? 0);
  }

  /**
   * The plan PostgreSQL chooses for a statement with these parameters, as the store sends it (an
   * unnamed statement with its values: planned for them). EXPLAIN alone: nothing is executed.
   */
  async plan(text: string, params: readonly unknown[]): Promise<string> {
    const rows = await this.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, [...params]);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  }

  /** The pid of the server's postmaster (the parent of this connection's backend). */
  async postmasterPid(): Promise<number> {
    if (this.postmaster === undefined) {
      const backend = await this.count('SELECT pg_backend_pid() AS n');
      this.postmaster = parentPid(backend);
    }
    return this.postmaster;
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

/** Fields of /proc/<pid>/stat after the command name: state is [0], ppid [1], utime [11], stime [12]. */
function statFields(pid: number | string): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return undefined;
  }
}

function parentPid(pid: number): number {
  const fields = statFields(pid);
  if (!fields) throw new Error(`no process ${pid}`);
  return Number(fields[1]);
}

/**
 * CPU time (user + system, ms) of the PostgreSQL server's processes alive now: its postmaster and every
 * child (backends, WAL writer, checkpointer, autovacuum). A backend that ended took its time with it.
 */
export async function postgresCpuMs(sql: BenchSql): Promise<number> {
  const postmaster = await sql.postmasterPid();
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (!fields || (Number(entry) !== postmaster && Number(fields[1]) !== postmaster)) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

export interface PostgresSeedTarget {
  brand: BrandRecord;
  collectionId: number;
  userId: string;
  nowMs: number;
}

/**
 * Seeds a brand's posts as bench/lib/seed.ts does on SQLite (the same plan, the same history, the same
 * columns), with one INSERT … SELECT per part.
 */
export class PostgresPostSeeder {
  private seeded = 0;

  constructor(
    private readonly sql: BenchSql,
    private readonly target: PostgresSeedTarget,
  ) {}

  count(): Promise<number> {
    return this.sql.count('SELECT COUNT(*) AS n FROM posts');
  }

  async maxId(): Promise<number> {
    return this.sql.count('SELECT COALESCE(MAX(id), 0) AS n FROM posts');
  }

  /** Posts created after `id` (and their deliveries, by cascade), so that each stage starts from one plan. */
  async removeAfter(id: number): Promise<void> {
    await this.sql.query('DELETE FROM posts WHERE id > $1', [id]);
  }

  /**
   * Inserts `count` posts; `rows` is a SELECT yielding (publish_mode, status, due_at_ms, published_at_ms)
   * for i (0 … count − 1) as `i`, from `$5` rows on.
   */
  private async insertRows(count: number, rows: string, extra: unknown[] = []): Promise<void> {
    if (count <= 0) return;
    const { brand, collectionId, userId, nowMs } = this.target;
    // Content hashes as SQLite's seeder makes them: 64 random hex digits.
    await this.sql.query(
      `INSERT INTO posts (brand_id, collection_id, user_id, publish_mode, status, payload, due_at_ms,
         idempotency_key, content_hash, created_at_ms, updated_at_ms, published_at_ms)
       SELECT $1, $2, $3, mode, status,
         json_build_object('publishMode', mode, 'caption', 'Seeded post ' || ($6::bigint + i) || ': the roast of the day.'),
         due_at_ms, NULL, md5(random()::text) || md5(random()::text), created, COALESCE(published_at_ms, created),
         published_at_ms
       FROM (SELECT r.*, LEAST($4::bigint, COALESCE(r.due_at_ms, $4::bigint) - ${DAY_MS}) AS created
             FROM (${rows}) r) s`,
      [brand.id, collectionId, userId, nowMs, count, this.seeded, ...extra],
    );
    this.seeded += count;
  }

  /** The plan: `queued` posts on the next consecutive queue slots, `scheduled` over the next year. */
  async seedPlan(queued: number, scheduled: number): Promise<void> {
    const { brand, nowMs } = this.target;
    const slots: number[] = [];
    for (const slot of queueSlotsAfter(nowMs, brand.timezone, brand.queueTimes)) {
      if (slots.length === queued) break;
      slots.push(slot);
    }
    await this.insertRows(
      queued,
      `SELECT i, 'QUEUE' AS mode, 'queued' AS status, ($7::bigint[])[i + 1] AS due_at_ms,
         NULL::bigint AS published_at_ms
       FROM generate_series(0, $5::int - 1) i`,
      [slots],
    );
    // Whole minutes 1 to 365 days ahead; a few land on a queue slot, as real ones do.
    await this.insertRows(
      scheduled,
      `SELECT i, 'SCHEDULE' AS mode, 'scheduled' AS status,
         $4::bigint - $4::bigint % 60000 + (1440 + (i::bigint * 104729) % (364 * 1440)) * 60000 AS due_at_ms,
         NULL::bigint AS published_at_ms
       FROM generate_series(0, $5::int - 1) i`,
    );
  }

  /** History: published posts over the past five years, oldest first. */
  async seedPublished(count: number): Promise<void> {
    const span = 5 * 365 * DAY_MS;
    await this.insertRows(
      count,
      `SELECT i, CASE WHEN i % 2 = 1 THEN 'QUEUE' ELSE 'SCHEDULE' END AS mode, 'published' AS status,
         d AS due_at_ms, d + 2000 AS published_at_ms
       FROM (SELECT i, $4::bigint - ${span} + floor(i::float8 / $5::int * ${span})::bigint - $4::bigint % 60000 AS d
             FROM generate_series(0, $5::int - 1) i) g`,
    );
  }

  /**
   * What autovacuum would do in time after a bulk load: statistics for the planner, and the visibility
   * map that lets an index-only scan skip the table.
   */
  async settle(): Promise<void> {
    await this.sql.query('VACUUM (ANALYZE) posts');
  }
}

export interface LockWaits {
  samples: number;
  /** Mean number of backends waiting for one of the store's advisory locks. */
  meanWaiting: number;
  /** Share of samples in which at least one backend waited for one of them. */
  waitingShare: number;
  /**
   * Mean number of the database's backends waiting for a heavyweight lock, by pg_stat_activity's
   * `wait_event` (`advisory`, and row locks: `transactionid`, `tuple`): a convoy on a hot row shows
   * here, not among the advisory waits.
   */
  meanWaitingByLock: Record<string, number>;
}

/**
 * Samples, every `everyMs` on a connection of its own, how many of the server's backends wait for one
 * of the store's advisory locks (pg_locks, not granted; the store's lock namespaces share their first
 * three bytes), and how many of the database's backends wait for any lock, by kind: a convoy shows as
 * waiters in most samples.
 */
/** `stop` ends the sampling (a second call gives the same answer). */
export async function sampleLockWaits(url: string, everyMs = 100): Promise<{ stop(): Promise<LockWaits> }> {
  const sql = await BenchSql.connect(url);
  const waiting: number[] = [];
  const byLock = new Map<string, number>();
  let running = true;
  const loop = (async () => {
    while (running) {
      waiting.push(
        await sql.count(
          `SELECT COUNT(*) AS n FROM pg_locks
           WHERE locktype = 'advisory' AND NOT granted AND classid::bigint / 256 = $1::bigint / 256`,
          [LOCK_NAMESPACE],
        ),
      );
      const kinds = await sql.query<{ wait_event: string; n: string }>(
        `SELECT wait_event, COUNT(*) AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' GROUP BY wait_event`,
      );
      for (const kind of kinds)
        byLock.set(kind.wait_event, (byLock.get(kind.wait_event) ?? 0) + Number(kind.n));
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  let stopped: Promise<LockWaits> | undefined;
  const stop = async (): Promise<LockWaits> => {
    running = false;
    await loop;
    await sql.close();
    const samples = waiting.length;
    const per = (n: number) => Math.round((n / Math.max(1, samples)) * 100) / 100;
    return {
      samples,
      meanWaiting: waiting.reduce((sum, n) => sum + n, 0) / Math.max(1, samples),
      waitingShare: waiting.filter((n) => n > 0).length / Math.max(1, samples),
      meanWaitingByLock: Object.fromEntries([...byLock].map(([kind, n]) => [kind, per(n)])),
    };
  };
  return {
    stop() {
      stopped ??= stop();
      return stopped;
    },
  };
}
