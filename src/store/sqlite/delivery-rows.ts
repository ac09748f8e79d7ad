/** The DeliveryStore port on SQLite: deliveries and what came of them (their jobs are job-rows.ts). */
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../domain/delivery.js';
import type { DeliveryRecord, DeliveryStore, NewDelivery, SentDelivery } from '../../ports.js';
import { DELIVERY_SELECT } from '../row-records.js';
import { toDelivery } from './records.js';
import type { Sql } from './sql.js';
import type { TransactionScope } from './transaction-scope.js';

export class SqliteDeliveryStore implements DeliveryStore {
  constructor(
    private readonly sql: Sql,
    private readonly scope: TransactionScope,
  ) {}

  insertMany(deliveries: readonly NewDelivery[], nowMs: number): Promise<void> {
    return this.scope.run(() => {
      for (const d of deliveries) {
        const id = this.sql.run(
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
        if (d.status !== 'pending') continue;
        this.sql.run(
          `INSERT INTO jobs (kind, delivery_id, channel_id, status, step, due_at_ms, state)
           VALUES ('send', ?, ?, 'waiting', 'commit', ?, ?)`,
          id,
          d.channelId,
          nowMs,
          JSON.stringify(d.prepared ?? {}),
        );
      }
    });
  }

  ofPost(postId: number): Promise<DeliveryRecord[]> {
    return this.scope.run(() =>
      this.sql.all(`${DELIVERY_SELECT} WHERE d.post_id = ? ORDER BY d.id`, postId).map(toDelivery),
    );
  }

  ofPosts(postIds: readonly number[]): Promise<Map<number, DeliveryRecord[]>> {
    return this.scope.run(() => {
      const byPost = new Map<number, DeliveryRecord[]>(postIds.map((id) => [id, []]));
      if (postIds.length === 0) return byPost;
      const placeholders = postIds.map(() => '?').join(', ');
      const rows = this.sql.allOnce(
        `${DELIVERY_SELECT} WHERE d.post_id IN (${placeholders}) ORDER BY d.id`,
        ...postIds,
      );
      for (const row of rows) byPost.get(Number(row.post_id))?.push(toDelivery(row));
      return byPost;
    });
  }

  get(deliveryId: number): Promise<DeliveryRecord | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(`${DELIVERY_SELECT} WHERE d.id = ?`, deliveryId);
      return row && toDelivery(row);
    });
  }

  markSent(deliveryId: number, sent: SentDelivery, nowMs: number): Promise<void> {
    return this.scope.run(() => {
      this.sql.run(
        `UPDATE deliveries SET status = 'sent', external_id = ?, url = ?, sent_at_ms = ?, reason = NULL WHERE id = ?`,
        sent.externalId,
        sent.url,
        nowMs,
        deliveryId,
      );
    });
  }

  markFailed(deliveryId: number, reason: string): Promise<void> {
    return this.scope.run(() => {
      this.sql.run(`UPDATE deliveries SET status = 'failed', reason = ? WHERE id = ?`, reason, deliveryId);
    });
  }

  markWaiting(deliveryId: number, status: 'pending' | 'sending', reason: string | null): Promise<void> {
    return this.scope.run(() => {
      this.sql.run(`UPDATE deliveries SET status = ?, reason = ? WHERE id = ?`, status, reason, deliveryId);
    });
  }

  addNote(deliveryId: number, note: string): Promise<void> {
    return this.scope.run(() => {
      this.sql.run(
        `UPDATE deliveries SET notes = json_insert(notes, '$[#]', ?) WHERE id = ?`,
        note,
        deliveryId,
      );
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
