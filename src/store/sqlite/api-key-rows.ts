/**
 * The ApiKeyStore port on SQLite: one row per key, its hash UNIQUE; revoked rows stay. Nothing here is
 * cached (the store's workspace answers do not depend on keys).
 */
import type { ApiKeyRecord, ApiKeyStore, NewApiKey, UserRecord } from '../../ports.js';
import { toUser } from './records.js';
import type { Row, Sql } from './sql.js';
import type { TransactionScope } from './transaction-scope.js';

const COLUMNS = 'k.id, k.user_id, k.prefix, k.origin, k.created_at_ms, k.last_used_at_ms, k.revoked_at_ms';

const nullableNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function toApiKey(row: Row): ApiKeyRecord {
  return {
    id: Number(row.id),
    userId: String(row.user_id),
    prefix: row.prefix === null || row.prefix === undefined ? null : String(row.prefix),
    origin: String(row.origin) as ApiKeyRecord['origin'],
    createdAtMs: Number(row.created_at_ms),
    lastUsedAtMs: nullableNumber(row.last_used_at_ms),
    revokedAtMs: nullableNumber(row.revoked_at_ms),
  };
}

export class SqliteApiKeyStore implements ApiKeyStore {
  constructor(
    private readonly sql: Sql,
    private readonly scope: TransactionScope,
  ) {}

  findByHash(keyHash: string): Promise<{ key: ApiKeyRecord; keyHash: string; user: UserRecord } | undefined> {
    return this.scope.run(() => {
      // Not cached: a key revoked by another process (`keys revoke`) must be refused at once.
      const row = this.sql.get(
        `SELECT ${COLUMNS}, k.key_hash, u.id AS uid, u.name, u.timezone, u.joined_at_ms
       FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ?`,
        keyHash,
      );
      if (!row) return undefined;
      return {
        key: toApiKey(row),
        keyHash: String(row.key_hash),
        user: toUser({ ...row, id: row.uid as string }),
      };
    });
  }

  ofUser(userId: string): Promise<ApiKeyRecord[]> {
    return this.scope.run(() =>
      this.sql
        .all(`SELECT ${COLUMNS} FROM api_keys k WHERE k.user_id = ? ORDER BY k.id`, userId)
        .map(toApiKey),
    );
  }

  add(userId: string, key: NewApiKey, nowMs: number): Promise<ApiKeyRecord> {
    return this.scope.run(() => {
      const id = this.sql.run(
        'INSERT INTO api_keys (user_id, key_hash, prefix, origin, created_at_ms) VALUES (?, ?, ?, ?, ?)',
        userId,
        key.keyHash,
        key.prefix,
        key.origin,
        nowMs,
      );
      return toApiKey(this.sql.get(`SELECT ${COLUMNS} FROM api_keys k WHERE k.id = ?`, id)!);
    });
  }

  addFirst(userId: string, key: NewApiKey, nowMs: number): Promise<boolean> {
    return this.scope.run(() => {
      const added = this.sql.change(
        `INSERT INTO api_keys (user_id, key_hash, prefix, origin, created_at_ms)
       SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM api_keys WHERE user_id = ?)`,
        userId,
        key.keyHash,
        key.prefix,
        key.origin,
        nowMs,
        userId,
      );
      return added === 1;
    });
  }

  recordUse(keyId: number, nowMs: number): Promise<void> {
    return this.scope.run(() => {
      this.sql.run('UPDATE api_keys SET last_used_at_ms = ? WHERE id = ?', nowMs, keyId);
    });
  }

  revoke(keyId: number, nowMs: number): Promise<boolean> {
    return this.scope.run(() => {
      const revoked = this.sql.change(
        'UPDATE api_keys SET revoked_at_ms = ? WHERE id = ? AND revoked_at_ms IS NULL',
        nowMs,
        keyId,
      );
      return revoked === 1;
    });
  }
}
