/**
 * The store made by the release before the job table (test/fixtures/store-before-jobs/), on PostgreSQL:
 * a database at that release's schema (PostgreSQL's migrations 1 to 5, as released) holding the rows
 * that release wrote (copied from its SQLite file: the two stores have the same tables and columns), then
 * opened by this version, migrated in place, and everything pending published once.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, it } from 'vitest';
import { type LocalRuntime, openLocalRuntime } from '../../src/local-runtime.js';
import type { Scheduler } from '../../src/publish/scheduler.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { FakeClock } from '../support/fake-clock.js';
import { makeTempDir } from '../support/local.js';
import { DIED, publishesWhatTheReleaseLeft, RELEASE_STORE } from '../support/release-store.js';
import { usePostgres } from './postgres-databases.js';

const postgres = usePostgres();
/** PostgreSQL's schema version of the release before the job table. */
const RELEASED_VERSION = 5;

let runtime: LocalRuntime | undefined;
let scheduler: Scheduler | undefined;
afterEach(async () => {
  await scheduler?.stop();
  await runtime?.close();
});

it('migrates a database of the release before the job table and publishes what it had pending, once each', async () => {
  const url = await postgres.database({ empty: true });
  await postgres.query(
    url,
    'CREATE TABLE social_publisher_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (let version = 1; version <= RELEASED_VERSION; version++) {
    await postgres.query(url, MIGRATIONS[version - 1]!);
    await postgres.query(url, 'INSERT INTO social_publisher_migrations (version) VALUES ($1)', [version]);
  }
  await copyReleaseRows(url);

  const clock = new FakeClock(DIED + 2 * 60_000);
  runtime = await openLocalRuntime(
    { dataDir: makeTempDir(), database: { url, poolSize: 4 }, demo: false },
    { clock },
  );
  scheduler = await publishesWhatTheReleaseLeft(runtime, clock, (text) => postgres.query(url, text));
});

/** Every row of the release's SQLite file into the same table and columns, ids kept, sequences moved on. */
async function copyReleaseRows(url: string): Promise<void> {
  // A copy: opening the fixture itself would have SQLite write beside it (its -wal and -shm files).
  const copy = join(makeTempDir('spm-release-'), 'release.sqlite');
  copyFileSync(RELEASE_STORE, copy);
  const sqlite = openDatabase(copy);
  try {
    // Parents before children (the foreign keys), and the store's id replaced by the release's.
    await postgres.query(url, 'DELETE FROM store_meta');
    const tables = [
      'users',
      'brands',
      'user_brands',
      'channels',
      'collections',
      'collection_channels',
      'media',
      'posts',
      'deliveries',
      'sandbox_outbox',
      'channel_connections',
      'store_meta',
      'api_keys',
    ];
    const present = new Set(
      (
        sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
      ).map((t) => t.name),
    );
    for (const table of tables.filter((name) => present.has(name))) {
      const columns = new Set(
        (
          await postgres.query<{ column_name: string }>(
            url,
            'SELECT column_name FROM information_schema.columns WHERE table_name = $1',
            [table],
          )
        ).map((c) => c.column_name),
      );
      for (const row of sqlite.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, unknown>>) {
        const names = Object.keys(row).filter((name) => columns.has(name));
        const values = names.map((name) => (typeof row[name] === 'bigint' ? Number(row[name]) : row[name]));
        await postgres.query(
          url,
          `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
          values,
        );
      }
    }
    for (const table of tables) {
      await postgres
        .query(
          url,
          `SELECT setval(seq, GREATEST((SELECT COALESCE(MAX(id), 0) FROM ${table}), 1))
        FROM pg_get_serial_sequence('${table}', 'id') AS seq WHERE seq IS NOT NULL`,
        )
        .catch(() => undefined);
    }
  } finally {
    sqlite.close();
  }
}
