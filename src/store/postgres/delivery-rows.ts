/**
 * The DeliveryStore port on PostgreSQL: deliveries and what came of them (their jobs are job-rows.ts).
 * A delivery's row changes in the transaction that ended or rescheduled its job, after that job's change
 * said the claim was still the owner's.
 */
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../domain/delivery.js';
import type { DeliveryRecord, DeliveryStore, NewDelivery, SentDelivery } from '../../ports.js';
import { DELIVERY_SELECT } from '../row-records.js';
import { toDelivery } from './records.js';
import { literal, type Sql, type SqlParam } from './sql.js';

export class PostgresDeliveryStore implements DeliveryStore {
  constructor(private readonly sql: Sql) {}

  async insertMany(deliveries: readonly NewDelivery[], nowMs: number): Promise<void> {
    if (deliveries.length === 0) return;
    const params: SqlParam[] = [nowMs];
    const rows = deliveries.map((d) => {
      const first = params.length + 1;
      params.push(d.postId, d.channelId, d.channelName, d.channelType, d.status, d.reason);
      params.push(JSON.stringify(d.notes), d.content === null ? null : JSON.stringify(d.content));
      params.push(JSON.stringify(d.prepared ?? {}));
      return `(${Array.from({ length: 9 }, (_, i) => `$${first + i}`).join(', ')})`;
    });
    // The deliveries and the send jobs of the pending ones, in one statement.
    await this.sql.change(
      `WITH given (post_id, channel_id, channel_name, channel_type, status, reason, notes, content, prepared)
         AS (VALUES ${rows.join(', ')}),
       added AS (
         INSERT INTO deliveries (post_id, channel_id, channel_name, channel_type, status, reason, notes, content)
         SELECT post_id::bigint, channel_id::bigint, channel_name, channel_type, status, reason, notes::jsonb,
           content::json FROM given
         RETURNING id, post_id, channel_id, status)
       INSERT INTO jobs (kind, delivery_id, channel_id, status, step, due_at_ms, state)
       SELECT 'send', added.id, added.channel_id, 'waiting', 'commit', $1, given.prepared::jsonb
       FROM added JOIN given ON given.post_id::bigint = added.post_id AND given.channel_id::bigint = added.channel_id
       WHERE added.status = 'pending'`,
      ...params,
    );
  }

  async ofPost(postId: number): Promise<DeliveryRecord[]> {
    const rows = await this.sql.all(`${DELIVERY_SELECT} WHERE d.post_id = $1 ORDER BY d.id`, postId);
    return rows.map(toDelivery);
  }

  async ofPosts(postIds: readonly number[]): Promise<Map<number, DeliveryRecord[]>> {
    const byPost = new Map<number, DeliveryRecord[]>(postIds.map((id) => [id, []]));
    if (postIds.length === 0) return byPost;
    const rows = await this.sql.all(
      `${DELIVERY_SELECT} WHERE d.post_id = ANY($1::bigint[]) ORDER BY d.id`,
      postIds,
    );
    for (const row of rows) byPost.get(Number(row.post_id))?.push(toDelivery(row));
    return byPost;
  }

  async get(deliveryId: number): Promise<DeliveryRecord | undefined> {
    const row = await this.sql.get(`${DELIVERY_SELECT} WHERE d.id = $1`, deliveryId);
    return row && toDelivery(row);
  }

  async markSent(deliveryId: number, sent: SentDelivery, nowMs: number): Promise<void> {
    await this.sql.change(
      `UPDATE deliveries SET status = 'sent', external_id = $1, url = $2, sent_at_ms = $3, reason = NULL
       WHERE id = $4`,
      sent.externalId,
      sent.url,
      nowMs,
      deliveryId,
    );
  }

  async markFailed(deliveryId: number, reason: string): Promise<void> {
    await this.sql.change(
      `UPDATE deliveries SET status = 'failed', reason = $1 WHERE id = $2`,
      reason,
      deliveryId,
    );
  }

  async markWaiting(deliveryId: number, status: 'pending' | 'sending', reason: string | null): Promise<void> {
    await this.sql.change(
      'UPDATE deliveries SET status = $1, reason = $2 WHERE id = $3',
      status,
      reason,
      deliveryId,
    );
  }

  async addNote(deliveryId: number, note: string): Promise<void> {
    await this.sql.change(
      'UPDATE deliveries SET notes = notes || jsonb_build_array($1::text) WHERE id = $2',
      note,
      deliveryId,
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
