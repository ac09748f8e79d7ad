/**
 * Workspace upserts by natural key: brand title, channel name and collection title within a brand, user
 * API key. Each reads, then writes: the store runs them in a transaction (its own when none is under
 * way), where store transactions run one at a time.
 */
import { randomBytes } from 'node:crypto';
import type { BrandUpsert, ChannelUpsert, CollectionUpsert, UserUpsert } from '../../ports.js';
import type { Sql, SqlParam } from './sql.js';

async function insertedId(sql: Sql, text: string, ...params: SqlParam[]): Promise<number> {
  return Number((await sql.get(text, ...params))!.id);
}

export async function upsertBrand(sql: Sql, brand: BrandUpsert, nowMs: number): Promise<number> {
  const existing = await sql.get('SELECT id FROM brands WHERE title = $1', brand.title);
  const queueTimes = JSON.stringify(brand.queueTimes);
  if (existing) {
    await sql.change(
      `UPDATE brands SET description = $1, timezone = $2, queue_times = $3, updated_at_ms = $4
       WHERE id = $5 AND (description IS DISTINCT FROM $1 OR timezone IS DISTINCT FROM $2
         OR queue_times IS DISTINCT FROM $3::jsonb)`,
      brand.description,
      brand.timezone,
      queueTimes,
      nowMs,
      Number(existing.id),
    );
    return Number(existing.id);
  }
  return insertedId(
    sql,
    `INSERT INTO brands (title, description, timezone, queue_times, created_at_ms, updated_at_ms)
     VALUES ($1, $2, $3, $4, $5, $5) RETURNING id`,
    brand.title,
    brand.description,
    brand.timezone,
    queueTimes,
    nowMs,
  );
}

export async function upsertChannel(
  sql: Sql,
  brandId: number,
  channel: ChannelUpsert,
  nowMs: number,
): Promise<number> {
  const existing = await sql.get(
    'SELECT id FROM channels WHERE brand_id = $1 AND name = $2',
    brandId,
    channel.name,
  );
  if (existing) {
    await sql.change(
      `UPDATE channels SET type = $1, status = $2, updated_at_ms = $3
       WHERE id = $4 AND (type IS DISTINCT FROM $1 OR status IS DISTINCT FROM $2)`,
      channel.type,
      channel.status,
      nowMs,
      Number(existing.id),
    );
    return Number(existing.id);
  }
  return insertedId(
    sql,
    `INSERT INTO channels (brand_id, name, type, status, created_at_ms, updated_at_ms)
     VALUES ($1, $2, $3, $4, $5, $5) RETURNING id`,
    brandId,
    channel.name,
    channel.type,
    channel.status,
    nowMs,
  );
}

export async function upsertCollection(
  sql: Sql,
  brandId: number,
  collection: CollectionUpsert,
  nowMs: number,
): Promise<number> {
  const existing = await sql.get(
    'SELECT id FROM collections WHERE brand_id = $1 AND title = $2',
    brandId,
    collection.title,
  );
  let id: number;
  if (existing) {
    id = Number(existing.id);
    const current = (
      await sql.all(
        'SELECT channel_id FROM collection_channels WHERE collection_id = $1 ORDER BY position',
        id,
      )
    ).map((row) => Number(row.channel_id));
    const membershipChanged = current.join(',') !== collection.channelIds.join(',');
    await sql.change(
      `UPDATE collections SET description = $1, updated_at_ms = $2
       WHERE id = $3 AND (description IS DISTINCT FROM $1 OR $4)`,
      collection.description,
      nowMs,
      id,
      membershipChanged,
    );
    if (!membershipChanged) return id;
    await sql.change('DELETE FROM collection_channels WHERE collection_id = $1', id);
  } else {
    id = await insertedId(
      sql,
      `INSERT INTO collections (brand_id, title, description, status, created_at_ms, updated_at_ms)
       VALUES ($1, $2, $3, 'ACTIVE', $4, $4) RETURNING id`,
      brandId,
      collection.title,
      collection.description,
      nowMs,
    );
  }
  if (collection.channelIds.length > 0) {
    // Positions follow the order given (ordinality counts from 1; SQLite's positions from 0).
    await sql.change(
      `INSERT INTO collection_channels (collection_id, channel_id, position)
       SELECT $1::bigint, channel_id, position - 1 FROM unnest($2::bigint[]) WITH ORDINALITY AS given (channel_id, position)`,
      id,
      collection.channelIds,
    );
  }
  return id;
}

export async function upsertUser(sql: Sql, user: UserUpsert, nowMs: number): Promise<string> {
  // Natural key: the API key (hashed; a revoked key still names its user, and stays revoked). A user
  // without a key in the file is known by its name, among users that no file gave a key: keys issued
  // here since (by `serve` or `keys create`) do not make the user a new one.
  const existing = user.apiKeyHash
    ? await sql.get('SELECT user_id AS id FROM api_keys WHERE key_hash = $1', user.apiKeyHash)
    : await sql.get(
        `SELECT id FROM users u WHERE name = $1 AND NOT EXISTS
           (SELECT 1 FROM api_keys k WHERE k.user_id = u.id AND k.origin IN ('import', 'migrated'))
         ORDER BY joined_at_ms, id LIMIT 1`,
        user.name,
      );
  let id: string;
  if (existing) {
    id = String(existing.id);
    await sql.change('UPDATE users SET name = $1, timezone = $2 WHERE id = $3', user.name, user.timezone, id);
  } else {
    id = `usr_${randomBytes(12).toString('base64url')}`;
    await sql.change(
      'INSERT INTO users (id, name, timezone, joined_at_ms) VALUES ($1, $2, $3, $4)',
      id,
      user.name,
      user.timezone,
      nowMs,
    );
    if (user.apiKeyHash) {
      await sql.change(
        `INSERT INTO api_keys (user_id, key_hash, prefix, origin, created_at_ms) VALUES ($1, $2, NULL, 'import', $3)`,
        id,
        user.apiKeyHash,
        nowMs,
      );
    }
  }
  await sql.change('DELETE FROM user_brands WHERE user_id = $1', id);
  if (user.brandIds.length > 0) {
    await sql.change(
      `INSERT INTO user_brands (user_id, brand_id) SELECT $1::text, unnest($2::bigint[]) ON CONFLICT DO NOTHING`,
      id,
      user.brandIds,
    );
  }
  return id;
}
