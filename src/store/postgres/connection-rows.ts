/** The ConnectionStore port on PostgreSQL: channel connections, their sealed secrets, channel activity. */
import type { Capabilities } from '../../domain/capabilities.js';
import type {
  ChannelActivity,
  ConnectionRecord,
  ConnectionStore,
  ConnectionUpsert,
  PendingSignIn,
} from '../../ports.js';
import { nullableNumber, nullableString } from './records.js';
import { literal, type Row, type Sql } from './sql.js';

const COLUMNS = `channel_id, kind, account, account_id, endpoint, profile_url, settings, capabilities, secret,
  secret_env, connected_at_ms, updated_at_ms`;

function toConnection(row: Row): ConnectionRecord {
  return {
    channelId: Number(row.channel_id),
    kind: String(row.kind) as ConnectionRecord['kind'],
    account: String(row.account),
    accountId: String(row.account_id),
    endpoint: String(row.endpoint),
    profileUrl: nullableString(row.profile_url),
    settings: row.settings as Record<string, unknown>,
    capabilities: row.capabilities as Capabilities,
    // bytea arrives as a Buffer: the record holds plain bytes, as SQLite's does.
    sealedSecret:
      row.secret === null || row.secret === undefined ? null : new Uint8Array(row.secret as Uint8Array),
    secretEnv: nullableString(row.secret_env),
    connectedAtMs: Number(row.connected_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
  };
}

/** What every instance of one store reads once: its id never changes. */
export interface ConnectionMemo {
  /** One read for all callers, those that ask while it is under way included (a burst's sends). */
  storeId?: Promise<string>;
}

export class PostgresConnectionStore implements ConnectionStore {
  constructor(
    private readonly sql: Sql,
    private readonly memo: ConnectionMemo,
  ) {}

  async find(channelId: number): Promise<ConnectionRecord | undefined> {
    const row = await this.sql.get(
      `SELECT ${COLUMNS} FROM channel_connections WHERE channel_id = $1`,
      channelId,
    );
    return row && toConnection(row);
  }

  async ofChannels(channelIds: readonly number[]): Promise<Map<number, ConnectionRecord>> {
    const found = new Map<number, ConnectionRecord>();
    if (channelIds.length === 0) return found;
    const rows = await this.sql.all(
      `SELECT ${COLUMNS} FROM channel_connections WHERE channel_id = ANY($1::bigint[])`,
      channelIds,
    );
    for (const row of rows) found.set(Number(row.channel_id), toConnection(row));
    return found;
  }

  async signedInOfKinds(kinds: readonly string[]): Promise<{ channelId: number; kind: string }[]> {
    if (kinds.length === 0) return [];
    const rows = await this.sql.all(
      `SELECT channel_id, kind FROM channel_connections
       WHERE (secret IS NOT NULL OR secret_env IS NOT NULL) AND kind = ANY($1::text[]) ORDER BY channel_id`,
      kinds,
    );
    return rows.map((row) => ({ channelId: Number(row.channel_id), kind: String(row.kind) }));
  }

  save(channelId: number, connection: ConnectionUpsert, nowMs: number): Promise<void> {
    return this.sql.atomic(async (sql) => {
      await sql.change(
        `INSERT INTO channel_connections (channel_id, kind, account, account_id, endpoint, profile_url, settings,
           capabilities, secret, secret_env, connected_at_ms, updated_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
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
      );
      // A new connection starts with a clean slate.
      await sql.change(
        'UPDATE channels SET last_error = NULL, last_error_at_ms = NULL, status_reason = NULL WHERE id = $1',
        channelId,
      );
    });
  }

  async setSecret(channelId: number, sealedSecret: Uint8Array, nowMs: number): Promise<void> {
    await this.sql.change(
      'UPDATE channel_connections SET secret = $1, updated_at_ms = $2 WHERE channel_id = $3 AND secret IS NOT NULL',
      sealedSecret,
      nowMs,
      channelId,
    );
  }

  async erase(channelId: number, nowMs: number): Promise<boolean> {
    const changed = await this.sql.change(
      'UPDATE channel_connections SET secret = NULL, secret_env = NULL, updated_at_ms = $1 WHERE channel_id = $2',
      nowMs,
      channelId,
    );
    return changed === 1;
  }

  async activity(channelId: number): Promise<ChannelActivity> {
    const row = await this.sql.get(
      'SELECT status_reason, last_error, last_error_at_ms, last_published_at_ms FROM channels WHERE id = $1',
      channelId,
    );
    return {
      statusReason: nullableString(row?.status_reason),
      lastError: nullableString(row?.last_error),
      lastErrorAtMs: nullableNumber(row?.last_error_at_ms),
      lastPublishedAtMs: nullableNumber(row?.last_published_at_ms),
    };
  }

  /**
   * Every send to the channel changes its row: in a transaction, at its commit, so that sends recorded
   * at once wait for each other's commit only, not for everything each does after this.
   */
  async recordPublished(channelId: number, nowMs: number): Promise<void> {
    await this.sql.atCommit(
      `UPDATE channels SET last_published_at_ms = GREATEST(COALESCE(last_published_at_ms, 0), ${literal(nowMs)})
       WHERE id = ${literal(channelId)}`,
    );
  }

  async recordError(channelId: number, error: string, nowMs: number): Promise<void> {
    await this.sql.change(
      'UPDATE channels SET last_error = $1, last_error_at_ms = $2 WHERE id = $3',
      error,
      nowMs,
      channelId,
    );
  }

  async findByAccount(
    brandId: number,
    kind: string,
    endpoint: string,
    accountId: string,
  ): Promise<number | undefined> {
    const row = await this.sql.get(
      `SELECT c.id FROM channel_connections cc JOIN channels c ON c.id = cc.channel_id
       WHERE c.brand_id = $1 AND cc.kind = $2 AND cc.endpoint = $3 AND cc.account_id = $4`,
      brandId,
      kind,
      endpoint,
      accountId,
    );
    return row && Number(row.id);
  }

  storeId(): Promise<string> {
    if (!this.memo.storeId) {
      const read = this.sql
        .get(`SELECT value FROM store_meta WHERE key = 'store_id'`)
        .then((row) => String(row?.value));
      // A failed read is tried again by the next caller.
      read.catch(() => {
        if (this.memo.storeId === read) this.memo.storeId = undefined;
      });
      this.memo.storeId = read;
    }
    return this.memo.storeId;
  }

  async addSignIn(signIn: PendingSignIn, nowMs: number): Promise<void> {
    await this.sql.change('DELETE FROM oauth_sign_ins WHERE expires_at_ms <= $1', nowMs);
    await this.sql.change(
      'INSERT INTO oauth_sign_ins (state_hash, brand_id, sealed, expires_at_ms) VALUES ($1, $2, $3, $4)',
      signIn.stateHash,
      signIn.brandId,
      signIn.sealed,
      signIn.expiresAtMs,
    );
  }

  async takeSignIn(stateHash: string): Promise<PendingSignIn | undefined> {
    const row = await this.sql.get(
      'DELETE FROM oauth_sign_ins WHERE state_hash = $1 RETURNING brand_id, sealed, expires_at_ms',
      stateHash,
    );
    if (!row) return undefined;
    return {
      stateHash,
      brandId: Number(row.brand_id),
      sealed: new Uint8Array(row.sealed as Uint8Array),
      expiresAtMs: Number(row.expires_at_ms),
    };
  }
}
