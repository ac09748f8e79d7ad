/**
 * The JobStore port on PostgreSQL. A claim chooses its rows with FOR UPDATE SKIP LOCKED: the engines of
 * several instances claiming at once each take jobs no other is taking, without waiting for one another;
 * every change of an active job names its owner and is re-checked against the row's latest version, so a
 * claim that was taken over changes nothing (false).
 */
import type { ClaimedJob, JobKind, JobRecord, JobStep, JobStore, NewJob, Reschedule } from '../../ports.js';
import { DELIVERY_SELECT, JOB_COLUMN_NAMES } from '../row-records.js';
import { minimum, toDelivery, toJob } from './records.js';
import type { Sql, SqlParam } from './sql.js';

const COLUMNS = JOB_COLUMN_NAMES.join(', ');
const J_COLUMNS = JOB_COLUMN_NAMES.map((name) => `j.${name}`).join(', ');

/** Claims due jobs ($1 now, $2 owner, $3 lease end, $4 limit); a claimed send turns its delivery `sending`. */
const CLAIM = `WITH picked AS (
    SELECT id FROM jobs WHERE status = 'waiting' AND due_at_ms <= $1 ORDER BY due_at_ms, id LIMIT $4
    FOR UPDATE SKIP LOCKED),
  claimed AS (
    UPDATE jobs j SET status = 'active', attempts = j.attempts + 1, owner = $2, lease_until_ms = $3
    FROM picked WHERE j.id = picked.id RETURNING ${J_COLUMNS}),
  sending AS (
    UPDATE deliveries SET status = 'sending' FROM claimed
    WHERE deliveries.id = claimed.delivery_id AND claimed.kind = 'send' RETURNING deliveries.id)
  SELECT * FROM claimed`;

export class PostgresJobStore implements JobStore {
  constructor(private readonly sql: Sql) {}

  async add(jobs: readonly NewJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const params: SqlParam[] = [];
    const rows = jobs.map((job) => {
      const first = params.length + 1;
      params.push(job.kind, job.deliveryId ?? null, job.postId ?? null, job.channelId, job.step ?? 'run');
      params.push(job.dueAtMs, JSON.stringify(job.state ?? {}));
      const [kind, delivery, post, channel, step, due, state] = Array.from(
        { length: 7 },
        (_, i) => `$${first + i}`,
      );
      return `(${kind}, ${delivery}::bigint, ${post}::bigint, ${channel}::bigint, 'waiting', ${step}, ${due}::bigint, ${state}::jsonb)`;
    });
    await this.sql.change(
      `INSERT INTO jobs (kind, delivery_id, post_id, channel_id, status, step, due_at_ms, state)
       VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING`,
      ...params,
    );
  }

  async claim(
    limit: number,
    claim: { owner: string; leaseUntilMs: number },
    nowMs: number,
  ): Promise<ClaimedJob[]> {
    const jobs = (await this.sql.all(CLAIM, nowMs, claim.owner, claim.leaseUntilMs, limit))
      .map(toJob)
      .sort((a, b) => a.dueAtMs - b.dueAtMs || a.id - b.id);
    const ids = jobs.flatMap((job) => (job.deliveryId === null ? [] : [job.deliveryId]));
    const deliveries = new Map(
      ids.length === 0
        ? []
        : (await this.sql.all(`${DELIVERY_SELECT} WHERE d.id = ANY($1::bigint[])`, ids)).map(
            (row) => [Number(row.id), toDelivery(row)] as const,
          ),
    );
    return jobs.map((job) => ({
      job,
      delivery: job.deliveryId === null ? undefined : deliveries.get(job.deliveryId),
    }));
  }

  async renew(jobIds: readonly number[], claim: { owner: string; leaseUntilMs: number }): Promise<void> {
    if (jobIds.length === 0) return;
    await this.sql.change(
      `UPDATE jobs SET lease_until_ms = $1 WHERE id = ANY($3::bigint[]) AND status = 'active' AND owner = $2`,
      claim.leaseUntilMs,
      claim.owner,
      jobIds,
    );
  }

  async handBack(jobId: number, owner: string): Promise<boolean> {
    const changed = await this.sql.change(
      `UPDATE jobs SET status = 'waiting', attempts = attempts - 1, owner = NULL, lease_until_ms = NULL
       WHERE id = $1 AND status = 'active' AND owner = $2`,
      jobId,
      owner,
    );
    return changed === 1;
  }

  async finish(
    jobId: number,
    owner: string,
    end: { status: 'done' | 'failed'; reason: string | null; state?: object },
    nowMs: number,
  ): Promise<boolean> {
    const changed = await this.sql.change(
      `UPDATE jobs SET status = $1, reason = $2, state = COALESCE($3::jsonb, state), finished_at_ms = $4,
         lease_until_ms = NULL
       WHERE id = $5 AND status = 'active' AND owner = $6`,
      end.status,
      end.reason,
      end.state === undefined ? null : JSON.stringify(end.state),
      nowMs,
      jobId,
      owner,
    );
    return changed === 1;
  }

  async reschedule(jobId: number, owner: string, change: Reschedule): Promise<boolean> {
    const changed = await this.sql.change(
      `UPDATE jobs SET status = 'waiting', due_at_ms = $1, reason = $2, step = COALESCE($3, step),
         state = COALESCE($4::jsonb, state), attempts = attempts - $5, owner = NULL, lease_until_ms = NULL
       WHERE id = $6 AND status = 'active' AND owner = $7`,
      change.dueAtMs,
      change.reason,
      change.step ?? null,
      change.state === undefined ? null : JSON.stringify(change.state),
      change.countAttempt === false ? 1 : 0,
      jobId,
      owner,
    );
    return changed === 1;
  }

