/** The Store port on SQLite: WAL, foreign keys, prepared statements cached by SQL text. */
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
  UserRecord,
  UserUpsert,
} from '../../ports.js';
import { SqliteApiKeyStore } from './api-key-rows.js';
import { SqliteConnectionStore } from './connection-rows.js';
import { SqliteDeliveryStore, SqliteSandboxOutbox } from './delivery-rows.js';
import type { SqlDatabase } from './driver.js';
import { openStoreFile } from './open-store-file.js';
import { SqlitePostStore } from './post-rows.js';
import {
  BRAND_COLUMNS,
  CHANNEL_COLUMNS,
  COLLECTION_COLUMNS,
  toBrand,
  toChannel,
  toMedia,
  toUser,
  USER_COLUMNS,
} from './records.js';
import { type EpochMap, type Row, Sql } from './sql.js';
import { upsertBrand, upsertChannel, upsertCollection, upsertUser } from './workspace-upserts.js';

/** Freezes a record and the arrays and records inside it: a cached answer must not be changed by a caller. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** How many workspace answers are kept before all are dropped (users × brands × pages, in practice few). */
const WORKSPACE_ANSWERS_KEPT = 4096;

export class SqliteStore implements Store {
  readonly posts: SqlitePostStore;
  readonly deliveries: SqliteDeliveryStore;
  readonly sandbox: SqliteSandboxOutbox;
  readonly connections: SqliteConnectionStore;
  readonly apiKeys: SqliteApiKeyStore;
  /**
   * Answers read from the workspace tables (users, brands, channels, collections and their links),
   * which change rarely: by key, frozen, exact as of the change epoch. This store's own workspace
   * writes drop them all.
   */
  private readonly workspace: EpochMap<string, unknown>;

  /**
   * The connection. Outside the store only for diagnostics and tests: observing the statements run,
   * setting a pragma that provokes a fault.
   */
  readonly sql: Sql;

  private constructor(sql: Sql) {
    this.sql = sql;
    this.workspace = sql.epochMap();
    this.posts = new SqlitePostStore(sql);
    this.deliveries = new SqliteDeliveryStore(sql);
    this.sandbox = new SqliteSandboxOutbox(sql);
    this.connections = new SqliteConnectionStore(sql);
    this.apiKeys = new SqliteApiKeyStore(sql);
  }

  /**
   * Opens (creating if needed) the database file, brings its schema up to date and checks that it can
   * be written; see `openStoreFile` for what it refuses, and how.
   */
  static open(file: string): SqliteStore {
    return new SqliteStore(new Sql(openStoreFile(file)));
  }

  /** The answer kept under `key`, else `read()`'s, frozen and kept. */
  private cached<T>(key: string, read: () => T): T {
    const answers = this.workspace.current();
    if (answers.has(key)) return answers.get(key) as T;
    const answer = deepFreeze(read());
    if (answers.size >= WORKSPACE_ANSWERS_KEPT) answers.clear();
    answers.set(key, answer);
    return answer;
  }

  /** A write to the workspace tables: every kept answer may be wrong now. */
  private workspaceChanged<T>(result: T): T {
    this.workspace.entries.clear();
    return result;
  }

  get driver(): SqlDatabase['driver'] {
    return this.sql.db.driver;
  }

  transaction<T>(work: () => T): T {
    return this.sql.transaction(work);
  }

  close(): void {
    this.sql.close();
  }

  isEmpty(): boolean {
    return this.sql.count('SELECT (SELECT COUNT(*) FROM users) + (SELECT COUNT(*) FROM brands) AS n') === 0;
  }

  countUsers(): number {
    return this.sql.count('SELECT COUNT(*) AS n FROM users');
  }

  onlyUser(): UserRecord | undefined {
    const rows = this.sql.all(`SELECT ${USER_COLUMNS} FROM users LIMIT 2`);
    return rows.length === 1 ? toUser(rows[0]!) : undefined;
  }

  listUsers(): UserRecord[] {
    return this.sql.all(`SELECT ${USER_COLUMNS} FROM users ORDER BY joined_at_ms, id`).map(toUser);
  }

