/**
 * The DeliveryStore port on PostgreSQL. Claims choose their rows with FOR UPDATE SKIP LOCKED: the
 * schedulers of several instances claiming at once each take rows no other is taking, without waiting
 * for one another; every change of a claimed row names its owner and is re-checked against the row's
 * latest version, so a claim that was taken over changes nothing (false).
 */
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../domain/delivery.js';
import type { Claim, DeliveryRecord, DeliveryStore, NewDelivery, SentDelivery } from '../../ports.js';
import { DELIVERY_COLUMN_NAMES } from '../row-records.js';
import { minimum, toDelivery } from './records.js';
import { literal, type Sql, type SqlParam } from './sql.js';

const COLUMNS = DELIVERY_COLUMN_NAMES.join(', ');
/** The columns of `deliveries d`, for the RETURNING of an UPDATE … FROM (where `id` alone is ambiguous). */
const D_COLUMNS = DELIVERY_COLUMN_NAMES.map((name) => `d.${name}`).join(', ');

/**
 * A claim as one statement: `pick` selects (and locks, skipping rows another transaction holds) the ids
 * to claim, `set` claims them; the claimed rows come back.
 */
function claimStatement(pick: string, set: string): string {
  return `WITH picked AS (${pick} FOR UPDATE SKIP LOCKED)
    UPDATE deliveries d SET ${set} FROM picked WHERE d.id = picked.id RETURNING ${D_COLUMNS}`;
}

const CLAIM_PENDING = claimStatement(
  `SELECT id FROM deliveries WHERE status = 'pending' AND (retry_at_ms IS NULL OR retry_at_ms <= $1)
   ORDER BY id LIMIT $4`,
  `status = 'sending', attempts = d.attempts + 1, claimed_at_ms = $1, claim_owner = $2, lease_until_ms = $3,
   retry_at_ms = NULL`,
);

const CLAIM_DUE_COMMENTS = claimStatement(
  `SELECT id FROM deliveries WHERE comment_status = 'pending' AND comment_due_at_ms <= $3
   ORDER BY comment_due_at_ms, id LIMIT $4`,
  `comment_status = 'sending', comment_attempts = comment_attempts + 1, claim_owner = $1, lease_until_ms = $2`,
);

/** A closing whose lease ended is taken over: closing a closed poll is harmless. */
const CLAIM_DUE_POLL_CLOSES = claimStatement(
  `SELECT id FROM deliveries WHERE poll_close_status IN ('pending', 'sending') AND poll_close_at_ms <= $2
     AND (poll_close_status = 'pending' OR poll_lease_until_ms < $2)
   ORDER BY poll_close_at_ms, id LIMIT $3`,
  `poll_close_status = 'sending', poll_lease_until_ms = $1`,
);

/**
 * What a claim is on: a delivery (its `status`) or its auto-comment (`comment_status`). A claim whose
 * lease ended is found, put back to pending or failed by the same statements for both; each change
 * re-checks that the lease is still over, since its owner may have renewed it meanwhile.
 */
const CLAIMED = {
  delivery: { status: 'status', reason: 'reason' },
  comment: { status: 'comment_status', reason: 'comment_reason' },
} as const;

type ClaimKind = keyof typeof CLAIMED;

function expiredClaimStatements(kind: ClaimKind) {
  const { status, reason } = CLAIMED[kind];
  return {
    select: `SELECT ${COLUMNS} FROM deliveries WHERE ${status} = 'sending' AND lease_until_ms < $1
      ORDER BY lease_until_ms, id LIMIT $2`,
    release: `UPDATE deliveries SET ${status} = 'pending', claim_owner = NULL, lease_until_ms = NULL
      WHERE id = $1 AND ${status} = 'sending' AND lease_until_ms < $2`,
    fail: `UPDATE deliveries SET ${status} = 'failed', ${reason} = $3, lease_until_ms = NULL
      WHERE id = $1 AND ${status} = 'sending' AND lease_until_ms < $2`,
  };
}

