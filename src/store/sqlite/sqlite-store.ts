/** The Store port on SQLite: WAL, foreign keys, prepared statements cached by SQL text. */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type {
  BrandRecord,
  BrandUpsert,
  ChannelRecord,
  ChannelUpsert,
  CollectionRecord,
  CollectionUpsert,
  MediaRecord,
  NewPost,
  PageWindow,
  Store,
  UserRecord,
  UserUpsert,
} from '../../ports.js';
import { openDatabase, type SqlDatabase, type SqlStatement, type SqlValue } from './driver.js';
import { migrate } from './migrations.js';

type Row = Record<string, SqlValue>;

const USER_COLUMNS = 'id, name, timezone, joined_at_ms';
const BRAND_COLUMNS =
  'b.id, b.title, b.description, b.timezone, b.queue_times, b.created_at_ms, b.updated_at_ms';
const CHANNEL_COLUMNS = 'id, brand_id, name, type, status, created_at_ms, updated_at_ms';
const COLLECTION_COLUMNS = 'id, brand_id, title, description, status, created_at_ms, updated_at_ms';

function toUser(row: Row): UserRecord {
  return {
    id: String(row.id),
    name: String(row.name),
    timezone: String(row.timezone),
    joinedAtMs: Number(row.joined_at_ms),
  };
}

function toBrand(row: Row): BrandRecord {
  return {
    id: Number(row.id),
    title: String(row.title),
    description: row.description === null ? null : String(row.description),
    timezone: String(row.timezone),
    queueTimes: JSON.parse(String(row.queue_times)) as string[],
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
  };
}

function toChannel(row: Row): ChannelRecord {
  return {
    id: Number(row.id),
    brandId: Number(row.brand_id),
    name: String(row.name),
    type: String(row.type) as ChannelRecord['type'],
    status: String(row.status) as ChannelRecord['status'],
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
  };
}

function toMedia(row: Row): MediaRecord {
  return {
    id: String(row.id),
    brandId: Number(row.brand_id),
    type: String(row.type),
    size: Number(row.size),
    sha256: String(row.sha256),
    path: String(row.path),
    createdAtMs: Number(row.created_at_ms),
  };
}

export class SqliteStore implements Store {
  private readonly statements = new Map<string, SqlStatement>();
  private transactionDepth = 0;

  private constructor(private readonly db: SqlDatabase) {}

  /** Opens (creating if needed) the database file and brings its schema up to date. */
  static open(file: string): SqliteStore {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const db = openDatabase(file);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    db.exec('PRAGMA busy_timeout = 5000');
    migrate(db);
    return new SqliteStore(db);
  }

  get driver(): SqlDatabase['driver'] {
    return this.db.driver;
  }

  private statement(sql: string): SqlStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private get(sql: string, ...params: SqlValue[]): Row | undefined {
    return this.statement(sql).get(...params) as Row | undefined;
  }

  private all(sql: string, ...params: SqlValue[]): Row[] {
    return this.statement(sql).all(...params) as Row[];
  }

  private run(sql: string, ...params: SqlValue[]): number {
    return Number(this.statement(sql).run(...params).lastInsertRowid);
  }

  private count(sql: string, ...params: SqlValue[]): number {
    return Number(this.get(sql, ...params)?.n ?? 0);
  }

  transaction<T>(work: () => T): T {
    if (this.transactionDepth > 0) return work();
    this.db.exec('BEGIN IMMEDIATE');
    this.transactionDepth++;
    try {
      const result = work();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    } finally {
      this.transactionDepth--;
    }
  }

  close(): void {
    this.statements.clear();
    this.db.close();
  }

  isEmpty(): boolean {
    return this.count('SELECT (SELECT COUNT(*) FROM users) + (SELECT COUNT(*) FROM brands) AS n') === 0;
  }

  countUsers(): number {
    return this.count('SELECT COUNT(*) AS n FROM users');
  }

  onlyUser(): UserRecord | undefined {
    const rows = this.all(`SELECT ${USER_COLUMNS} FROM users LIMIT 2`);
    return rows.length === 1 ? toUser(rows[0]!) : undefined;
  }

  findUserByKeyHash(apiKeyHash: string): { user: UserRecord; apiKeyHash: string } | undefined {
    const row = this.get(
      `SELECT ${USER_COLUMNS}, api_key_hash FROM users WHERE api_key_hash = ?`,
      apiKeyHash,
    );
    return row && { user: toUser(row), apiKeyHash: String(row.api_key_hash) };
  }

