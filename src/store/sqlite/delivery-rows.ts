/** The DeliveryStore and SandboxOutbox ports on SQLite. */
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../domain/delivery.js';
import type { DeliveryRecord, DeliveryStore, NewDelivery, SandboxOutbox } from '../../ports.js';
import type { Row, Sql } from './sql.js';

const COLUMNS = `id, post_id, channel_id, channel_name, channel_type, status, reason, notes, content, external_id,
  attempts, sent_at_ms, comment_status, comment_due_at_ms, comment_sent_at_ms, comment_reason`;

const nullableNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));
const nullableString = (value: unknown) => (value === null || value === undefined ? null : String(value));

function toDelivery(row: Row): DeliveryRecord {
  return {
    id: Number(row.id),
    postId: Number(row.post_id),
    channelId: Number(row.channel_id),
    channelName: String(row.channel_name),
    channelType: String(row.channel_type) as DeliveryRecord['channelType'],
    status: String(row.status) as DeliveryStatus,
    reason: nullableString(row.reason),
    notes: JSON.parse(String(row.notes)) as string[],
    content: row.content === null ? null : (JSON.parse(String(row.content)) as DeliveryRecord['content']),
    externalId: nullableString(row.external_id),
    attempts: Number(row.attempts),
    sentAtMs: nullableNumber(row.sent_at_ms),
    commentStatus: String(row.comment_status) as DeliveryRecord['commentStatus'],
    commentDueAtMs: nullableNumber(row.comment_due_at_ms),
    commentSentAtMs: nullableNumber(row.comment_sent_at_ms),
    commentReason: nullableString(row.comment_reason),
  };
}

export class SqliteDeliveryStore implements DeliveryStore {
  constructor(private readonly sql: Sql) {}

  insertMany(deliveries: readonly NewDelivery[]): void {
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
  }

  ofPost(postId: number): DeliveryRecord[] {
    return this.sql
      .all(`SELECT ${COLUMNS} FROM deliveries WHERE post_id = ? ORDER BY id`, postId)
      .map(toDelivery);
  }

  ofPosts(postIds: readonly number[]): Map<number, DeliveryRecord[]> {
    const byPost = new Map<number, DeliveryRecord[]>(postIds.map((id) => [id, []]));
    if (postIds.length === 0) return byPost;
    const placeholders = postIds.map(() => '?').join(', ');
    const rows = this.sql.db
      .prepare(`SELECT ${COLUMNS} FROM deliveries WHERE post_id IN (${placeholders}) ORDER BY id`)
      .all(...postIds) as Row[];
    for (const row of rows) byPost.get(Number(row.post_id))?.push(toDelivery(row));
    return byPost;
  }

  hasPending(): boolean {
    return (
      this.sql.get(
        `SELECT 1 AS one FROM deliveries INDEXED BY deliveries_pending WHERE status = 'pending' LIMIT 1`,
      ) !== undefined
    );
  }

  claimPending(limit: number, nowMs: number): DeliveryRecord[] {
    return this.sql.transaction(() => {
      const rows = this.sql.all(
        `SELECT ${COLUMNS} FROM deliveries INDEXED BY deliveries_pending WHERE status = 'pending' ORDER BY id LIMIT ?`,
        limit,
      );
      for (const row of rows) {
        this.sql.run(
          `UPDATE deliveries SET status = 'sending', attempts = attempts + 1, claimed_at_ms = ? WHERE id = ?`,
          nowMs,
          row.id as number,
        );
      }
      return rows.map((row) => ({
        ...toDelivery(row),
        status: 'sending' as const,
        attempts: Number(row.attempts) + 1,
      }));
    });
  }

  markSent(
    deliveryId: number,
    externalId: string | null,
    nowMs: number,
    commentDueAtMs: number | null,
  ): void {
    this.sql.run(
      `UPDATE deliveries SET status = 'sent', external_id = ?, sent_at_ms = ?, reason = NULL,
         comment_status = CASE WHEN ? IS NULL THEN 'none' ELSE 'pending' END, comment_due_at_ms = ?
       WHERE id = ? AND status = 'sending'`,
      externalId,
      nowMs,
      commentDueAtMs,
      commentDueAtMs,
      deliveryId,
    );
  }

  markFailed(deliveryId: number, reason: string): void {
    this.sql.run(
      `UPDATE deliveries SET status = 'failed', reason = ? WHERE id = ? AND status = 'sending'`,
      reason,
      deliveryId,
    );
  }

  inDoubt(claimedBeforeMs: number): DeliveryRecord[] {
    return this.sql
      .all(
        `SELECT ${COLUMNS} FROM deliveries INDEXED BY deliveries_sending WHERE status = 'sending' AND claimed_at_ms < ? ORDER BY id`,
        claimedBeforeMs,
      )
      .map(toDelivery);
  }

  retry(deliveryId: number): void {
    this.sql.run(`UPDATE deliveries SET status = 'pending' WHERE id = ? AND status = 'sending'`, deliveryId);
  }

  claimDueComments(limit: number, nowMs: number): DeliveryRecord[] {
    return this.sql.transaction(() => {
      const rows = this.sql.all(
        `SELECT ${COLUMNS} FROM deliveries INDEXED BY deliveries_comments_pending WHERE comment_status = 'pending' AND comment_due_at_ms <= ?
         ORDER BY comment_due_at_ms LIMIT ?`,
        nowMs,
        limit,
      );
      for (const row of rows) {
        this.sql.run(`UPDATE deliveries SET comment_status = 'sending' WHERE id = ?`, row.id as number);
      }
      return rows.map((row) => ({ ...toDelivery(row), commentStatus: 'sending' as const }));
    });
  }

  markComment(deliveryId: number, status: 'sent' | 'failed', nowMs: number, reason: string | null): void {
    this.sql.run(
      `UPDATE deliveries SET comment_status = ?, comment_sent_at_ms = ?, comment_reason = ?
       WHERE id = ? AND comment_status = 'sending'`,
      status,
      status === 'sent' ? nowMs : null,
      reason,
      deliveryId,
    );
  }

  commentsInDoubt(): DeliveryRecord[] {
    return this.sql
      .all(
        `SELECT ${COLUMNS} FROM deliveries INDEXED BY deliveries_comments_sending WHERE comment_status = 'sending' ORDER BY id`,
      )
      .map(toDelivery);
  }

  retryComment(deliveryId: number): void {
    this.sql.run(
      `UPDATE deliveries SET comment_status = 'pending' WHERE id = ? AND comment_status = 'sending'`,
      deliveryId,
    );
  }

  nextCommentDueAtMs(): number | undefined {
    const row = this.sql.get(
      `SELECT MIN(comment_due_at_ms) AS t FROM deliveries INDEXED BY deliveries_comments_pending WHERE comment_status = 'pending'`,
    );
    return row?.t === null || row?.t === undefined ? undefined : Number(row.t);
  }

  counts(postId: number): Record<DeliveryStatus, number> {
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
  }
}

export class SqliteSandboxOutbox implements SandboxOutbox {
  constructor(private readonly sql: Sql) {}

  record(
    kind: 'delivery' | 'comment',
    deliveryId: number,
    platform: string,
    body: unknown,
    nowMs: number,
  ): boolean {
    const changes = this.sql.change(
      `INSERT INTO sandbox_outbox (kind, delivery_id, platform, body, recorded_at_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (kind, delivery_id) DO NOTHING`,
      kind,
      deliveryId,
      platform,
      JSON.stringify(body),
      nowMs,
    );
    return changes === 1;
  }
}
