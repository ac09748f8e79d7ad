/**
 * The Store port on SQLite: WAL, foreign keys, prepared statements cached by SQL text, one connection
 * per process shared by its async flows (see `TransactionScope`).
 */
import type {
  BrandRecord,
  BrandUpsert,
  ChannelRecord,
  ChannelUpsert,
  CollectionRecord,
  CollectionUpsert,
  HeldQueueRun,
  MediaRecord,
  PageWindow,
  Store,
  TransactionTarget,
  UserRecord,
  UserUpsert,
} from '../../ports.js';
import { SqliteApiKeyStore } from './api-key-rows.js';
import { SqliteConnectionStore } from './connection-rows.js';
import { SqliteDeliveryStore } from './delivery-rows.js';
import type { SqlDatabase } from './driver.js';
import { SqliteJobStore } from './job-rows.js';
import { openStoreFile } from './open-store-file.js';
import { SqlitePostStore } from './post-rows.js';
import {
  BRAND_COLUMNS,
  CHANNEL_COLUMNS,
  COLLECTION_COLUMNS,
  MEDIA_COLUMNS,
  mediaValues,
  toBrand,
  toChannel,
  toMedia,
  toUser,
  USER_COLUMNS,
} from './records.js';
import { SqliteSandboxOutbox } from './sandbox-rows.js';
import { type EpochMap, type Row, Sql } from './sql.js';
import { TransactionScope } from './transaction-scope.js';
import { WorkspaceAnswers } from './workspace-answers.js';
import { upsertBrand, upsertChannel, upsertCollection, upsertUser } from './workspace-upserts.js';

/** What the store and each of its transactions (a view of it bound to one) share. */
interface Connection {
  sql: Sql;
  /** The store's own scope: outside any transaction. */
  scope: TransactionScope;
  workspace: WorkspaceAnswers;
  /** The queue runs the posts remember (`PostStore.heldQueueRun`), by brand. */
  heldRuns: EpochMap<number, HeldQueueRun>;
  storeId: string;
}

/**
 * The store, or one of its transactions: every call waits for its scope's turn (`TransactionScope`),
 * then runs its statements synchronously, as SQLite's drivers do.
 */
export class SqliteStore implements Store {
  readonly posts: SqlitePostStore;
  readonly deliveries: SqliteDeliveryStore;
  readonly jobs: SqliteJobStore;
  readonly sandbox: SqliteSandboxOutbox;
  readonly connections: SqliteConnectionStore;
  readonly apiKeys: SqliteApiKeyStore;
  private readonly workspace: WorkspaceAnswers;

  /**
   * The connection. Outside the store only for diagnostics and tests: observing the statements run,
   * setting a pragma that provokes a fault.
   */
  readonly sql: Sql;

  private constructor(
    private readonly connection: Connection,
    private readonly scope: TransactionScope,
  ) {
    const { sql } = connection;
    this.sql = sql;
    this.workspace = connection.workspace;
    this.posts = new SqlitePostStore(sql, scope, connection.heldRuns);
    this.deliveries = new SqliteDeliveryStore(sql, scope);
    this.jobs = new SqliteJobStore(sql, scope);
    this.sandbox = new SqliteSandboxOutbox(sql, scope);
    this.connections = new SqliteConnectionStore(sql, scope, connection.storeId);
    this.apiKeys = new SqliteApiKeyStore(sql, scope);
  }

  /**
   * Opens (creating if needed) the database file, brings its schema up to date and checks that it can
   * be written; see `openStoreFile` for what it refuses, and how.
   */
  static open(file: string): SqliteStore {
    const sql = new Sql(openStoreFile(file));
    const scope = new TransactionScope(sql);
    const storeId = String(sql.get(`SELECT value FROM store_meta WHERE key = 'store_id'`)?.value);
    return new SqliteStore(
      { sql, scope, workspace: new WorkspaceAnswers(sql), heldRuns: sql.epochMap(), storeId },
      scope,
    );
  }

  get driver(): SqlDatabase['driver'] {
    return this.sql.db.driver;
  }

  /** Every transaction runs alone (BEGIN IMMEDIATE takes the database's write lock): a target changes nothing. */
  transaction<T>(work: (tx: Store) => Promise<T>, _target?: TransactionTarget): Promise<T> {
    return this.scope.transaction((inner) => work(new SqliteStore(this.connection, inner)));
  }

  /** One connection, one transaction at a time: the brand is never held by another one. */
  async tryTransaction(work: (tx: Store) => Promise<void>, target: TransactionTarget): Promise<boolean> {
    await this.transaction(work, target);
    return true;
  }

