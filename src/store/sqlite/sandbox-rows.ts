/** The SandboxOutbox port on SQLite. */
import type { SandboxOutbox } from '../../ports.js';
import type { Sql } from './sql.js';
import type { TransactionScope } from './transaction-scope.js';

export class SqliteSandboxOutbox implements SandboxOutbox {
  constructor(
    private readonly sql: Sql,
    private readonly scope: TransactionScope,
  ) {}

  record(
    kind: 'delivery' | 'comment',
    deliveryId: number,
    platform: string,
    body: unknown,
    nowMs: number,
  ): Promise<void> {
    return this.scope.run(() => {
      this.sql.run(
        `INSERT INTO sandbox_outbox (kind, delivery_id, platform, body, recorded_at_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (kind, delivery_id) DO UPDATE SET sends = sends + 1`,
        kind,
        deliveryId,
        platform,
        JSON.stringify(body),
        nowMs,
      );
    });
  }
}
