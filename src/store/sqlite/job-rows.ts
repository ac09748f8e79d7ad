/**
 * The JobStore port on SQLite. A claim chooses and claims its rows in one statement under the write
 * lock (BEGIN IMMEDIATE), so two processes on one file never claim one job; every change of an active
 * job names its owner and does nothing once the claim is no longer that owner's.
 */
import type { ClaimedJob, JobKind, JobRecord, JobStep, JobStore, NewJob, Reschedule } from '../../ports.js';
import { DELIVERY_SELECT, JOB_COLUMN_NAMES } from '../row-records.js';
import { toDelivery, toJob } from './records.js';
import type { Sql } from './sql.js';
import type { TransactionScope } from './transaction-scope.js';

const COLUMNS = JOB_COLUMN_NAMES.join(', ');
const MINE = `id = ? AND status = 'active' AND owner = ?`;
const STILL_EXPIRED = `id = ? AND status = 'active' AND lease_until_ms < ?`;

export class SqliteJobStore implements JobStore {
  constructor(
    private readonly sql: Sql,
    private readonly scope: TransactionScope,
  ) {}

  add(jobs: readonly NewJob[]): Promise<void> {
    return this.scope.run(() => {
      for (const job of jobs) {
        this.sql.run(
          `INSERT OR IGNORE INTO jobs (kind, delivery_id, post_id, channel_id, status, step, due_at_ms, state)
           VALUES (?, ?, ?, ?, 'waiting', ?, ?, ?)`,
          job.kind,
          job.deliveryId ?? null,
          job.postId ?? null,
          job.channelId,
          job.step ?? 'run',
          job.dueAtMs,
          JSON.stringify(job.state ?? {}),
        );
      }
    });
  }

  claim(limit: number, claim: { owner: string; leaseUntilMs: number }, nowMs: number): Promise<ClaimedJob[]> {
    return this.scope.run(() =>
      this.sql.immediate(() => {
        const jobs = this.sql
          .all(
            `UPDATE jobs SET status = 'active', attempts = attempts + 1, owner = ?, lease_until_ms = ?
             WHERE id IN (SELECT id FROM jobs INDEXED BY jobs_waiting
               WHERE status = 'waiting' AND due_at_ms <= ? ORDER BY due_at_ms, id LIMIT ?)
             RETURNING ${COLUMNS}`,
            claim.owner,
            claim.leaseUntilMs,
            nowMs,
            limit,
          )
          .map(toJob)
          .sort((a, b) => a.dueAtMs - b.dueAtMs || a.id - b.id);
        const sends = jobs.filter((job) => job.kind === 'send').map((job) => job.deliveryId!);
        const ids = jobs.flatMap((job) => (job.deliveryId === null ? [] : [job.deliveryId]));
        if (sends.length > 0) {
          this.sql.run(
            `UPDATE deliveries SET status = 'sending' WHERE id IN (${sends.map(() => '?').join(', ')})`,
            ...sends,
          );
        }
        const deliveries = new Map(
          ids.length === 0
            ? []
            : this.sql
                .allOnce(`${DELIVERY_SELECT} WHERE d.id IN (${ids.map(() => '?').join(', ')})`, ...ids)
                .map((row) => [Number(row.id), toDelivery(row)] as const),
        );
        return jobs.map((job) => ({
          job,
          delivery: job.deliveryId === null ? undefined : deliveries.get(job.deliveryId),
        }));
      }),
    );
  }

  renew(jobIds: readonly number[], claim: { owner: string; leaseUntilMs: number }): Promise<void> {
    return this.scope.run(() => {
      if (jobIds.length === 0) return;
      this.sql.run(
        `UPDATE jobs SET lease_until_ms = ?
         WHERE status = 'active' AND owner = ? AND id IN (${jobIds.map(() => '?').join(', ')})`,
        claim.leaseUntilMs,
        claim.owner,
        ...jobIds,
      );
    });
  }