  async expired(nowMs: number, limit: number): Promise<JobRecord[]> {
    const rows = await this.sql.all(
      `SELECT ${COLUMNS} FROM jobs WHERE status = 'active' AND lease_until_ms < $1
       ORDER BY lease_until_ms, id LIMIT $2`,
      nowMs,
      limit,
    );
    return rows.map(toJob);
  }

  async takeOver(
    jobId: number,
    nowMs: number,
    to: { status: 'waiting'; step?: JobStep } | { status: 'failed'; reason: string },
  ): Promise<boolean> {
    const stillExpired = `id = $1 AND status = 'active' AND lease_until_ms < $2`;
    const changed =
      to.status === 'failed'
        ? await this.sql.change(
            `UPDATE jobs SET status = 'failed', reason = $3, finished_at_ms = $2, lease_until_ms = NULL
             WHERE ${stillExpired}`,
            jobId,
            nowMs,
            to.reason,
          )
        : await this.sql.change(
            `UPDATE jobs SET status = 'waiting', due_at_ms = $2, step = COALESCE($3, step), owner = NULL,
               lease_until_ms = NULL
             WHERE ${stillExpired}`,
            jobId,
            nowMs,
            to.step ?? null,
          );
    return changed === 1;
  }

  postponeChannel(channelId: number, untilMs: number): Promise<number> {
    return this.sql.change(
      `UPDATE jobs SET due_at_ms = $1 WHERE channel_id = $2 AND status = 'waiting' AND due_at_ms < $1
         AND kind IN ('send', 'comment')`,
      untilMs,
      channelId,
    );
  }

  async claimRefresh(
    channelId: number,
    claim: { owner: string; leaseUntilMs: number },
    nowMs: number,
  ): Promise<boolean> {
    const changed = await this.sql.change(
      `INSERT INTO jobs (kind, channel_id, status, step, due_at_ms, owner, lease_until_ms, attempts)
       VALUES ('refresh', $1, 'active', 'run', $2, $3, $4, 1)
       ON CONFLICT (channel_id) WHERE kind = 'refresh' DO UPDATE SET status = 'active',
         due_at_ms = excluded.due_at_ms, owner = excluded.owner, lease_until_ms = excluded.lease_until_ms,
         attempts = jobs.attempts + 1, reason = NULL, finished_at_ms = NULL
       WHERE jobs.status <> 'active' OR jobs.lease_until_ms < $2`,
      channelId,
      nowMs,
      claim.owner,
      claim.leaseUntilMs,
    );
    return changed === 1;
  }

  async endRefresh(channelId: number, owner: string, nowMs: number, failure?: string): Promise<boolean> {
    const changed = await this.sql.change(
      `UPDATE jobs SET status = $1, reason = $2, finished_at_ms = $3, lease_until_ms = NULL
       WHERE kind = 'refresh' AND channel_id = $4 AND status = 'active' AND owner = $5`,
      failure === undefined ? 'done' : 'failed',
      failure ?? null,
      nowMs,
      channelId,
      owner,
    );
    return changed === 1;
  }

  async limitAccount(channelId: number, untilMs: number): Promise<void> {
    await this.sql.change(
      `INSERT INTO account_limits (channel_id, until_ms) VALUES ($1, $2)
       ON CONFLICT (channel_id) DO UPDATE SET until_ms = GREATEST(account_limits.until_ms, excluded.until_ms)`,
      channelId,
      untilMs,
    );
  }

  async accountLimits(nowMs: number): Promise<Map<number, number>> {
    const rows = await this.sql.all(
      'SELECT channel_id, until_ms FROM account_limits WHERE until_ms > $1',
      nowMs,
    );
    return new Map(rows.map((row) => [Number(row.channel_id), Number(row.until_ms)] as const));
  }

  async hasDue(nowMs: number): Promise<boolean> {
    const row = await this.sql.get(
      `SELECT 1 AS one FROM jobs WHERE status = 'waiting' AND due_at_ms <= $1 LIMIT 1`,
      nowMs,
    );
    return row !== undefined;
  }

  async nextWakeAtMs(): Promise<number | undefined> {
    return minimum(
      await this.sql.get(
        `SELECT LEAST(
           (SELECT MIN(due_at_ms) FROM jobs WHERE status = 'waiting'),
           (SELECT MIN(lease_until_ms) + 1 FROM jobs WHERE status = 'active')) AS t`,
      ),
    );
  }

  async ofDelivery(deliveryId: number, kind: JobKind): Promise<JobRecord | undefined> {
    const row = await this.sql.get(
      `SELECT ${COLUMNS} FROM jobs WHERE delivery_id = $1 AND kind = $2`,
      deliveryId,
      kind,
    );
    return row && toJob(row);
  }

  async preparedFor(postId: number): Promise<Map<number, JobRecord>> {
    const rows = await this.sql.all(
      `SELECT ${COLUMNS} FROM jobs WHERE post_id = $1 AND kind = 'prepare'`,
      postId,
    );
    return new Map(rows.map((row) => [Number(row.channel_id), toJob(row)] as const));
  }

  async dropPrepared(postId: number): Promise<void> {
    await this.sql.change(
      `DELETE FROM jobs WHERE post_id = $1 AND kind = 'prepare' AND status <> 'active'`,
      postId,
    );
  }
}