const EXPIRED = { delivery: expiredClaimStatements('delivery'), comment: expiredClaimStatements('comment') };

const byId = (a: DeliveryRecord, b: DeliveryRecord) => a.id - b.id;

export class PostgresDeliveryStore implements DeliveryStore {
  constructor(private readonly sql: Sql) {}

  async insertMany(deliveries: readonly NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const params: SqlParam[] = [];
    const rows = deliveries.map((d) => {
      const first = params.length + 1;
      params.push(d.postId, d.channelId, d.channelName, d.channelType, d.status, d.reason);
      params.push(JSON.stringify(d.notes), d.content === null ? null : JSON.stringify(d.content));
      return `(${Array.from({ length: 8 }, (_, i) => `$${first + i}`).join(', ')})`;
    });
    await this.sql.change(
      `INSERT INTO deliveries (post_id, channel_id, channel_name, channel_type, status, reason, notes, content)
       VALUES ${rows.join(', ')}`,
      ...params,
    );
  }

  async ofPost(postId: number): Promise<DeliveryRecord[]> {
    const rows = await this.sql.all(
      `SELECT ${COLUMNS} FROM deliveries WHERE post_id = $1 ORDER BY id`,
      postId,
    );
    return rows.map(toDelivery);
  }

  async ofPosts(postIds: readonly number[]): Promise<Map<number, DeliveryRecord[]>> {
    const byPost = new Map<number, DeliveryRecord[]>(postIds.map((id) => [id, []]));
    if (postIds.length === 0) return byPost;
    const rows = await this.sql.all(
      `SELECT ${COLUMNS} FROM deliveries WHERE post_id = ANY($1::bigint[]) ORDER BY id`,
      postIds,
    );
    for (const row of rows) byPost.get(Number(row.post_id))?.push(toDelivery(row));
    return byPost;
  }

  async hasPending(nowMs: number): Promise<boolean> {
    const row = await this.sql.get(
      `SELECT 1 AS one FROM deliveries WHERE status = 'pending' AND (retry_at_ms IS NULL OR retry_at_ms <= $1)
       LIMIT 1`,
      nowMs,
    );
    return row !== undefined;
  }

  async claimPending(limit: number, claim: Claim, nowMs: number): Promise<DeliveryRecord[]> {
    const rows = await this.sql.all(CLAIM_PENDING, nowMs, claim.owner, claim.leaseUntilMs, limit);
    return rows.map(toDelivery).sort(byId);
  }

