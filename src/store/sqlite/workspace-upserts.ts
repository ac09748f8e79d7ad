/** Workspace upserts by natural key: brand title, channel name and collection title within a brand, user API key. */
import { randomBytes } from 'node:crypto';
import type { BrandUpsert, ChannelUpsert, CollectionUpsert, UserUpsert } from '../../ports.js';
import type { Sql } from './sql.js';

export function upsertBrand(sql: Sql, brand: BrandUpsert, nowMs: number): number {
  const existing = sql.get('SELECT id FROM brands WHERE title = ?', brand.title);
  const queueTimes = JSON.stringify(brand.queueTimes);
  if (existing) {
    sql.run(
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
  return sql.run(
    'INSERT INTO brands (title, description, timezone, queue_times, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)',
    brand.title,
    brand.description,
    brand.timezone,
    queueTimes,
    nowMs,
    nowMs,
  );
}

export function upsertChannel(sql: Sql, brandId: number, channel: ChannelUpsert, nowMs: number): number {
  const existing = sql.get('SELECT id FROM channels WHERE brand_id = ? AND name = ?', brandId, channel.name);
  if (existing) {
    sql.run(
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
  return sql.run(
    'INSERT INTO channels (brand_id, name, type, status, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)',
    brandId,
    channel.name,
    channel.type,
    channel.status,
    nowMs,
    nowMs,
  );
}

export function upsertCollection(
  sql: Sql,
  brandId: number,
  collection: CollectionUpsert,
  nowMs: number,
): number {
  const existing = sql.get(
    'SELECT id FROM collections WHERE brand_id = ? AND title = ?',
    brandId,
    collection.title,
  );
  let id: number;
  if (existing) {
    id = Number(existing.id);
    const current = sql
      .all('SELECT channel_id FROM collection_channels WHERE collection_id = ? ORDER BY position', id)
      .map((row) => Number(row.channel_id));
    const membershipChanged = current.join(',') !== collection.channelIds.join(',');
    sql.run(
      `UPDATE collections SET description = ?, updated_at_ms = ? WHERE id = ? AND (description IS NOT ? OR ?)`,
      collection.description,
      nowMs,
      id,
      collection.description,
      membershipChanged ? 1 : 0,
    );
    if (!membershipChanged) return id;
    sql.run('DELETE FROM collection_channels WHERE collection_id = ?', id);
  } else {
    id = sql.run(
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
    sql.run(
      'INSERT INTO collection_channels (collection_id, channel_id, position) VALUES (?, ?, ?)',
      id,
      channelId,
      position,
    );
  });
  return id;
}

export function upsertUser(sql: Sql, user: UserUpsert, nowMs: number): string {
  // Natural key: the API key (hashed; a revoked key still names its user, and stays revoked). A user
  // without a key in the file is known by its name, among users that no file gave a key: keys issued
  // here since (by `serve` or `keys create`) do not make the user a new one.
  const existing = user.apiKeyHash
    ? sql.get('SELECT user_id AS id FROM api_keys WHERE key_hash = ?', user.apiKeyHash)
    : sql.get(
        `SELECT id FROM users u WHERE name = ? AND NOT EXISTS
           (SELECT 1 FROM api_keys k WHERE k.user_id = u.id AND k.origin IN ('import', 'migrated'))
         ORDER BY joined_at_ms LIMIT 1`,
        user.name,
      );
  let id: string;
  if (existing) {
    id = String(existing.id);
    sql.run('UPDATE users SET name = ?, timezone = ? WHERE id = ?', user.name, user.timezone, id);
  } else {
    id = `usr_${randomBytes(12).toString('base64url')}`;
    sql.run(
      'INSERT INTO users (id, name, timezone, joined_at_ms) VALUES (?, ?, ?, ?)',
      id,
      user.name,
      user.timezone,
      nowMs,
    );
    if (user.apiKeyHash) {
      sql.run(
        `INSERT INTO api_keys (user_id, key_hash, prefix, origin, created_at_ms) VALUES (?, ?, NULL, 'import', ?)`,
        id,
        user.apiKeyHash,
        nowMs,
      );
    }
  }
  sql.run('DELETE FROM user_brands WHERE user_id = ?', id);
  for (const brandId of user.brandIds) {
    sql.run('INSERT OR IGNORE INTO user_brands (user_id, brand_id) VALUES (?, ?)', id, brandId);
  }
  return id;
}