  /** Closes the connection once the transactions under way have ended. */
  async close(): Promise<void> {
    if (this.scope !== this.connection.scope) {
      throw new Error('A transaction cannot close the store: use the store itself.');
    }
    await this.scope.run(() => this.sql.close());
  }

  ping(): Promise<void> {
    return this.scope.run(() => {
      this.sql.get('SELECT 1');
    });
  }

  async announcePlanChange(): Promise<void> {}

  isEmpty(): Promise<boolean> {
    return this.scope.run(
      () => this.sql.count('SELECT (SELECT COUNT(*) FROM users) + (SELECT COUNT(*) FROM brands) AS n') === 0,
    );
  }

  countUsers(): Promise<number> {
    return this.scope.run(() => this.sql.count('SELECT COUNT(*) AS n FROM users'));
  }

  onlyUser(): Promise<UserRecord | undefined> {
    return this.scope.run(() => {
      const rows = this.sql.all(`SELECT ${USER_COLUMNS} FROM users LIMIT 2`);
      return rows.length === 1 ? toUser(rows[0]!) : undefined;
    });
  }

  listUsers(): Promise<UserRecord[]> {
    return this.scope.run(() =>
      this.sql.all(`SELECT ${USER_COLUMNS} FROM users ORDER BY joined_at_ms, id`).map(toUser),
    );
  }

