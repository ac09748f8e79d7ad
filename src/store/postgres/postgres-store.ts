/**
 * The Store port on PostgreSQL: a pool of connections outside transactions, one connection per
 * transaction (`tx`, bound to it), nested transactions as savepoints. Unlike the SQLite store it keeps
 * no answers between calls: other instances write to the same database, and this one cannot see when.
 */
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import type {
  BrandRecord,
  BrandUpsert,
  ChannelRecord,
  ChannelUpsert,
  CollectionRecord,
  CollectionUpsert,
  MediaRecord,
  PageWindow,
  Store,
  TransactionTarget,
  UserRecord,
  UserUpsert,
} from '../../ports.js';
import { PostgresApiKeyStore } from './api-key-rows.js';
import { type ConnectionMemo, PostgresConnectionStore } from './connection-rows.js';
import { PostgresDeliveryStore } from './delivery-rows.js';
import { PostgresJobStore } from './job-rows.js';
import { openPool, type PoolOptions } from './open-database.js';
import { PostgresPostStore, QueueRunMemo } from './post-rows.js';
import {
  BRAND_COLUMNS,
  CHANNEL_COLUMNS,
  COLLECTION_COLUMNS,
  MEDIA_COLUMNS,
  mediaValues,
  nullableString,
  toBrand,
  toChannel,
  toMedia,
  toUser,
  USER_COLUMNS,
} from './records.js';
import { PostgresSandboxOutbox } from './sandbox-rows.js';
import { PLAN_CHANNEL, PostgresSignals } from './signals.js';
import { PoolSql, type Row, type Sql } from './sql.js';
import { upsertBrand, upsertChannel, upsertCollection, upsertUser } from './workspace-upserts.js';

/** What the store and the stores bound to its transactions share. */
interface Shared {
  url: string;
  pool: Pool;
  /** This instance's id on the signal channels: its own notifications are not heard back. */
  instanceId: string;
  memo: ConnectionMemo;
  queueRuns: QueueRunMemo;
  closed: boolean;
}

export class PostgresStore implements Store {
  readonly posts: PostgresPostStore;
  readonly deliveries: PostgresDeliveryStore;
  readonly jobs: PostgresJobStore;
  readonly sandbox: PostgresSandboxOutbox;
  readonly connections: PostgresConnectionStore;
  readonly apiKeys: PostgresApiKeyStore;

  private constructor(
    private readonly sql: Sql,
    private readonly shared: Shared,
  ) {
    this.posts = new PostgresPostStore(sql, shared.queueRuns);
    this.deliveries = new PostgresDeliveryStore(sql);
    this.jobs = new PostgresJobStore(sql);
    this.sandbox = new PostgresSandboxOutbox(sql);
    this.connections = new PostgresConnectionStore(sql, shared.memo);
    this.apiKeys = new PostgresApiKeyStore(sql);
  }

  /** Connects to the database at `url` (a `postgres://` URL) and brings its schema up to date. */
  static async open(url: string, options: PoolOptions = {}): Promise<PostgresStore> {
    const { pool, faults } = await openPool(url, options);
    return new PostgresStore(new PoolSql(pool, faults), {
      url,
      pool,
      memo: {},
      queueRuns: new QueueRunMemo(),
      instanceId: randomBytes(8).toString('hex'),
      closed: false,
    });
  }

  async transaction<T>(work: (tx: Store) => Promise<T>, target?: TransactionTarget): Promise<T> {
    if (this.sql.inTransaction) {
      // A savepoint: if it is undone, so may be posts that a queue run walked in it counted.
      try {
        return await this.sql.transaction(() => work(this), target);
      } catch (error) {
        this.posts.forgetPending();
        throw error;
      }
    }
    // A queue walk's first read goes with BEGIN (post-rows.ts `queueReadAhead`): one round trip fewer.
    const readAhead =
      target?.walksQueue && target.postId === undefined
        ? this.posts.queueReadAhead(target.brandId)
        : undefined;
    return this.outermost((bound) => this.sql.transaction(bound, target, readAhead), work);
  }

  async tryTransaction(work: (tx: Store) => Promise<void>, target: TransactionTarget): Promise<boolean> {
    // Inside a transaction, a savepoint under the outer one's locks: nothing to wait for.
    if (this.sql.inTransaction) return this.transaction(work, target).then(() => true);
    return this.outermost((bound) => this.sql.tryTransaction(bound, target), work);
  }

  /**
   * A transaction on a connection of the pool (`begin` runs it), its work handed a store bound to it;
   * the queue runs it walked are remembered once it has committed.
   */
  private async outermost<T, R>(
    begin: (bound: (sql: Sql) => Promise<T>) => Promise<R>,
    work: (tx: Store) => Promise<T>,
  ): Promise<R> {
    let tx: PostgresStore | undefined;
    const result = await begin((sql) => {
      tx = new PostgresStore(sql, this.shared);
      return work(tx);
    });
    tx?.posts.committed();
    return result;
  }

