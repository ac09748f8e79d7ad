/** The DeliveryStore port on SQLite. */
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../domain/delivery.js';
import type { Claim, DeliveryRecord, DeliveryStore, NewDelivery, SentDelivery } from '../../ports.js';
import { DELIVERY_COLUMNS as COLUMNS, toDelivery } from './records.js';
import type { Sql } from './sql.js';
import type { TransactionScope } from './transaction-scope.js';

/**
 * What a claim is on: a delivery (its `status`) or its auto-comment (`comment_status`). A claim whose
 * lease ended is found, put back to pending or failed by the same statements for both; each change
 * re-checks that the lease is still over, since its owner may have renewed it meanwhile.
 */
const CLAIMED = {
  delivery: { status: 'status', reason: 'reason', index: 'deliveries_sending' },
  comment: { status: 'comment_status', reason: 'comment_reason', index: 'deliveries_comments_sending' },
} as const;

type ClaimKind = keyof typeof CLAIMED;

function expiredClaimStatements(kind: ClaimKind) {
  const { status, reason, index } = CLAIMED[kind];
  const stillExpired = `id = ? AND ${status} = 'sending' AND lease_until_ms < ?`;
  return {
    select: `SELECT ${COLUMNS} FROM deliveries INDEXED BY ${index}
      WHERE ${status} = 'sending' AND lease_until_ms < ? ORDER BY lease_until_ms LIMIT ?`,
    release: `UPDATE deliveries SET ${status} = 'pending', claim_owner = NULL, lease_until_ms = NULL
      WHERE ${stillExpired}`,
    fail: `UPDATE deliveries SET ${status} = 'failed', ${reason} = ?, lease_until_ms = NULL WHERE ${stillExpired}`,
  };
}

const EXPIRED = { delivery: expiredClaimStatements('delivery'), comment: expiredClaimStatements('comment') };

export class SqliteDeliveryStore implements DeliveryStore {
  constructor(
    private readonly sql: Sql,
    private readonly scope: TransactionScope,
  ) {}

