/**
 * The SandboxOutbox port on PostgreSQL: one body per delivery or comment (the UNIQUE key makes it
 * exactly once, even when two instances record at once), every send counted.
 */
import type { SandboxOutbox } from '../../ports.js';
import type { Sql } from './sql.js';

export class PostgresSandboxOutbox implements SandboxOutbox {
  constructor(private readonly sql: Sql) {}

  async record(
    kind: 'delivery' | 'comment',
    deliveryId: number,
    platform: string,
    body: unknown,
    nowMs: number,
  ): Promise<void> {
    await this.sql.change(
      `INSERT INTO sandbox_outbox (kind, delivery_id, platform, body, recorded_at_ms) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (kind, delivery_id) DO UPDATE SET sends = sandbox_outbox.sends + 1`,
      kind,
      deliveryId,
      platform,
      JSON.stringify(body),
      nowMs,
    );
  }
}