  /**
   * NOTIFY is transactional: sent in COMMIT's round trip (no wait of its own), delivered only if the
   * transaction commits, and delivered even if this process dies before it hears COMMIT's answer.
   */
  async announcePlanChange(): Promise<void> {
    // The id is hex (randomBytes) and the channel a constant: nothing to quote.
    await this.sql.atCommit(`NOTIFY ${PLAN_CHANNEL}, '${this.shared.instanceId}'`);
  }

  /** The signals between the instances on this database: LISTEN/NOTIFY (signals.ts). */
  signals(log: (message: string) => void): PostgresSignals {
    return new PostgresSignals({
      url: this.shared.url,
      pool: this.shared.pool,
      instanceId: this.shared.instanceId,
      log,
    });
  }

  /** Ends the pool once the connections lent out come back; a second call does nothing. */
  async close(): Promise<void> {
    if (this.sql.inTransaction) throw new Error('Close the store, not a store bound to a transaction.');
    if (this.shared.closed) return;
    this.shared.closed = true;
    await this.shared.pool.end();
  }

  async ping(): Promise<void> {
    await this.sql.get('SELECT 1');
  }

  async isEmpty(): Promise<boolean> {
    const row = await this.sql.get(
      'SELECT NOT EXISTS (SELECT 1 FROM users) AND NOT EXISTS (SELECT 1 FROM brands) AS empty',
    );
    return row?.empty === true;
  }

  countUsers(): Promise<number> {
    return this.sql.count('SELECT COUNT(*) AS n FROM users');
  }

  async onlyUser(): Promise<UserRecord | undefined> {
    const rows = await this.sql.all(`SELECT ${USER_COLUMNS} FROM users LIMIT 2`);
    return rows.length === 1 ? toUser(rows[0]!) : undefined;
  }

  async listUsers(): Promise<UserRecord[]> {
    return (await this.sql.all(`SELECT ${USER_COLUMNS} FROM users ORDER BY joined_at_ms, id`)).map(toUser);
  }

  async getUser(userId: string): Promise<UserRecord | undefined> {
    const row = await this.sql.get(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, userId);
    return row && toUser(row);
  }

  async usersWithoutKey(): Promise<UserRecord[]> {
    const rows = await this.sql.all(
      `SELECT ${USER_COLUMNS} FROM users u
       WHERE NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.user_id = u.id) ORDER BY joined_at_ms, id`,
    );
    return rows.map(toUser);
  }

  countBrandsOfUser(userId: string): Promise<number> {
    return this.sql.count('SELECT COUNT(*) AS n FROM user_brands WHERE user_id = $1', userId);
  }

  async listBrandsOfUser(userId: string, window: PageWindow): Promise<BrandRecord[]> {
    const rows = await this.sql.all(
      `SELECT ${BRAND_COLUMNS} FROM user_brands ub JOIN brands b ON b.id = ub.brand_id
       WHERE ub.user_id = $1 ORDER BY ub.brand_id LIMIT $2 OFFSET $3`,
      userId,
      window.limit,
      window.offset,
    );
    return rows.map(toBrand);
  }

  async findBrandOfUser(userId: string, brandId: number): Promise<BrandRecord | undefined> {
    const row = await this.sql.get(
      `SELECT ${BRAND_COLUMNS} FROM brands b JOIN user_brands ub ON ub.brand_id = b.id
       WHERE ub.user_id = $1 AND b.id = $2`,
      userId,
      brandId,
    );
    return row && toBrand(row);
  }

  async findBrand(brandId: number): Promise<BrandRecord | undefined> {
    const row = await this.sql.get(`SELECT ${BRAND_COLUMNS} FROM brands b WHERE b.id = $1`, brandId);
    return row && toBrand(row);
  }

  countChannels(brandId: number): Promise<number> {
    return this.sql.count('SELECT COUNT(*) AS n FROM channels WHERE brand_id = $1', brandId);
  }

  async listChannels(brandId: number, window: PageWindow): Promise<ChannelRecord[]> {
    const rows = await this.sql.all(
      `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE brand_id = $1 ORDER BY id LIMIT $2 OFFSET $3`,
      brandId,
      window.limit,
      window.offset,
    );
    return rows.map(toChannel);
  }

  async findChannel(brandId: number, channelId: number): Promise<ChannelRecord | undefined> {
    const row = await this.sql.get(
      `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE brand_id = $1 AND id = $2`,
      brandId,
      channelId,
    );
    return row && toChannel(row);
  }

  async setChannelStatus(
    channelId: number,
    status: 'ACTIVE' | 'INACTIVE',
    reason: string | null,
    nowMs: number,
  ): Promise<void> {
    await this.sql.change(
      'UPDATE channels SET status = $1, status_reason = $2, updated_at_ms = $3 WHERE id = $4',
      status,
      reason,
      nowMs,
      channelId,
    );
  }

  countCollections(brandId: number): Promise<number> {
    return this.sql.count('SELECT COUNT(*) AS n FROM collections WHERE brand_id = $1', brandId);
  }