  insertMany(deliveries: readonly NewDelivery[]): Promise<void> {
    return this.scope.run(() => {
      for (const d of deliveries) {
        this.sql.run(
          `INSERT INTO deliveries (post_id, channel_id, channel_name, channel_type, status, reason, notes, content)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          d.postId,
          d.channelId,
          d.channelName,
          d.channelType,
          d.status,
          d.reason,
          JSON.stringify(d.notes),
          d.content === null ? null : JSON.stringify(d.content),
        );
      }
    });
  }

  ofPost(postId: number): Promise<DeliveryRecord[]> {
    return this.scope.run(() =>
      this.sql.all(`SELECT ${COLUMNS} FROM deliveries WHERE post_id = ? ORDER BY id`, postId).map(toDelivery),
    );
  }

  ofPosts(postIds: readonly number[]): Promise<Map<number, DeliveryRecord[]>> {
    return this.scope.run(() => {
      const byPost = new Map<number, DeliveryRecord[]>(postIds.map((id) => [id, []]));
      if (postIds.length === 0) return byPost;
      const placeholders = postIds.map(() => '?').join(', ');
      const rows = this.sql.allOnce(
        `SELECT ${COLUMNS} FROM deliveries WHERE post_id IN (${placeholders}) ORDER BY id`,
        ...postIds,
      );
      for (const row of rows) byPost.get(Number(row.post_id))?.push(toDelivery(row));
      return byPost;
    });
  }

  hasPending(nowMs: number): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.get(
          `SELECT 1 AS one FROM deliveries INDEXED BY deliveries_pending
         WHERE status = 'pending' AND (retry_at_ms IS NULL OR retry_at_ms <= ?) LIMIT 1`,
          nowMs,
        ) !== undefined,
    );
  }

  claimPending(limit: number, claim: Claim, nowMs: number): Promise<DeliveryRecord[]> {
    return this.scope.run(() => {
      // One statement chooses and claims the rows, under the write lock taken first.
      const rows = this.sql.immediate(() =>
        this.sql.all(
          `UPDATE deliveries SET status = 'sending', attempts = attempts + 1, claimed_at_ms = ?, claim_owner = ?,
           lease_until_ms = ?, retry_at_ms = NULL
         WHERE id IN (
           SELECT id FROM deliveries INDEXED BY deliveries_pending
           WHERE status = 'pending' AND (retry_at_ms IS NULL OR retry_at_ms <= ?) ORDER BY id LIMIT ?)
         RETURNING ${COLUMNS}`,
          nowMs,
          claim.owner,
          claim.leaseUntilMs,
          nowMs,
          limit,
        ),
      );
      return rows.map(toDelivery).sort((a, b) => a.id - b.id);
    });
  }

  renew(deliveryIds: readonly number[], claim: Claim): Promise<void> {
    return this.scope.run(() => {
      if (deliveryIds.length === 0) return;
      this.sql.transaction(() => {
        for (const id of deliveryIds) {
          this.sql.run(
            `UPDATE deliveries SET lease_until_ms = ?
           WHERE id = ? AND claim_owner = ? AND (status = 'sending' OR comment_status = 'sending')`,
            claim.leaseUntilMs,
            id,
            claim.owner,
          );
        }
      });
    });
  }

  handBack(deliveryId: number, owner: string): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          `UPDATE deliveries SET status = 'pending', attempts = attempts - 1, claimed_at_ms = NULL,
           claim_owner = NULL, lease_until_ms = NULL
         WHERE id = ? AND status = 'sending' AND claim_owner = ?`,
          deliveryId,
          owner,
        ) === 1,
    );
  }

  handBackComment(deliveryId: number, owner: string): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          `UPDATE deliveries SET comment_status = 'pending', claim_owner = NULL, lease_until_ms = NULL
         WHERE id = ? AND comment_status = 'sending' AND claim_owner = ?`,
          deliveryId,
          owner,
        ) === 1,
    );
  }

  markSent(deliveryId: number, owner: string, sent: SentDelivery, nowMs: number): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          `UPDATE deliveries SET status = 'sent', external_id = ?, url = ?, sent_at_ms = ?, reason = NULL,
           lease_until_ms = NULL,
           comment_status = CASE WHEN ? IS NULL THEN 'none' ELSE 'pending' END, comment_due_at_ms = ?,
           poll_close_status = CASE WHEN ? IS NULL THEN 'none' ELSE 'pending' END, poll_close_at_ms = ?
         WHERE id = ? AND status = 'sending' AND claim_owner = ?`,
          sent.externalId,
          sent.url,
          nowMs,
          sent.commentDueAtMs,
          sent.commentDueAtMs,
          sent.pollCloseAtMs,
          sent.pollCloseAtMs,
          deliveryId,
          owner,
        ) === 1,
    );
  }

  markFailed(deliveryId: number, owner: string, reason: string): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          `UPDATE deliveries SET status = 'failed', reason = ?, lease_until_ms = NULL
         WHERE id = ? AND status = 'sending' AND claim_owner = ?`,
          reason,
          deliveryId,
          owner,
        ) === 1,
    );
  }

  markRetry(deliveryId: number, owner: string, reason: string, retryAtMs: number): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          `UPDATE deliveries SET status = 'pending', reason = ?, retry_at_ms = ?, claim_owner = NULL,
           lease_until_ms = NULL
         WHERE id = ? AND status = 'sending' AND claim_owner = ?`,
          reason,
          retryAtMs,
          deliveryId,
          owner,
        ) === 1,
    );
  }

  nextRetryAtMs(): Promise<number | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(
        `SELECT MIN(retry_at_ms) AS t FROM deliveries INDEXED BY deliveries_retry
       WHERE status = 'pending' AND retry_at_ms IS NOT NULL`,
      );
      return row?.t === null || row?.t === undefined ? undefined : Number(row.t);
    });
  }

  expiredClaims(nowMs: number, limit: number): Promise<DeliveryRecord[]> {
    return this.scope.run(() => this.expired('delivery', nowMs, limit));
  }

  releaseExpired(deliveryId: number, nowMs: number): Promise<boolean> {
    return this.scope.run(() => this.sql.change(EXPIRED.delivery.release, deliveryId, nowMs) === 1);
  }

  failExpired(deliveryId: number, reason: string, nowMs: number): Promise<boolean> {
    return this.scope.run(() => this.sql.change(EXPIRED.delivery.fail, reason, deliveryId, nowMs) === 1);
  }

  claimDueComments(limit: number, claim: Claim, nowMs: number): Promise<DeliveryRecord[]> {
    return this.scope.run(() => {
      const rows = this.sql.immediate(() =>
        this.sql.all(
          `UPDATE deliveries SET comment_status = 'sending', comment_attempts = comment_attempts + 1, claim_owner = ?,
           lease_until_ms = ?
         WHERE id IN (
           SELECT id FROM deliveries INDEXED BY deliveries_comments_pending
           WHERE comment_status = 'pending' AND comment_due_at_ms <= ? ORDER BY comment_due_at_ms LIMIT ?)
         RETURNING ${COLUMNS}`,
          claim.owner,
          claim.leaseUntilMs,
          nowMs,
          limit,
        ),
      );
      return rows
        .map(toDelivery)
        .sort((a, b) => (a.commentDueAtMs ?? 0) - (b.commentDueAtMs ?? 0) || a.id - b.id);
    });
  }

  markComment(
    deliveryId: number,
    owner: string,
    status: 'sent' | 'failed',
    nowMs: number,
    reason: string | null,
  ): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          `UPDATE deliveries SET comment_status = ?, comment_sent_at_ms = ?, comment_reason = ?, lease_until_ms = NULL
         WHERE id = ? AND comment_status = 'sending' AND claim_owner = ?`,
          status,
          status === 'sent' ? nowMs : null,
          reason,
          deliveryId,
          owner,
        ) === 1,
    );
  }

  retryComment(deliveryId: number, owner: string, reason: string, retryAtMs: number): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          `UPDATE deliveries SET comment_status = 'pending', comment_reason = ?, comment_due_at_ms = ?,
           claim_owner = NULL, lease_until_ms = NULL
         WHERE id = ? AND comment_status = 'sending' AND claim_owner = ?`,
          reason,
          retryAtMs,
          deliveryId,
          owner,
        ) === 1,
    );
  }

  expiredCommentClaims(nowMs: number, limit: number): Promise<DeliveryRecord[]> {
    return this.scope.run(() => this.expired('comment', nowMs, limit));
  }

  releaseExpiredComment(deliveryId: number, nowMs: number): Promise<boolean> {
    return this.scope.run(() => this.sql.change(EXPIRED.comment.release, deliveryId, nowMs) === 1);
  }

  failExpiredComment(deliveryId: number, reason: string, nowMs: number): Promise<boolean> {
    return this.scope.run(() => this.sql.change(EXPIRED.comment.fail, reason, deliveryId, nowMs) === 1);
  }

  private expired(kind: ClaimKind, nowMs: number, limit: number): DeliveryRecord[] {
    return this.sql.all(EXPIRED[kind].select, nowMs, limit).map(toDelivery);
  }

  nextLeaseEndMs(): Promise<number | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(
        `SELECT MIN(t) AS t FROM (
         SELECT MIN(lease_until_ms) AS t FROM deliveries INDEXED BY deliveries_sending WHERE status = 'sending'
         UNION ALL
         SELECT MIN(lease_until_ms) AS t FROM deliveries INDEXED BY deliveries_comments_sending
           WHERE comment_status = 'sending')`,
      );
      return row?.t === null || row?.t === undefined ? undefined : Number(row.t);
    });
  }

  nextCommentDueAtMs(): Promise<number | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(
        `SELECT MIN(comment_due_at_ms) AS t FROM deliveries INDEXED BY deliveries_comments_pending WHERE comment_status = 'pending'`,
      );
      return row?.t === null || row?.t === undefined ? undefined : Number(row.t);
    });
  }

  claimDuePollCloses(limit: number, leaseUntilMs: number, nowMs: number): Promise<DeliveryRecord[]> {
    return this.scope.run(() => {
      // A closing whose lease ended is taken over: closing a closed poll is harmless.
      return this.sql.immediate(() =>
        this.sql
          .all(
            `UPDATE deliveries SET poll_close_status = 'sending', poll_lease_until_ms = ?
           WHERE id IN (
             SELECT id FROM deliveries INDEXED BY deliveries_polls
             WHERE poll_close_status IN ('pending', 'sending') AND poll_close_at_ms <= ?
               AND (poll_close_status = 'pending' OR poll_lease_until_ms < ?)
             ORDER BY poll_close_at_ms LIMIT ?)
           RETURNING ${COLUMNS}`,
            leaseUntilMs,
            nowMs,
            nowMs,
            limit,
          )
          .map(toDelivery),
      );
    });
  }

  markPollClosed(deliveryId: number, status: 'closed' | 'failed', reason: string | null): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          `UPDATE deliveries SET poll_close_status = ?, poll_lease_until_ms = NULL,
           notes = CASE WHEN ? IS NULL THEN notes ELSE json_insert(notes, '$[#]', ?) END
         WHERE id = ? AND poll_close_status = 'sending'`,
          status,
          reason,
          reason,
          deliveryId,
        ) === 1,
    );
  }

  nextPollCloseAtMs(): Promise<number | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(
        `SELECT MIN(CASE WHEN poll_close_status = 'pending' THEN poll_close_at_ms ELSE poll_lease_until_ms + 1 END)
         AS t FROM deliveries INDEXED BY deliveries_polls WHERE poll_close_status IN ('pending', 'sending')`,
      );
      return row?.t === null || row?.t === undefined ? undefined : Number(row.t);
    });
  }

  counts(postId: number): Promise<Record<DeliveryStatus, number>> {
    return this.scope.run(() => {
      const counts = Object.fromEntries(DELIVERY_STATUSES.map((status) => [status, 0])) as Record<
        DeliveryStatus,
        number
      >;
      for (const row of this.sql.all(
        'SELECT status, COUNT(*) AS n FROM deliveries WHERE post_id = ? GROUP BY status',
        postId,
      )) {
        counts[String(row.status) as DeliveryStatus] = Number(row.n);
      }
      return counts;
    });
  }
}