  async renew(deliveryIds: readonly number[], claim: Claim): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.sql.change(
      `UPDATE deliveries SET lease_until_ms = $1
       WHERE id = ANY($2::bigint[]) AND claim_owner = $3 AND (status = 'sending' OR comment_status = 'sending')`,
      claim.leaseUntilMs,
      deliveryIds,
      claim.owner,
    );
  }

  async handBack(deliveryId: number, owner: string): Promise<boolean> {
    const changed = await this.sql.change(
      `UPDATE deliveries SET status = 'pending', attempts = attempts - 1, claimed_at_ms = NULL,
         claim_owner = NULL, lease_until_ms = NULL
       WHERE id = $1 AND status = 'sending' AND claim_owner = $2`,
      deliveryId,
      owner,
    );
    return changed === 1;
  }

  async handBackComment(deliveryId: number, owner: string): Promise<boolean> {
    const changed = await this.sql.change(
      `UPDATE deliveries SET comment_status = 'pending', claim_owner = NULL, lease_until_ms = NULL
       WHERE id = $1 AND comment_status = 'sending' AND claim_owner = $2`,
      deliveryId,
      owner,
    );
    return changed === 1;
  }

  async markSent(deliveryId: number, owner: string, sent: SentDelivery, nowMs: number): Promise<boolean> {
    const changed = await this.sql.change(
      `UPDATE deliveries SET status = 'sent', external_id = $1, url = $2, sent_at_ms = $3, reason = NULL,
         lease_until_ms = NULL,
         comment_status = CASE WHEN $4::bigint IS NULL THEN 'none' ELSE 'pending' END, comment_due_at_ms = $4,
         poll_close_status = CASE WHEN $5::bigint IS NULL THEN 'none' ELSE 'pending' END, poll_close_at_ms = $5
       WHERE id = $6 AND status = 'sending' AND claim_owner = $7`,
      sent.externalId,
      sent.url,
      nowMs,
      sent.commentDueAtMs,
      sent.pollCloseAtMs,
      deliveryId,
      owner,
    );
    return changed === 1;
  }

  async markFailed(deliveryId: number, owner: string, reason: string): Promise<boolean> {
    const changed = await this.sql.change(
      `UPDATE deliveries SET status = 'failed', reason = $1, lease_until_ms = NULL
       WHERE id = $2 AND status = 'sending' AND claim_owner = $3`,
      reason,
      deliveryId,
      owner,
    );
    return changed === 1;
  }

  async markRetry(deliveryId: number, owner: string, reason: string, retryAtMs: number): Promise<boolean> {
    const changed = await this.sql.change(
      `UPDATE deliveries SET status = 'pending', reason = $1, retry_at_ms = $2, claim_owner = NULL,
         lease_until_ms = NULL
       WHERE id = $3 AND status = 'sending' AND claim_owner = $4`,
      reason,
      retryAtMs,
      deliveryId,
      owner,
    );
    return changed === 1;
  }

  async nextRetryAtMs(): Promise<number | undefined> {
    return minimum(
      await this.sql.get(
        `SELECT MIN(retry_at_ms) AS t FROM deliveries WHERE status = 'pending' AND retry_at_ms IS NOT NULL`,
      ),
    );
  }

  expiredClaims(nowMs: number, limit: number): Promise<DeliveryRecord[]> {
    return this.expired('delivery', nowMs, limit);
  }

  async releaseExpired(deliveryId: number, nowMs: number): Promise<boolean> {
    return (await this.sql.change(EXPIRED.delivery.release, deliveryId, nowMs)) === 1;
  }

  async failExpired(deliveryId: number, reason: string, nowMs: number): Promise<boolean> {
    return (await this.sql.change(EXPIRED.delivery.fail, deliveryId, nowMs, reason)) === 1;
  }

  async claimDueComments(limit: number, claim: Claim, nowMs: number): Promise<DeliveryRecord[]> {
    const rows = await this.sql.all(CLAIM_DUE_COMMENTS, claim.owner, claim.leaseUntilMs, nowMs, limit);
    return rows
      .map(toDelivery)
      .sort((a, b) => (a.commentDueAtMs ?? 0) - (b.commentDueAtMs ?? 0) || a.id - b.id);
  }

  async markComment(
    deliveryId: number,
    owner: string,
    status: 'sent' | 'failed',
    nowMs: number,
    reason: string | null,
  ): Promise<boolean> {
    const changed = await this.sql.change(
      `UPDATE deliveries SET comment_status = $1, comment_sent_at_ms = $2, comment_reason = $3,
         lease_until_ms = NULL
       WHERE id = $4 AND comment_status = 'sending' AND claim_owner = $5`,
      status,
      status === 'sent' ? nowMs : null,
      reason,
      deliveryId,
      owner,
    );
    return changed === 1;
  }

  async retryComment(deliveryId: number, owner: string, reason: string, retryAtMs: number): Promise<boolean> {
    const changed = await this.sql.change(
      `UPDATE deliveries SET comment_status = 'pending', comment_reason = $1, comment_due_at_ms = $2,
         claim_owner = NULL, lease_until_ms = NULL
       WHERE id = $3 AND comment_status = 'sending' AND claim_owner = $4`,
      reason,
      retryAtMs,
      deliveryId,
      owner,
    );
    return changed === 1;
  }

  expiredCommentClaims(nowMs: number, limit: number): Promise<DeliveryRecord[]> {
    return this.expired('comment', nowMs, limit);
  }

  async releaseExpiredComment(deliveryId: number, nowMs: number): Promise<boolean> {
    return (await this.sql.change(EXPIRED.comment.release, deliveryId, nowMs)) === 1;
  }

  async failExpiredComment(deliveryId: number, reason: string, nowMs: number): Promise<boolean> {
    return (await this.sql.change(EXPIRED.comment.fail, deliveryId, nowMs, reason)) === 1;
  }

  private async expired(kind: ClaimKind, nowMs: number, limit: number): Promise<DeliveryRecord[]> {
    return (await this.sql.all(EXPIRED[kind].select, nowMs, limit)).map(toDelivery);
  }

  async nextLeaseEndMs(): Promise<number | undefined> {
    // LEAST ignores NULL: each MIN reads its own partial index.
    return minimum(
      await this.sql.get(
        `SELECT LEAST(
           (SELECT MIN(lease_until_ms) FROM deliveries WHERE status = 'sending'),
           (SELECT MIN(lease_until_ms) FROM deliveries WHERE comment_status = 'sending')) AS t`,
      ),
    );
  }

  async nextCommentDueAtMs(): Promise<number | undefined> {
    return minimum(
      await this.sql.get(
        `SELECT MIN(comment_due_at_ms) AS t FROM deliveries WHERE comment_status = 'pending'`,
      ),
    );
  }

  async claimDuePollCloses(limit: number, leaseUntilMs: number, nowMs: number): Promise<DeliveryRecord[]> {
    const rows = await this.sql.all(CLAIM_DUE_POLL_CLOSES, leaseUntilMs, nowMs, limit);
    return rows
      .map(toDelivery)
      .sort((a, b) => (a.pollCloseAtMs ?? 0) - (b.pollCloseAtMs ?? 0) || a.id - b.id);
  }

  async markPollClosed(
    deliveryId: number,
    status: 'closed' | 'failed',
    reason: string | null,
  ): Promise<boolean> {
    const changed = await this.sql.change(
      `UPDATE deliveries SET poll_close_status = $1, poll_lease_until_ms = NULL,
         notes = CASE WHEN $2::text IS NULL THEN notes ELSE notes || jsonb_build_array($2::text) END
       WHERE id = $3 AND poll_close_status = 'sending'`,
      status,
      reason,
      deliveryId,
    );
    return changed === 1;
  }

  async nextPollCloseAtMs(): Promise<number | undefined> {
    return minimum(
      await this.sql.get(
        `SELECT MIN(CASE WHEN poll_close_status = 'pending' THEN poll_close_at_ms ELSE poll_lease_until_ms + 1 END)
           AS t FROM deliveries WHERE poll_close_status IN ('pending', 'sending')`,
      ),
    );
  }

  async counts(postId: number): Promise<Record<DeliveryStatus, number>> {
    const counts = Object.fromEntries(DELIVERY_STATUSES.map((status) => [status, 0])) as Record<
      DeliveryStatus,
      number
    >;
    const count = `SELECT status, COUNT(*) AS n FROM deliveries WHERE post_id = ${literal(postId)} GROUP BY status`;
    // In a transaction (settling the post), after locking the post's row: a transaction recording a
    // sibling delivery on another connection, which may settle the post, holds that lock until it ends,
    // and the count that follows the wait sees what it committed.
    const rows = this.sql.inTransaction
      ? await this.sql.script(`SELECT 1 FROM posts WHERE id = ${literal(postId)} FOR UPDATE; ${count}`)
      : await this.sql.all(count);
    for (const row of rows) counts[String(row.status) as DeliveryStatus] = Number(row.n);
    return counts;
  }
}