  getUser(userId: string): UserRecord | undefined {
    return this.cached(`getUser ${userId}`, () => {
      const row = this.sql.get(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`, userId);
      return row && toUser(row);
    });
  }

  usersWithoutKey(): UserRecord[] {
    return this.sql
      .all(
        `SELECT ${USER_COLUMNS} FROM users u
         WHERE NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.user_id = u.id) ORDER BY joined_at_ms`,
      )
      .map(toUser);
  }

  countBrandsOfUser(userId: string): number {
    return this.cached(`countBrandsOfUser ${userId}`, () =>
      this.sql.count('SELECT COUNT(*) AS n FROM user_brands WHERE user_id = ?', userId),
    );
  }

  listBrandsOfUser(userId: string, window: PageWindow): BrandRecord[] {
    return this.cached(`listBrandsOfUser ${window.limit} ${window.offset} ${userId}`, () =>
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
    );
  }

  findBrandOfUser(userId: string, brandId: number): BrandRecord | undefined {
    return this.cached(`findBrandOfUser ${brandId} ${userId}`, () => {
      const row = this.sql.get(
        `SELECT ${BRAND_COLUMNS} FROM brands b JOIN user_brands ub ON ub.brand_id = b.id
       WHERE ub.user_id = ? AND b.id = ?`,
        userId,
        brandId,
      );
      return row && toBrand(row);
    });
  }

  countChannels(brandId: number): number {
    return this.cached(`countChannels ${brandId}`, () =>
      this.sql.count('SELECT COUNT(*) AS n FROM channels WHERE brand_id = ?', brandId),
    );
  }

  listChannels(brandId: number, window: PageWindow): ChannelRecord[] {
    return this.cached(`listChannels ${brandId} ${window.limit} ${window.offset}`, () =>
      this.sql
        .all(
          `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE brand_id = ? ORDER BY id LIMIT ? OFFSET ?`,
          brandId,
          window.limit,
          window.offset,
        )
        .map(toChannel),
    );
  }

  setChannelStatus(
    channelId: number,
    status: 'ACTIVE' | 'INACTIVE',
    reason: string | null,
    nowMs: number,
  ): void {
    this.workspaceChanged(
      this.sql.run(
        'UPDATE channels SET status = ?, status_reason = ?, updated_at_ms = ? WHERE id = ?',
        status,
        reason,
        nowMs,
        channelId,
      ),
    );
  }

  findChannel(brandId: number, channelId: number): ChannelRecord | undefined {
    return this.cached(`findChannel ${brandId} ${channelId}`, () => {
      const row = this.sql.get(
        `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE brand_id = ? AND id = ?`,
        brandId,
        channelId,
      );
      return row && toChannel(row);
    });
  }

  countCollections(brandId: number): number {
    return this.cached(`countCollections ${brandId}`, () =>
      this.sql.count('SELECT COUNT(*) AS n FROM collections WHERE brand_id = ?', brandId),
    );
  }

  listCollections(brandId: number, window: PageWindow): CollectionRecord[] {
    return this.cached(`listCollections ${brandId} ${window.limit} ${window.offset}`, () => {
      const rows = this.sql.all(
        `SELECT ${COLLECTION_COLUMNS} FROM collections WHERE brand_id = ? ORDER BY id LIMIT ? OFFSET ?`,
        brandId,
        window.limit,
        window.offset,
      );
      return rows.map((row) => this.toCollection(row));
    });
  }

  findCollection(brandId: number, collectionId: number): CollectionRecord | undefined {
    return this.cached(`findCollection ${brandId} ${collectionId}`, () => {
      const row = this.sql.get(
        `SELECT ${COLLECTION_COLUMNS} FROM collections WHERE brand_id = ? AND id = ?`,
        brandId,
        collectionId,
      );
      return row && this.toCollection(row);
    });
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

  findMediaByHash(brandId: number, sha256: string): MediaRecord | undefined {
    const row = this.sql.get(
      'SELECT id, brand_id, type, size, sha256, path, created_at_ms FROM media WHERE brand_id = ? AND sha256 = ?',
      brandId,
      sha256,
    );
    return row && toMedia(row);
  }

  findMedia(brandId: number, mediaIds: readonly string[]): MediaRecord[] {
    if (mediaIds.length === 0) return [];
    const placeholders = mediaIds.map(() => '?').join(', ');
    return this.sql
      .allOnce(
        `SELECT id, brand_id, type, size, sha256, path, created_at_ms FROM media WHERE brand_id = ? AND id IN (${placeholders})`,
        brandId,
        ...mediaIds,
      )
      .map(toMedia);
  }

  insertMedia(media: MediaRecord): void {
    this.sql.run(
      'INSERT INTO media (id, brand_id, type, size, sha256, path, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
      media.id,
      media.brandId,
      media.type,
      media.size,
      media.sha256,
      media.path,
      media.createdAtMs,
    );
  }

  findBrand(brandId: number): BrandRecord | undefined {
    const row = this.sql.get(`SELECT ${BRAND_COLUMNS} FROM brands b WHERE b.id = ?`, brandId);
    return row && toBrand(row);
  }

  findBrandIdByTitle(title: string): number | undefined {
    const row = this.sql.get('SELECT id FROM brands WHERE title = ?', title);
    return row && Number(row.id);
  }

  upsertBrand(brand: BrandUpsert, nowMs: number): number {
    return this.workspaceChanged(upsertBrand(this.sql, brand, nowMs));
  }

  upsertChannel(brandId: number, channel: ChannelUpsert, nowMs: number): number {
    return this.workspaceChanged(upsertChannel(this.sql, brandId, channel, nowMs));
  }

  upsertCollection(brandId: number, collection: CollectionUpsert, nowMs: number): number {
    return this.workspaceChanged(upsertCollection(this.sql, brandId, collection, nowMs));
  }

  upsertUser(user: UserUpsert, nowMs: number): string {
    return this.workspaceChanged(upsertUser(this.sql, user, nowMs));
  }
}
