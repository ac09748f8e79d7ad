/**
 * The PostgreSQL store's migrations on a real server: the schema is SQLite's (the same tables, columns
 * and keys), it is applied once however many instances open a fresh database at the same moment, an
 * up-to-date database is left as it is, and a database that cannot be used is refused at the start
 * with a message that names it without its password.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { StorageStartError } from '../../src/domain/errors.js';
import { SCHEMA_VERSION } from '../../src/store/postgres/migrations.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { migrate as migrateSqlite } from '../../src/store/sqlite/migrations.js';
import { makeTempDir } from '../support/local.js';
import { usePostgres } from './postgres-databases.js';

const postgres = usePostgres();

/** Every table's columns, by table, sorted: of this PostgreSQL database. */
async function postgresColumns(url: string): Promise<Record<string, string[]>> {
  const rows = await postgres.query<{ table_name: string; column_name: string }>(
    url,
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name <> 'social_publisher_migrations'`,
  );
  const tables = new Map<string, string[]>();
  for (const row of rows)
    tables.set(row.table_name, [...(tables.get(row.table_name) ?? []), row.column_name]);
  return Object.fromEntries([...tables].map(([table, columns]) => [table, columns.sort()]));
}

/** The same of a SQLite store brought up to date by its own migrations. */
function sqliteColumns(): Record<string, string[]> {
  const dir = makeTempDir('spm-schema-');
  const db = openDatabase(join(dir, 'schema.sqlite'));
  try {
    migrateSqlite(db);
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{
      name: string;
    }>;
    return Object.fromEntries(
      tables.map(({ name }) => [
        name,
        (db.prepare(`SELECT name FROM pragma_table_info('${name}')`).all() as Array<{ name: string }>)
          .map((column) => column.name)
          .sort(),
      ]),
    );
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

it("has SQLite's tables and columns (but the key column SQLite could not drop, and the brands' plan count)", async () => {
  const url = await postgres.database();
  const sqlite = sqliteColumns();
  sqlite.users = sqlite.users!.filter((column) => column !== 'api_key_hash');
  const columns = await postgresColumns(url);
  // Migration 2: what lets an instance trust a queue run it remembers (post-rows.ts); SQLite's one
  // process sees every change itself.
  // And migration 3: the times the latest change freed.
  const planColumns = ['plan_version', 'plan_freed_by', 'plan_freed'];
  expect(columns.brands).toEqual(expect.arrayContaining(planColumns));
  columns.brands = columns.brands!.filter((column) => !planColumns.includes(column));
  expect(columns).toEqual(sqlite);
});

it('makes an idempotency key (per brand), a delivery, a sandbox record and a natural key unique where SQLite does', async () => {
  const url = await postgres.database();
  const unique = await postgres.query<{ indexname: string; indexdef: string }>(
    url,
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexdef LIKE 'CREATE UNIQUE%'
     ORDER BY indexname`,
  );
  const definitions = unique.map((index) =>
    index.indexdef.replace(/ USING btree/g, '').replace(/public\./g, ''),
  );
  expect(definitions).toEqual(
    expect.arrayContaining([
      'CREATE UNIQUE INDEX posts_idempotency ON posts (brand_id, idempotency_key) WHERE (idempotency_key IS NOT NULL)',
      'CREATE UNIQUE INDEX deliveries_post_id_channel_id_key ON deliveries (post_id, channel_id)',
      'CREATE UNIQUE INDEX sandbox_outbox_kind_delivery_id_key ON sandbox_outbox (kind, delivery_id)',
      'CREATE UNIQUE INDEX media_brand_id_sha256_key ON media (brand_id, sha256)',
      'CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys (key_hash)',
      'CREATE UNIQUE INDEX brands_title_key ON brands (title)',
      'CREATE UNIQUE INDEX channels_brand_id_name_key ON channels (brand_id, name)',
      'CREATE UNIQUE INDEX collections_brand_id_title_key ON collections (brand_id, title)',
    ]),
  );
});

it('records each migration once and leaves an up-to-date database as it is', async () => {
  const url = await postgres.database({ empty: true });
  await (await openPostgresStore(url)).close();
  const applied = await postgres.query(url, 'SELECT version, applied_at FROM social_publisher_migrations');
  const all = Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1);
  expect(applied.map((row) => row.version)).toEqual(all);
  const store = await postgres.open(url);
  const id = await store.connections.storeId();
  await store.close();
  await (await openPostgresStore(url)).close();
  expect(await postgres.query(url, 'SELECT version, applied_at FROM social_publisher_migrations')).toEqual(
    applied,
  );
  expect(await postgres.query(url, 'SELECT value FROM store_meta')).toEqual([{ value: id }]);
});

it('migrates once when six instances open one fresh database at the same moment', async () => {
  for (let round = 0; round < 3; round++) {
    const url = await postgres.database({ empty: true });
    const stores = await Promise.all(
      Array.from({ length: 6 }, () => openPostgresStore(url, { poolSize: 2 })),
    );
    const ids = await Promise.all(stores.map((store) => store.connections.storeId()));
    await Promise.all(stores.map((store) => store.close()));
    expect(new Set(ids).size).toBe(1);
    expect(
      await postgres.query(url, 'SELECT version FROM social_publisher_migrations ORDER BY version'),
    ).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })));
  }
});

it('refuses a database migrated by a newer program, saying to upgrade', async () => {
  const url = await postgres.database({ empty: true });
  await (await openPostgresStore(url)).close();
  await postgres.query(url, 'INSERT INTO social_publisher_migrations (version) VALUES ($1)', [
    SCHEMA_VERSION + 1,
  ]);
  const opening = openPostgresStore(url);
  await expect(opening).rejects.toBeInstanceOf(StorageStartError);
  await expect(opening).rejects.toThrow(
    `schema version ${SCHEMA_VERSION + 1}, newer than this program knows`,
  );
});

it('refuses a server it cannot reach, naming it without the password', async () => {
  const url = postgres.server().url('missing_database');
  const opening = openPostgresStore(url);
  await expect(opening).rejects.toBeInstanceOf(StorageStartError);
  const message = await opening.catch((error: Error) => error.message);
  expect(message).toContain('/missing_database');
  expect(message).toContain('***');
  expect(message).not.toContain(new URL(url).password);
});