  handBack(jobId: number, owner: string): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          `UPDATE jobs SET status = 'waiting', attempts = attempts - 1, owner = NULL, lease_until_ms = NULL
           WHERE ${MINE}`,
          jobId,
          owner,
        ) === 1,
    );
  }

  finish(
    jobId: number,
    owner: string,
    end: { status: 'done' | 'failed'; reason: string | null; state?: object },
    nowMs: number,
  ): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          `UPDATE jobs SET status = ?, reason = ?, state = COALESCE(?, state), finished_at_ms = ?,
             lease_until_ms = NULL
           WHERE ${MINE}`,
          end.status,
          end.reason,
          end.state === undefined ? null : JSON.stringify(end.state),
          nowMs,
          jobId,
          owner,
        ) === 1,
    );
  }

  reschedule(jobId: number, owner: string, change: Reschedule): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          `UPDATE jobs SET status = 'waiting', due_at_ms = ?, reason = ?, step = COALESCE(?, step),
             state = COALESCE(?, state), attempts = attempts - ?, owner = NULL, lease_until_ms = NULL
           WHERE ${MINE}`,
          change.dueAtMs,
          change.reason,
          change.step ?? null,
          change.state === undefined ? null : JSON.stringify(change.state),
          change.countAttempt === false ? 1 : 0,
          jobId,
          owner,
        ) === 1,
    );
  }

  expired(nowMs: number, limit: number): Promise<JobRecord[]> {
    return this.scope.run(() =>
      this.sql
        .all(
          `SELECT ${COLUMNS} FROM jobs INDEXED BY jobs_active
           WHERE status = 'active' AND lease_until_ms < ? ORDER BY lease_until_ms LIMIT ?`,
          nowMs,
          limit,
        )
        .map(toJob),
    );
  }

  takeOver(
    jobId: number,
    nowMs: number,
    to: { status: 'waiting'; step?: JobStep } | { status: 'failed'; reason: string },
  ): Promise<boolean> {
    return this.scope.run(() => {
      if (to.status === 'failed') {
        return (
          this.sql.change(
            `UPDATE jobs SET status = 'failed', reason = ?, finished_at_ms = ?, lease_until_ms = NULL
             WHERE ${STILL_EXPIRED}`,
            to.reason,
            nowMs,
            jobId,
            nowMs,
          ) === 1
        );
      }
      return (
        this.sql.change(
          `UPDATE jobs SET status = 'waiting', due_at_ms = ?, step = COALESCE(?, step), owner = NULL,
             lease_until_ms = NULL
           WHERE ${STILL_EXPIRED}`,
          nowMs,
          to.step ?? null,
          jobId,
          nowMs,
        ) === 1
      );
    });
  }

  postponeChannel(channelId: number, untilMs: number): Promise<number> {
    return this.scope.run(() =>
      this.sql.change(
        `UPDATE jobs SET due_at_ms = ? WHERE channel_id = ? AND status = 'waiting' AND due_at_ms < ?
           AND kind IN ('send', 'comment')`,
        untilMs,
        channelId,
        untilMs,
      ),
    );
  }

  claimRefresh(
    channelId: number,
    claim: { owner: string; leaseUntilMs: number },
    nowMs: number,
  ): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          `INSERT INTO jobs (kind, channel_id, status, step, due_at_ms, owner, lease_until_ms, attempts)
           VALUES ('refresh', ?, 'active', 'run', ?, ?, ?, 1)
           ON CONFLICT (channel_id) WHERE kind = 'refresh' DO UPDATE SET status = 'active',
             due_at_ms = excluded.due_at_ms, owner = excluded.owner, lease_until_ms = excluded.lease_until_ms,
             attempts = jobs.attempts + 1, reason = NULL, finished_at_ms = NULL
           WHERE jobs.status <> 'active' OR jobs.lease_until_ms < ?`,
          channelId,
          nowMs,
          claim.owner,
          claim.leaseUntilMs,
          nowMs,
        ) === 1,
    );
  }

  endRefresh(channelId: number, owner: string, nowMs: number, failure?: string): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          `UPDATE jobs SET status = ?, reason = ?, finished_at_ms = ?, lease_until_ms = NULL
           WHERE kind = 'refresh' AND channel_id = ? AND status = 'active' AND owner = ?`,
          failure === undefined ? 'done' : 'failed',
          failure ?? null,
          nowMs,
          channelId,
          owner,
        ) === 1,
    );
  }

  limitAccount(channelId: number, untilMs: number): Promise<void> {
    return this.scope.run(() => {
      this.sql.run(
        `INSERT INTO account_limits (channel_id, until_ms) VALUES (?, ?)
         ON CONFLICT (channel_id) DO UPDATE SET until_ms = MAX(until_ms, excluded.until_ms)`,
        channelId,
        untilMs,
      );
    });
  }

  accountLimits(nowMs: number): Promise<Map<number, number>> {
    return this.scope.run(
      () =>
        new Map(
          this.sql
            .all('SELECT channel_id, until_ms FROM account_limits WHERE until_ms > ?', nowMs)
            .map((row) => [Number(row.channel_id), Number(row.until_ms)] as const),
        ),
    );
  }

  hasDue(nowMs: number): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.get(
          `SELECT 1 AS one FROM jobs INDEXED BY jobs_waiting WHERE status = 'waiting' AND due_at_ms <= ? LIMIT 1`,
          nowMs,
        ) !== undefined,
    );
  }

  nextWakeAtMs(): Promise<number | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(
        `SELECT MIN(t) AS t FROM (
           SELECT MIN(due_at_ms) AS t FROM jobs INDEXED BY jobs_waiting WHERE status = 'waiting'
           UNION ALL
           SELECT MIN(lease_until_ms) + 1 AS t FROM jobs INDEXED BY jobs_active WHERE status = 'active')`,
      );
      return row?.t === null || row?.t === undefined ? undefined : Number(row.t);
    });
  }

  ofDelivery(deliveryId: number, kind: JobKind): Promise<JobRecord | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(
        `SELECT ${COLUMNS} FROM jobs WHERE delivery_id = ? AND kind = ?`,
        deliveryId,
        kind,
      );
      return row && toJob(row);
    });
  }

  preparedFor(postId: number): Promise<Map<number, JobRecord>> {
    return this.scope.run(
      () =>
        new Map(
          this.sql
            .all(`SELECT ${COLUMNS} FROM jobs WHERE post_id = ? AND kind = 'prepare'`, postId)
            .map((row) => [Number(row.channel_id), toJob(row)] as const),
        ),
    );
  }

  dropPrepared(postId: number): Promise<void> {
    return this.scope.run(() => {
      this.sql.run(`DELETE FROM jobs WHERE post_id = ? AND kind = 'prepare' AND status <> 'active'`, postId);
    });
  }
}