  getUser(userId: string): UserRecord | undefined {
    const row = this.get(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`, userId);
    return row && toUser(row);
  }

  countBrandsOfUser(userId: string): number {
    return this.count('SELECT COUNT(*) AS n FROM user_brands WHERE user_id = ?', userId);
  }

  listBrandsOfUser(userId: string, window: PageWindow): BrandRecord[] {
    return this.all(
      `SELECT ${BRAND_COLUMNS} FROM brands b JOIN user_brands ub ON ub.brand_id = b.id
       WHERE ub.user_id = ? ORDER BY b.id LIMIT ? OFFSET ?`,
      userId,
      window.limit,
      window.offset,
    ).map(toBrand);
  }

  findBrandOfUser(userId: string, brandId: number): BrandRecord | undefined {
    const row = this.get(
      `SELECT ${BRAND_COLUMNS} FROM brands b JOIN user_brands ub ON ub.brand_id = b.id
       WHERE ub.user_id = ? AND b.id = ?`,
      userId,
      brandId,
    );
    return row && toBrand(row);
  }

  countChannels(brandId: number): number {
    return this.count('SELECT COUNT(*) AS n FROM channels WHERE brand_id = ?', brandId);
  }

  listChannels(brandId: number, window: PageWindow): ChannelRecord[] {
    return this.all(
      `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE brand_id = ? ORDER BY id LIMIT ? OFFSET ?`,
      brandId,
      window.limit,
      window.offset,
    ).map(toChannel);
  }

  findChannel(brandId: number, channelId: number): ChannelRecord | undefined {
    const row = this.get(
      `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE brand_id = ? AND id = ?`,
      brandId,
      channelId,
    );
    return row && toChannel(row);
  }

  countCollections(brandId: number): number {
    return this.count('SELECT COUNT(*) AS n FROM collections WHERE brand_id = ?', brandId);
  }

  listCollections(brandId: number, window: PageWindow): CollectionRecord[] {
    const rows = this.all(
      `SELECT ${COLLECTION_COLUMNS} FROM collections WHERE brand_id = ? ORDER BY id LIMIT ? OFFSET ?`,
      brandId,
      window.limit,
      window.offset,
    );
    return rows.map((row) => this.toCollection(row));
  }

  findCollection(brandId: number, collectionId: number): CollectionRecord | undefined {
    const row = this.get(
      `SELECT ${COLLECTION_COLUMNS} FROM collections WHERE brand_id = ? AND id = ?`,
      brandId,
      collectionId,
    );
    return row && this.toCollection(row);
  }

  private toCollection(row: Row): CollectionRecord {
    const channels = this.all(
      `SELECT c.id, c.brand_id, c.name, c.type, c.status, c.created_at_ms, c.updated_at_ms
       FROM collection_channels cc JOIN channels c ON c.id = cc.channel_id
       WHERE cc.collection_id = ? ORDER BY cc.position`,
      row.id as number,
    ).map(toChannel);
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
    const row = this.get(
      'SELECT id, brand_id, type, size, sha256, path, created_at_ms FROM media WHERE brand_id = ? AND sha256 = ?',
      brandId,
      sha256,
    );
    return row && toMedia(row);
  }

  findMedia(brandId: number, mediaIds: readonly string[]): MediaRecord[] {
    if (mediaIds.length === 0) return [];
    const placeholders = mediaIds.map(() => '?').join(', ');
    return this.db
      .prepare(
        `SELECT id, brand_id, type, size, sha256, path, created_at_ms FROM media WHERE brand_id = ? AND id IN (${placeholders})`,
      )
      .all(brandId, ...mediaIds)
      .map((row) => toMedia(row as Row));
  }

  insertMedia(media: MediaRecord): void {
    this.run(
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

  insertPost(post: NewPost): number {
    return this.run(
      `INSERT INTO posts (brand_id, collection_id, user_id, publish_mode, status, payload, due_at_ms, created_at_ms, updated_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      post.brandId,
      post.collectionId,
      post.userId,
      post.publishMode,
      post.status,
      JSON.stringify(post.payload),
      post.dueAtMs,
      post.createdAtMs,
      post.createdAtMs,
    );
  }

  plannedTimesFrom(brandId: number, fromMs: number, limit: number): number[] {
    return this.all(
      `SELECT DISTINCT due_at_ms FROM posts
       WHERE brand_id = ? AND due_at_ms >= ? AND status IN ('queued', 'scheduled')
       ORDER BY due_at_ms LIMIT ?`,
      brandId,
      fromMs,
      limit,
    ).map((row) => Number(row.due_at_ms));
  }

  findBrandIdByTitle(title: string): number | undefined {
    const row = this.get('SELECT id FROM brands WHERE title = ?', title);
    return row && Number(row.id);
  }

  upsertBrand(brand: BrandUpsert, nowMs: number): number {
    const existing = this.get('SELECT id FROM brands WHERE title = ?', brand.title);
    const queueTimes = JSON.stringify(brand.queueTimes);
    if (existing) {
      this.run(
        `UPDATE brands SET description = ?, timezone = ?, queue_times = ?, updated_at_ms = ?
         WHERE id = ? AND (description IS NOT ? OR timezone IS NOT ? OR queue_times IS NOT ?)`,
        brand.description,
        brand.timezone,
        queueTimes,
        nowMs,
        existing.id as number,
        brand.description,
        brand.timezone,
        queueTimes,
      );
      return Number(existing.id);
    }
    return this.run(
      'INSERT INTO brands (title, description, timezone, queue_times, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)',
      brand.title,
      brand.description,
      brand.timezone,
      queueTimes,
      nowMs,
      nowMs,
    );
  }

  upsertChannel(brandId: number, channel: ChannelUpsert, nowMs: number): number {
    const existing = this.get(
      'SELECT id FROM channels WHERE brand_id = ? AND name = ?',
      brandId,
      channel.name,
    );
    if (existing) {
      this.run(
        `UPDATE channels SET type = ?, status = ?, updated_at_ms = ? WHERE id = ? AND (type IS NOT ? OR status IS NOT ?)`,
        channel.type,
        channel.status,
        nowMs,
        existing.id as number,
        channel.type,
        channel.status,
      );
      return Number(existing.id);
    }
    return this.run(
      'INSERT INTO channels (brand_id, name, type, status, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)',
      brandId,
      channel.name,
      channel.type,
      channel.status,
      nowMs,
      nowMs,
    );
  }

  upsertCollection(brandId: number, collection: CollectionUpsert, nowMs: number): number {
    const existing = this.get(
      'SELECT id FROM collections WHERE brand_id = ? AND title = ?',
      brandId,
      collection.title,
    );
    let id: number;
    if (existing) {
      id = Number(existing.id);
      const current = this.all(
        'SELECT channel_id FROM collection_channels WHERE collection_id = ? ORDER BY position',
        id,
      ).map((row) => Number(row.channel_id));
      const membershipChanged = current.join(',') !== collection.channelIds.join(',');
      this.run(
        `UPDATE collections SET description = ?, updated_at_ms = ? WHERE id = ? AND (description IS NOT ? OR ?)`,
        collection.description,
        nowMs,
        id,
        collection.description,
        membershipChanged ? 1 : 0,
      );
      if (!membershipChanged) return id;
      this.run('DELETE FROM collection_channels WHERE collection_id = ?', id);
    } else {
      id = this.run(
        'INSERT INTO collections (brand_id, title, description, status, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)',
        brandId,
        collection.title,
        collection.description,
        'ACTIVE',
        nowMs,
        nowMs,
      );
    }
    collection.channelIds.forEach((channelId, position) => {
      this.run(
        'INSERT INTO collection_channels (collection_id, channel_id, position) VALUES (?, ?, ?)',
        id,
        channelId,
        position,
      );
    });
    return id;
  }

  upsertUser(user: UserUpsert, nowMs: number): string {
    // Natural key: the API key (hashed); a local-only user (no key) is known by its name.
    const existing = user.apiKeyHash
      ? this.get('SELECT id FROM users WHERE api_key_hash = ?', user.apiKeyHash)
      : this.get('SELECT id FROM users WHERE api_key_hash IS NULL AND name = ?', user.name);
    let id: string;
    if (existing) {
      id = String(existing.id);
      this.run('UPDATE users SET name = ?, timezone = ? WHERE id = ?', user.name, user.timezone, id);
    } else {
      id = `usr_${randomBytes(12).toString('base64url')}`;
      this.run(
        'INSERT INTO users (id, name, timezone, api_key_hash, joined_at_ms) VALUES (?, ?, ?, ?, ?)',
        id,
        user.name,
        user.timezone,
        user.apiKeyHash,
        nowMs,
      );
    }
    this.run('DELETE FROM user_brands WHERE user_id = ?', id);
    for (const brandId of user.brandIds) {
      this.run('INSERT OR IGNORE INTO user_brands (user_id, brand_id) VALUES (?, ?)', id, brandId);
    }
    return id;
  }
}
