/** The ConnectionStore port on SQLite: channel connections, their sealed secrets, channel activity. */
import type { Capabilities } from '../../domain/capabilities.js';
import type {
  ChannelActivity,
  ConnectionRecord,
  ConnectionStore,
  ConnectionUpsert,
  PendingSignIn,
} from '../../ports.js';
import type { Row, Sql } from './sql.js';
import type { TransactionScope } from './transaction-scope.js';

const COLUMNS = `channel_id, kind, account, account_id, endpoint, profile_url, settings, capabilities, secret,
  secret_env, connected_at_ms, updated_at_ms`;

const nullableNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));
const nullableString = (value: unknown) => (value === null || value === undefined ? null : String(value));

function toConnection(row: Row): ConnectionRecord {
  return {
    channelId: Number(row.channel_id),
    kind: String(row.kind) as ConnectionRecord['kind'],
    account: String(row.account),
    accountId: String(row.account_id),
    endpoint: String(row.endpoint),
    profileUrl: nullableString(row.profile_url),
    settings: JSON.parse(String(row.settings)) as Record<string, unknown>,
    capabilities: JSON.parse(String(row.capabilities)) as Capabilities,
    sealedSecret:
      row.secret === null || row.secret === undefined ? null : new Uint8Array(row.secret as Uint8Array),
    secretEnv: nullableString(row.secret_env),
    connectedAtMs: Number(row.connected_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
  };
}

export class SqliteConnectionStore implements ConnectionStore {
  constructor(
    private readonly sql: Sql,
    private readonly scope: TransactionScope,
    private readonly id: string,
  ) {}

  find(channelId: number): Promise<ConnectionRecord | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(`SELECT ${COLUMNS} FROM channel_connections WHERE channel_id = ?`, channelId);
      return row && toConnection(row);
    });
  }

  ofChannels(channelIds: readonly number[]): Promise<Map<number, ConnectionRecord>> {
    return this.scope.run(() => {
      const found = new Map<number, ConnectionRecord>();
      if (channelIds.length === 0) return found;
      const rows = this.sql.allOnce(
        `SELECT ${COLUMNS} FROM channel_connections WHERE channel_id IN (${channelIds.map(() => '?').join(', ')})`,
        ...channelIds,
      );
      for (const row of rows) found.set(Number(row.channel_id), toConnection(row));
      return found;
    });
  }

  signedInOfKinds(kinds: readonly string[]): Promise<{ channelId: number; kind: string }[]> {
    return this.scope.run(() => {
      if (kinds.length === 0) return [];
      return this.sql
        .allOnce(
          `SELECT channel_id, kind FROM channel_connections
           WHERE (secret IS NOT NULL OR secret_env IS NOT NULL) AND kind IN (${kinds.map(() => '?').join(', ')}) ORDER BY channel_id`,
          ...kinds,
        )
        .map((row) => ({ channelId: Number(row.channel_id), kind: String(row.kind) }));
    });
  }

  save(channelId: number, connection: ConnectionUpsert, nowMs: number): Promise<void> {
    return this.scope.run(() => {
      this.sql.run(
        `INSERT INTO channel_connections (channel_id, kind, account, account_id, endpoint, profile_url, settings,
         capabilities, secret, secret_env, connected_at_ms, updated_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (channel_id) DO UPDATE SET kind = excluded.kind, account = excluded.account,
         account_id = excluded.account_id, endpoint = excluded.endpoint, profile_url = excluded.profile_url,
         settings = excluded.settings, capabilities = excluded.capabilities, secret = excluded.secret,
         secret_env = excluded.secret_env, connected_at_ms = excluded.connected_at_ms,
         updated_at_ms = excluded.updated_at_ms`,
        channelId,
        connection.kind,
        connection.account,
        connection.accountId,
        connection.endpoint,
        connection.profileUrl,
        JSON.stringify(connection.settings),
        JSON.stringify(connection.capabilities),
        connection.sealedSecret,
        connection.secretEnv,
        nowMs,
        nowMs,
      );
      // A new connection starts with a clean slate.
      this.sql.run(
        'UPDATE channels SET last_error = NULL, last_error_at_ms = NULL, status_reason = NULL WHERE id = ?',
        channelId,
      );
    });
  }

  setSecret(channelId: number, sealedSecret: Uint8Array, nowMs: number): Promise<void> {
    return this.scope.run(() => {
      this.sql.run(
        'UPDATE channel_connections SET secret = ?, updated_at_ms = ? WHERE channel_id = ? AND secret IS NOT NULL',
        sealedSecret,
        nowMs,
        channelId,
      );
    });
  }

  erase(channelId: number, nowMs: number): Promise<boolean> {
    return this.scope.run(
      () =>
        this.sql.change(
          'UPDATE channel_connections SET secret = NULL, secret_env = NULL, updated_at_ms = ? WHERE channel_id = ?',
          nowMs,
          channelId,
        ) === 1,
    );
  }

  activity(channelId: number): Promise<ChannelActivity> {
    return this.scope.run(() => {
      const row = this.sql.get(
        'SELECT status_reason, last_error, last_error_at_ms, last_published_at_ms FROM channels WHERE id = ?',
        channelId,
      );
      return {
        statusReason: nullableString(row?.status_reason),
        lastError: nullableString(row?.last_error),
        lastErrorAtMs: nullableNumber(row?.last_error_at_ms),
        lastPublishedAtMs: nullableNumber(row?.last_published_at_ms),
      };
    });
  }

  recordPublished(channelId: number, nowMs: number): Promise<void> {
    return this.scope.run(() => {
      this.sql.run(
        'UPDATE channels SET last_published_at_ms = MAX(COALESCE(last_published_at_ms, 0), ?) WHERE id = ?',
        nowMs,
        channelId,
      );
    });
  }

  recordError(channelId: number, error: string, nowMs: number): Promise<void> {
    return this.scope.run(() => {
      this.sql.run(
        'UPDATE channels SET last_error = ?, last_error_at_ms = ? WHERE id = ?',
        error,
        nowMs,
        channelId,
      );
    });
  }

  findByAccount(
    brandId: number,
    kind: string,
    endpoint: string,
    accountId: string,
  ): Promise<number | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(
        `SELECT c.id FROM channel_connections cc JOIN channels c ON c.id = cc.channel_id
       WHERE c.brand_id = ? AND cc.kind = ? AND cc.endpoint = ? AND cc.account_id = ?`,
        brandId,
        kind,
        endpoint,
        accountId,
      );
      return row && Number(row.id);
    });
  }

  /** Read when the store was opened: it never changes. */
  async storeId(): Promise<string> {
    return this.id;
  }

  addSignIn(signIn: PendingSignIn, nowMs: number): Promise<void> {
    return this.scope.run(() => {
      this.sql.run('DELETE FROM oauth_sign_ins WHERE expires_at_ms <= ?', nowMs);
      this.sql.run(
        'INSERT INTO oauth_sign_ins (state_hash, brand_id, sealed, expires_at_ms) VALUES (?, ?, ?, ?)',
        signIn.stateHash,
        signIn.brandId,
        signIn.sealed,
        signIn.expiresAtMs,
      );
    });
  }

  takeSignIn(stateHash: string): Promise<PendingSignIn | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(
        'DELETE FROM oauth_sign_ins WHERE state_hash = ? RETURNING brand_id, sealed, expires_at_ms',
        stateHash,
      );
      return row && toSignIn(stateHash, row);
    });
  }
}

function toSignIn(stateHash: string, row: Row): PendingSignIn {
  return {
    stateHash,
    brandId: Number(row.brand_id),
    sealed: new Uint8Array(row.sealed as Uint8Array),
    expiresAtMs: Number(row.expires_at_ms),
  };
}
