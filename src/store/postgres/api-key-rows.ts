/**
 * The ApiKeyStore port on PostgreSQL: one row per key, its hash UNIQUE; revoked rows stay. Nothing is
 * cached: a key revoked by another process (`keys revoke`) must be refused at once.
 */
import type { ApiKeyRecord, ApiKeyStore, NewApiKey, UserRecord } from '../../ports.js';
import { nullableNumber, nullableString, toUser } from './records.js';
import type { Row, Sql } from './sql.js';

const COLUMNS = 'k.id, k.user_id, k.prefix, k.origin, k.created_at_ms, k.last_used_at_ms, k.revoked_at_ms';

function toApiKey(row: Row): ApiKeyRecord {
  return {
    id: Number(row.id),
    userId: String(row.user_id),
    prefix: nullableString(row.prefix),
    origin: String(row.origin) as ApiKeyRecord['origin'],
    createdAtMs: Number(row.created_at_ms),
    lastUsedAtMs: nullableNumber(row.last_used_at_ms),
    revokedAtMs: nullableNumber(row.revoked_at_ms),
  };
}

export class PostgresApiKeyStore implements ApiKeyStore {
  constructor(private readonly sql: Sql) {}

  async findByHash(
    keyHash: string,
  ): Promise<{ key: ApiKeyRecord; keyHash: string; user: UserRecord } | undefined> {
    const row = await this.sql.get(
      `SELECT ${COLUMNS}, k.key_hash, u.id AS uid, u.name, u.timezone, u.joined_at_ms
       FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1`,
      keyHash,
    );
    if (!row) return undefined;
    return {
      key: toApiKey(row),
      keyHash: String(row.key_hash),
      user: toUser({ ...row, id: row.uid }),
    };
  }

  async ofUser(userId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.sql.all(
      `SELECT ${COLUMNS} FROM api_keys k WHERE k.user_id = $1 ORDER BY k.id`,
      userId,
    );
    return rows.map(toApiKey);
  }

  async add(userId: string, key: NewApiKey, nowMs: number): Promise<ApiKeyRecord> {
    const row = await this.sql.get(
      `INSERT INTO api_keys AS k (user_id, key_hash, prefix, origin, created_at_ms) VALUES ($1, $2, $3, $4, $5)
       RETURNING ${COLUMNS}`,
      userId,
      key.keyHash,
      key.prefix,
      key.origin,
      nowMs,
    );
    return toApiKey(row!);
  }

  /**
   * In a transaction of its own when none is under way: the check reads other rows, and two instances
   * adding a user's first key at once must not both find none (store transactions run one at a time).
   */
  addFirst(userId: string, key: NewApiKey, nowMs: number): Promise<boolean> {
    return this.sql.atomic(async (sql) => {
      const added = await sql.change(
        `INSERT INTO api_keys (user_id, key_hash, prefix, origin, created_at_ms)
         SELECT $1::text, $2::text, $3::text, $4::text, $5::bigint WHERE NOT EXISTS (SELECT 1 FROM api_keys WHERE user_id = $1)`,
        userId,
        key.keyHash,
        key.prefix,
        key.origin,
        nowMs,
      );
      return added === 1;
    });
  }

  async recordUse(keyId: number, nowMs: number): Promise<void> {
    await this.sql.change('UPDATE api_keys SET last_used_at_ms = $1 WHERE id = $2', nowMs, keyId);
  }

  async revoke(keyId: number, nowMs: number): Promise<boolean> {
    const revoked = await this.sql.change(
      'UPDATE api_keys SET revoked_at_ms = $1 WHERE id = $2 AND revoked_at_ms IS NULL',
      nowMs,
      keyId,
    );
    return revoked === 1;
  }
}