  async listCollections(brandId: number, window: PageWindow): Promise<CollectionRecord[]> {
    const rows = await this.sql.all(
      `SELECT ${COLLECTION_COLUMNS} FROM collections WHERE brand_id = $1 ORDER BY id LIMIT $2 OFFSET $3`,
      brandId,
      window.limit,
      window.offset,
    );
    return this.withChannels(rows);
  }

  /** The collection and its channels in one statement (one round trip: create_post reads it every time). */
  async findCollection(brandId: number, collectionId: number): Promise<CollectionRecord | undefined> {
    const rows = await this.sql.all(
      `SELECT col.id, col.brand_id, col.title, col.description, col.status, col.created_at_ms,
         col.updated_at_ms, c.id AS channel_id, c.name AS channel_name, c.type AS channel_type,
         c.status AS channel_status, c.created_at_ms AS channel_created_at_ms,
         c.updated_at_ms AS channel_updated_at_ms
       FROM collections col
       LEFT JOIN collection_channels cc ON cc.collection_id = col.id
       LEFT JOIN channels c ON c.id = cc.channel_id
       WHERE col.brand_id = $1 AND col.id = $2
       ORDER BY cc.position`,
      brandId,
      collectionId,
    );
    const [first] = rows;
    if (!first) return undefined;
    return {
      ...toCollection(first),
      channels: rows.flatMap((row) =>
        row.channel_id === null
          ? []
          : [
              toChannel({
                id: row.channel_id,
                brand_id: row.brand_id,
                name: row.channel_name,
                type: row.channel_type,
                status: row.channel_status,
                created_at_ms: row.channel_created_at_ms,
                updated_at_ms: row.channel_updated_at_ms,
              }),
            ],
      ),
    };
  }

  /** Collections with their channels in collection order, read in one statement for the whole page. */
  private async withChannels(rows: Row[]): Promise<CollectionRecord[]> {
    if (rows.length === 0) return [];
    const channelRows = await this.sql.all(
      `SELECT cc.collection_id, c.id, c.brand_id, c.name, c.type, c.status, c.created_at_ms, c.updated_at_ms
       FROM collection_channels cc JOIN channels c ON c.id = cc.channel_id
       WHERE cc.collection_id = ANY($1::bigint[]) ORDER BY cc.collection_id, cc.position`,
      rows.map((row) => Number(row.id)),
    );
    const channels = new Map<number, ChannelRecord[]>(rows.map((row) => [Number(row.id), []]));
    for (const row of channelRows) channels.get(Number(row.collection_id))?.push(toChannel(row));
    return rows.map((row) => ({ ...toCollection(row), channels: channels.get(Number(row.id))! }));
  }

  async findMediaByHash(brandId: number, sha256: string): Promise<MediaRecord | undefined> {
    const row = await this.sql.get(
      `SELECT ${MEDIA_COLUMNS} FROM media WHERE brand_id = $1 AND sha256 = $2`,
      brandId,
      sha256,
    );
    return row && toMedia(row);
  }

  async findMedia(brandId: number, mediaIds: readonly string[]): Promise<MediaRecord[]> {
    if (mediaIds.length === 0) return [];
    const rows = await this.sql.all(
      `SELECT ${MEDIA_COLUMNS} FROM media WHERE brand_id = $1 AND id = ANY($2::text[]) ORDER BY id`,
      brandId,
      mediaIds,
    );
    return rows.map(toMedia);
  }

  async insertMedia(media: MediaRecord): Promise<void> {
    await this.sql.change(
      `INSERT INTO media (${MEDIA_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      ...mediaValues(media),
    );
  }

  async findBrandIdByTitle(title: string): Promise<number | undefined> {
    const row = await this.sql.get('SELECT id FROM brands WHERE title = $1', title);
    return row && Number(row.id);
  }

  upsertBrand(brand: BrandUpsert, nowMs: number): Promise<number> {
    return this.sql.atomic((sql) => upsertBrand(sql, brand, nowMs));
  }

  upsertChannel(brandId: number, channel: ChannelUpsert, nowMs: number): Promise<number> {
    return this.sql.atomic((sql) => upsertChannel(sql, brandId, channel, nowMs));
  }

  upsertCollection(brandId: number, collection: CollectionUpsert, nowMs: number): Promise<number> {
    return this.sql.atomic((sql) => upsertCollection(sql, brandId, collection, nowMs));
  }

  upsertUser(user: UserUpsert, nowMs: number): Promise<string> {
    return this.sql.atomic((sql) => upsertUser(sql, user, nowMs));
  }
}

/** Opens the PostgreSQL store at `url`, its schema brought up to date. */
export function openPostgresStore(url: string, options: PoolOptions = {}): Promise<PostgresStore> {
  return PostgresStore.open(url, options);
}

/** A row of `collections` (its channels apart). */
function toCollection(row: Row): Omit<CollectionRecord, 'channels'> {
  return {
    id: Number(row.id),
    brandId: Number(row.brand_id),
    title: String(row.title),
    description: nullableString(row.description),
    status: String(row.status),
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
  };
}
