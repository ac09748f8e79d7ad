/**
 * The SQLite driver: node:sqlite's API, from Node itself where it has it (>= 22.13), else from
 * @photostructure/sqlite (Node 20). What the store relies on is checked on each implementation this
 * process can load: the package is installed on every Node (an optional dependency), so on Node 22 and
 * later both run, and the one Node 20 uses is tested wherever the suite runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqlValue, sqliteDriver, sqliteErrorCode } from '../../src/store/sqlite/driver.js';

interface Statement {
  run(...params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
  setReturnArrays?(enabled: boolean): void;
}
interface Connection {
  exec(sql: string): void;
  prepare(sql: string): Statement;
  close(): void;
  readonly isTransaction: boolean;
}
type DatabaseSync = new (path: string, options?: { readOnly?: boolean }) => Connection;

function loadPackage(): DatabaseSync | undefined {
  try {
    return (createRequire(import.meta.url)('@photostructure/sqlite') as { DatabaseSync: DatabaseSync })
      .DatabaseSync;
  } catch {
    return undefined;
  }
}

const driver = sqliteDriver();
const implementations: Array<[string, DatabaseSync]> = [];
if (driver.name === 'node:sqlite') {
  implementations.push(['node:sqlite', driver.module.DatabaseSync as unknown as DatabaseSync]);
}
const fromPackage = loadPackage();
if (fromPackage) implementations.push(['@photostructure/sqlite', fromPackage]);

const dirs: string[] = [];
const opened: Array<{ close(): void }> = [];
afterEach(() => {
  for (const db of opened.splice(0)) {
    try {
      db.close();
    } catch {
      // Closed by the test.
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratchFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spm-driver-'));
  dirs.push(dir);
  return join(dir, 'store.sqlite');
}

function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('the driver chosen', () => {
  it('is node:sqlite from Node 22.13 on, @photostructure/sqlite before', () => {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    const builtIn = major > 22 || (major === 22 && minor >= 13);
    expect(driver.name).toBe(builtIn ? 'node:sqlite' : '@photostructure/sqlite');
    const db = openDatabase(':memory:');
    opened.push(db);
    expect(db.driver).toBe(driver.name);
  });

  it("has Node 20's driver installed, with a binary for this platform, whatever this Node", () => {
    expect(fromPackage, 'npm ci installs @photostructure/sqlite (optionalDependencies)').toBeDefined();
  });

  it('reads a first column as bare values, tells whether a transaction is open, opens read-only', () => {
    const file = scratchFile();
    const db = openDatabase(file);
    opened.push(db);
    db.exec('CREATE TABLE t (x INTEGER, y TEXT)');
    db.exec("INSERT INTO t VALUES (3, 'c'), (1, 'a'), (2, 'b')");
    expect(db.prepareColumn('SELECT x FROM t ORDER BY x').all()).toEqual([1, 2, 3]);
    expect(db.prepareColumn('SELECT y FROM t WHERE x > ? ORDER BY x').all(1)).toEqual(['b', 'c']);
    expect(db.prepareColumn('SELECT x FROM t WHERE x > 9').all()).toEqual([]);
    expect(db.inTransaction).toBe(false);
    db.exec('BEGIN');
    expect(db.inTransaction).toBe(true);
    db.exec('ROLLBACK');

    const reader = openDatabase(file, { readOnly: true });
    opened.push(reader);
    expect(reader.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 3 });
    expect(sqliteErrorCode(thrown(() => reader.exec("INSERT INTO t VALUES (4, 'd')")))).toBe(
      'SQLITE_READONLY',
    );
  });
});

describe.each(implementations)('%s, as the store uses it', (_name, DatabaseSync) => {
  function open(file = ':memory:'): Connection {
    const db = new DatabaseSync(file);
    opened.push(db);
    return db;
  }

  it('runs statements: changes and rowids, rows, bigints and blobs in and out', () => {
    const db = open();
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, b BLOB)');
    const insert = db.prepare('INSERT INTO t (n, b) VALUES (?, ?)');
    expect(insert.run(2n ** 40n, new Uint8Array([1, 2, 3]))).toEqual({ changes: 1, lastInsertRowid: 1 });
    expect(insert.run(7, null)).toEqual({ changes: 1, lastInsertRowid: 2 });
    const row = db.prepare('SELECT n, b FROM t WHERE id = ?').get(1) as { n: number; b: Uint8Array };
    expect(row.n).toBe(2 ** 40);
    expect(row.b).toBeInstanceOf(Uint8Array);
    expect([...row.b]).toEqual([1, 2, 3]);
    expect(db.prepare('SELECT id FROM t ORDER BY id').all()).toEqual([{ id: 1 }, { id: 2 }]);
    expect(db.prepare('SELECT id FROM t WHERE id = 9').get()).toBeUndefined();
    const arrays = db.prepare('SELECT id, n FROM t ORDER BY id');
    expect(typeof arrays.setReturnArrays).toBe('function');
    arrays.setReturnArrays?.(true);
    expect(arrays.all()).toEqual([
      [1, 2 ** 40],
      [2, 7],
    ]);
  });

  it('tells whether a transaction is open, also after SQLite rolled one back by itself (full disk)', () => {
    const db = open();
    db.exec('CREATE TABLE t (x TEXT)');
    expect(db.isTransaction).toBe(false);
    db.exec('BEGIN');
    expect(db.isTransaction).toBe(true);
    db.exec('COMMIT');
    const pages = Number((db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count);
    db.exec(`PRAGMA max_page_count = ${pages + 1}`);
    db.exec('BEGIN');
    const full = thrown(() => {
      for (let i = 0; i < 100; i++) db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(3000));
    });
    expect(sqliteErrorCode(full)).toBe('SQLITE_FULL');
    expect((full as Error).message).toBe('database or disk is full');
    expect(db.isTransaction).toBe(false);
  });

  it("carries SQLite's code in errcode, which the store turns into its typed faults", () => {
    const db = open();
    db.exec('CREATE TABLE t (x)');
    db.exec('PRAGMA query_only = 1');
    const readOnly = thrown(() => db.exec('INSERT INTO t VALUES (1)'));
    expect(readOnly).toBeInstanceOf(Error);
    expect(readOnly).toMatchObject({ code: 'ERR_SQLITE_ERROR', errcode: 8 });
    expect(sqliteErrorCode(readOnly)).toBe('SQLITE_READONLY');
    expect(sqliteErrorCode(thrown(() => db.exec('SELECT * FROM missing')))).toBeUndefined();
    expect(sqliteErrorCode(thrown(() => db.exec('ROLLBACK')))).toBeUndefined();
  });

  it('keeps a file in WAL mode, and a second connection waits for the write lock or says SQLITE_BUSY', () => {
    const file = scratchFile();
    const first = open(file);
    expect(first.prepare('PRAGMA journal_mode = WAL').get()).toEqual({ journal_mode: 'wal' });
    first.exec('CREATE TABLE t (x)');
    const second = open(file);
    expect(second.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    first.exec('BEGIN IMMEDIATE');
    second.exec('PRAGMA busy_timeout = 50');
    const started = performance.now();
    const busy = thrown(() => second.exec('BEGIN IMMEDIATE'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(40);
    expect(sqliteErrorCode(busy)).toBe('SQLITE_BUSY');
    // Readers go on beside the writer (WAL).
    expect(second.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 0 });
    first.exec('COMMIT');
    second.exec('BEGIN IMMEDIATE');
    second.exec('COMMIT');
  });

  it('refuses a file that is not a database with SQLITE_NOTADB', () => {
    const file = scratchFile();
    writeFileSync(file, Buffer.alloc(8192, 7));
    const db = open(file);
    expect(sqliteErrorCode(thrown(() => db.exec('PRAGMA journal_mode = WAL')))).toBe('SQLITE_NOTADB');
  });
});
