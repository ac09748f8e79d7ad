/**
 * `Sql.transaction` on a real SQLite file: a nested transaction is a savepoint (an inner failure the
 * caller catches undoes only the inner writes), a rollback of any level empties the caches of table
 * contents, and a full disk inside a transaction surfaces as SQLite's own error (typed as
 * StorageFullError) rather than as the failure of our ROLLBACK after SQLite already rolled back.
 * Every check reads the file through a second connection, as another process would.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { StorageFullError } from '../../src/domain/errors.js';
import { openDatabase, type SqlDatabase } from '../../src/store/sqlite/driver.js';
import { Sql } from '../../src/store/sqlite/sql.js';
import { makeTempDir } from '../support/local.js';
import { node22 } from '../support/node22.js';

const opened: Array<{ close(): void }> = [];
const dirs: string[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A connection to a fresh file with one table `t (x)`, and a second connection to read it with. */
function scratch(wrap: (db: SqlDatabase) => SqlDatabase = (db) => db): { sql: Sql; rows(): string[] } {
  const dir = makeTempDir('spm-tx-');
  dirs.push(dir);
  const file = join(dir, 'scratch.sqlite');
  const db = openDatabase(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('CREATE TABLE t (x TEXT NOT NULL)');
  const sql = new Sql(wrap(db));
  const reader = openDatabase(file);
  opened.push(sql, reader);
  return {
    sql,
    rows: () =>
      (reader.prepare('SELECT x FROM t ORDER BY rowid').all() as Array<{ x: string }>).map((r) => r.x),
  };
}

const insert = (sql: Sql, x: string) => sql.run('INSERT INTO t (x) VALUES (?)', x);

describe('nested transactions are savepoints', () => {
  it('an inner failure the caller catches undoes only the inner writes; the outer commits the rest', () => {
    const { sql, rows } = scratch();
    sql.transaction(() => {
      insert(sql, 'outer before');
      expect(() =>
        sql.transaction(() => {
          insert(sql, 'inner');
          throw new Error('inner failed');
        }),
      ).toThrow('inner failed');
      insert(sql, 'outer after');
    });
    expect(rows()).toEqual(['outer before', 'outer after']);
  });

  it('an inner success is undone with the outer transaction when the outer fails', () => {
    const { sql, rows } = scratch();
    expect(() =>
      sql.transaction(() => {
        insert(sql, 'outer');
        sql.transaction(() => insert(sql, 'inner'));
        throw new Error('outer failed');
      }),
    ).toThrow('outer failed');
    expect(rows()).toEqual([]);
  });

  it('a failure two levels down, caught in the middle, keeps the middle and outer writes', () => {
    const { sql, rows } = scratch();
    sql.transaction(() => {
      insert(sql, 'outer');
      sql.transaction(() => {
        insert(sql, 'middle');
        try {
          sql.transaction(() => {
            insert(sql, 'inner');
            throw new Error('inner failed');
          });
        } catch {
          // Caught: the middle level goes on.
        }
      });
      // The savepoints are gone: a fourth level starts cleanly after them.
      sql.transaction(() => insert(sql, 'second middle'));
    });
    expect(rows()).toEqual(['outer', 'middle', 'second middle']);
  });

  it('a rolled-back savepoint empties the caches (they may hold what it wrote)', () => {
    const { sql } = scratch();
    const cache = sql.epochMap<string, string>();
    sql.transaction(() => {
      expect(() =>
        sql.transaction(() => {
          insert(sql, 'inner');
          cache.current().set('latest', 'inner');
          throw new Error('inner failed');
        }),
      ).toThrow('inner failed');
      expect(cache.current().get('latest')).toBeUndefined();
    });
  });

  it('prepares BEGIN, SAVEPOINT, RELEASE, ROLLBACK TO and COMMIT once each, however often they run', () => {
    const prepared = new Map<string, number>();
    const { sql } = scratch((db) => ({
      ...db,
      driver: db.driver,
      get inTransaction() {
        return db.inTransaction;
      },
      prepare: (text: string) => {
        prepared.set(text, (prepared.get(text) ?? 0) + 1);
        return db.prepare(text);
      },
      exec: (text: string) => db.exec(text),
      close: () => db.close(),
    }));
    for (let round = 0; round < 5; round++) {
      sql.transaction(() => {
        sql.transaction(() => insert(sql, `ok ${round}`));
        try {
          sql.transaction(() => {
            throw new Error('undone');
          });
        } catch {
          // As intended.
        }
      });
    }
    for (const text of ['BEGIN IMMEDIATE', 'SAVEPOINT sp_1', 'RELEASE sp_1', 'ROLLBACK TO sp_1', 'COMMIT']) {
      expect(prepared.get(text), text).toBe(1);
    }
  });
});

describe('a full disk inside a transaction', () => {
  /** Lets the file grow by only a page or two: SQLite then fails writes with SQLITE_FULL, and rolls back. */
  function nearlyFull(sql: Sql): void {
    const pages = Number(sql.get('PRAGMA page_count')?.page_count);
    sql.db.exec(`PRAGMA max_page_count = ${pages + 1}`);
  }

  function fill(sql: Sql): void {
    for (let i = 0; i < 200; i++) insert(sql, `row ${i} ${'x'.repeat(2000)}`);
  }

  it("surfaces SQLite's own error, not the failure of a ROLLBACK SQLite made pointless", () => {
    const { sql, rows } = scratch();
    nearlyFull(sql);
    let thrown: unknown;
    try {
      sql.transaction(() => fill(sql));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StorageFullError);
    expect((thrown as StorageFullError).cause).toMatchObject({ message: 'database or disk is full' });
    expect(rows()).toEqual([]);
    // The connection is whole: with room again, the next transaction commits.
    sql.db.exec('PRAGMA max_page_count = 1000000');
    sql.transaction(() => insert(sql, 'after'));
    expect(rows()).toEqual(['after']);
  });

  it('with a driver that cannot tell whether a transaction is open, still surfaces the real error', () => {
    const { sql, rows } = scratch((db) => ({
      driver: db.driver,
      inTransaction: undefined,
      prepare: (text: string) => db.prepare(text),
      prepareColumn: (text: string) => db.prepareColumn(text),
      exec: (text: string) => db.exec(text),
      close: () => db.close(),
    }));
    nearlyFull(sql);
    expect(() => sql.transaction(() => fill(sql))).toThrow(StorageFullError);
    expect(rows()).toEqual([]);
  });

  it('inside a savepoint whose failure the outer level catches: nothing is committed, nothing written after', () => {
    const { sql, rows } = scratch();
    insert(sql, 'committed before');
    nearlyFull(sql);
    let afterInner: unknown;
    expect(() =>
      sql.transaction(() => {
        insert(sql, 'outer');
        try {
          sql.transaction(() => fill(sql));
        } catch {
          // SQLite rolled back the whole transaction: a write now would be committed on its own.
          try {
            insert(sql, 'outer after the fault');
          } catch (error) {
            afterInner = error;
          }
        }
      }),
    ).toThrow(StorageFullError);
    expect(afterInner).toBeInstanceOf(StorageFullError);
    expect(rows()).toEqual(['committed before']);
  });
});

describe("on node:sqlite, the MCP bundle's driver", () => {
  it("nests as savepoints, types storage faults the same way, and waits for a starting opener's lock", () => {
    const script = fileURLToPath(new URL('./node-sqlite-faults.ts', import.meta.url));
    const output = execFileSync(node22(), ['--import', 'tsx', script], {
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(JSON.parse(output)).toEqual({
      driver: 'node:sqlite',
      inTransaction: false,
      savepoint: ['outer'],
      full: { name: 'StorageFullError', message: 'Insufficient Storage.', cause: 'database or disk is full' },
      afterFull: ['outer'],
      readOnly: {
        name: 'StorageReadOnlyError',
        message: 'Service Unavailable.',
        cause: 'attempt to write a readonly database',
      },
      notADatabase: {
        name: 'StorageStartError',
        message: expect.stringMatching(
          /bytes\.sqlite is not a readable SQLite database \(SQLite: file is not a database\)\. /,
        ),
        cause: 'file is not a database',
      },
      waitsForLock: 'ok',
    });
  }, 120_000);
});