  getUser(userId: string): Promise<UserRecord | undefined> {
    return this.scope.run(() =>
      this.workspace.cached(`getUser ${userId}`, () => {
        const row = this.sql.get(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`, userId);
        return row && toUser(row);
      }),
    );
  }

  usersWithoutKey(): Promise<UserRecord[]> {
    return this.scope.run(() =>
      this.sql
        .all(
          `SELECT ${USER_COLUMNS} FROM users u
         WHERE NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.user_id = u.id) ORDER BY joined_at_ms, id`,
        )
        .map(toUser),
    );
  }

  countBrandsOfUser(userId: string): Promise<number> {
    return this.scope.run(() =>
      this.workspace.cached(`countBrandsOfUser ${userId}`, () =>
        this.sql.count('SELECT COUNT(*) AS n FROM user_brands WHERE user_id = ?', userId),
      ),
    );
  }

  listBrandsOfUser(userId: string, window: PageWindow): Promise<BrandRecord[]> {
    return this.scope.run(() =>
      this.workspace.cached(`listBrandsOfUser ${window.limit} ${window.offset} ${userId}`, () =>
        this.sql
          .all(
            // In user_brands' key order (user_id, brand_id): brand id order without sorting.
            `SELECT ${BRAND_COLUMNS} FROM user_brands ub JOIN brands b ON b.id = ub.brand_id
       WHERE ub.user_id = ? ORDER BY ub.brand_id LIMIT ? OFFSET ?`,
            userId,
            window.limit,
            window.offset,
          )
          .map(toBrand),
      ),
    );
  }

  findBrandOfUser(userId: string, brandId: number): Promise<BrandRecord | undefined> {
    return this.scope.run(() =>
      this.workspace.cached(`findBrandOfUser ${brandId} ${userId}`, () => {
        const row = this.sql.get(
          `SELECT ${BRAND_COLUMNS} FROM brands b JOIN user_brands ub ON ub.brand_id = b.id
       WHERE ub.user_id = ? AND b.id = ?`,
          userId,
          brandId,
        );
        return row && toBrand(row);
      }),
    );
  }

  countChannels(brandId: number): Promise<number> {
    return this.scope.run(() =>
      this.workspace.cached(`countChannels ${brandId}`, () =>
        this.sql.count('SELECT COUNT(*) AS n FROM channels WHERE brand_id = ?', brandId),
      ),
    );
  }

  listChannels(brandId: number, window: PageWindow): Promise<ChannelRecord[]> {
    return this.scope.run(() =>
      this.workspace.cached(`listChannels ${brandId} ${window.limit} ${window.offset}`, () =>
        this.sql
          .all(
            `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE brand_id = ? ORDER BY id LIMIT ? OFFSET ?`,
            brandId,
            window.limit,
            window.offset,
          )
          .map(toChannel),
      ),
    );
  }

  setChannelStatus(
    channelId: number,
    status: 'ACTIVE' | 'INACTIVE',
    reason: string | null,
    nowMs: number,
  ): Promise<void> {
    return this.scope.run(() => {
      this.workspace.changed(
        this.sql.run(
          'UPDATE channels SET status = ?, status_reason = ?, updated_at_ms = ? WHERE id = ?',
          status,
          reason,
          nowMs,
          channelId,
        ),
      );
    });
  }

  findChannel(brandId: number, channelId: number): Promise<ChannelRecord | undefined> {
    return this.scope.run(() =>
      this.workspace.cached(`findChannel ${brandId} ${channelId}`, () => {
        const row = this.sql.get(
          `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE brand_id = ? AND id = ?`,
          brandId,
          channelId,
        );
        return row && toChannel(row);
      }),
    );
  }

  countCollections(brandId: number): Promise<number> {
    return this.scope.run(() =>
      this.workspace.cached(`countCollections ${brandId}`, () =>
        this.sql.count('SELECT COUNT(*) AS n FROM collections WHERE brand_id = ?', brandId),
      ),
    );
  }

  listCollections(brandId: number, window: PageWindow): Promise<CollectionRecord[]> {
    return this.scope.run(() =>
      this.workspace.cached(`listCollections ${brandId} ${window.limit} ${window.offset}`, () => {
        const rows = this.sql.all(
          `SELECT ${COLLECTION_COLUMNS} FROM collections WHERE brand_id = ? ORDER BY id LIMIT ? OFFSET ?`,
          brandId,
          window.limit,
          window.offset,
        );
        return rows.map((row) => this.toCollection(row));
      }),
    );
  }

  findCollection(brandId: number, collectionId: number): Promise<CollectionRecord | undefined> {
    return this.scope.run(() =>
      this.workspace.cached(`findCollection ${brandId} ${collectionId}`, () => {
        const row = this.sql.get(
          `SELECT ${COLLECTION_COLUMNS} FROM collections WHERE brand_id = ? AND id = ?`,
          brandId,
          collectionId,
        );
        return row && this.toCollection(row);
      }),
    );
  }

  private toCollection(row: Row): CollectionRecord {
    const channels = this.sql
      .all(
        `SELECT c.id, c.brand_id, c.name, c.type, c.status, c.created_at_ms, c.updated_at_ms
       FROM collection_channels cc JOIN channels c ON c.id = cc.channel_id
       WHERE cc.collection_id = ? ORDER BY cc.position`,
        row.id as number,
      )
      .map(toChannel);
    return {
      id: Number(row.id),
      brandId: Number(row.brand_id),
      title: String(row.title),
      description: row.description === null ? null : String(row.description),
      status: String(row.status),
      createdAtMs: Number(row.created_at_ms),
      updatedAtMs: Number(row.updated_at_ms),
      channels,
    };
  }

  findMediaByHash(brandId: number, sha256: string): Promise<MediaRecord | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(
        `SELECT ${MEDIA_COLUMNS} FROM media WHERE brand_id = ? AND sha256 = ?`,
        brandId,
        sha256,
      );
      return row && toMedia(row);
    });
  }

  findMedia(brandId: number, mediaIds: readonly string[]): Promise<MediaRecord[]> {
    return this.scope.run(() => {
      if (mediaIds.length === 0) return [];
      const placeholders = mediaIds.map(() => '?').join(', ');
      return this.sql
        .allOnce(
          `SELECT ${MEDIA_COLUMNS} FROM media WHERE brand_id = ? AND id IN (${placeholders})`,
          brandId,
          ...mediaIds,
        )
        .map(toMedia);
    });
  }

  insertMedia(media: MediaRecord): Promise<void> {
    return this.scope.run(() => {
      this.sql.run(
        `INSERT INTO media (${MEDIA_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        ...mediaValues(media),
      );
    });
  }

  findBrand(brandId: number): Promise<BrandRecord | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(`SELECT ${BRAND_COLUMNS} FROM brands b WHERE b.id = ?`, brandId);
      return row && toBrand(row);
    });
  }

  findBrandIdByTitle(title: string): Promise<number | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get('SELECT id FROM brands WHERE title = ?', title);
      return row && Number(row.id);
    });
  }

  upsertBrand(brand: BrandUpsert, nowMs: number): Promise<number> {
    return this.scope.run(() => this.workspace.changed(upsertBrand(this.sql, brand, nowMs)));
  }

  upsertChannel(brandId: number, channel: ChannelUpsert, nowMs: number): Promise<number> {
    return this.scope.run(() => this.workspace.changed(upsertChannel(this.sql, brandId, channel, nowMs)));
  }

  upsertCollection(brandId: number, collection: CollectionUpsert, nowMs: number): Promise<number> {
    return this.scope.run(() =>
      this.workspace.changed(upsertCollection(this.sql, brandId, collection, nowMs)),
    );
  }

  upsertUser(user: UserUpsert, nowMs: number): Promise<string> {
    return this.scope.run(() => this.workspace.changed(upsertUser(this.sql, user, nowMs)));
  }
}
