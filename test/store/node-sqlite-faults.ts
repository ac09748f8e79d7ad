/**
 * Run by transactions.test.ts under Node >= 22.13 (with tsx), where the driver is node:sqlite, the
 * MCP bundle's: its errors carry the SQLite code differently (`errcode`, maybe extended) and it tells
 * whether a transaction is open through another property. Prints what happened as one JSON line.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { Sql } from '../../src/store/sqlite/sql.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

function outcome(work: () => void): { name: string; message: string; cause: string | undefined } | 'ok' {
  try {
    work();
    return 'ok';
  } catch (error) {
    const { name, message, cause } = error as Error;
    return { name, message, cause: (cause as Error | undefined)?.message };
  }
}

const db = openDatabase(':memory:');
const sql = new Sql(db);
db.exec('CREATE TABLE t (x TEXT)');
const rows = () => sql.all('SELECT x FROM t ORDER BY rowid').map((row) => String(row.x));

sql.transaction(() => {
  sql.run('INSERT INTO t VALUES (?)', 'outer');
  outcome(() =>
    sql.transaction(() => {
      sql.run('INSERT INTO t VALUES (?)', 'inner');
      throw new Error('inner failed');
    }),
  );
});
const savepoint = rows();

db.exec(`PRAGMA max_page_count = ${Number(sql.get('PRAGMA page_count')?.page_count) + 1}`);
const full = outcome(() =>
  sql.transaction(() => {
    for (let i = 0; i < 100; i++) sql.run('INSERT INTO t VALUES (?)', 'x'.repeat(3000));
  }),
);
const afterFull = rows();

db.exec('PRAGMA query_only = 1');
const readOnly = outcome(() => sql.run('INSERT INTO t VALUES (?)', 'refused'));

const dir = mkdtempSync(join(tmpdir(), 'spm-node-sqlite-'));
writeFileSync(join(dir, 'bytes.sqlite'), Buffer.alloc(8192, 7));
const notADatabase = outcome(() => SqliteStore.open(join(dir, 'bytes.sqlite')).close());

// Another opener holds a fresh file's lock for a moment (node:sqlite, unlike better-sqlite3, does not
// wait for locks unless told to): opening must wait for it, not fail with "database is locked".
const lockedFile = join(dir, 'locked.sqlite');
const holder = new Worker(
  `const { workerData, parentPort } = require('node:worker_threads');
   const db = new (require('node:sqlite').DatabaseSync)(workerData);
   db.exec('BEGIN EXCLUSIVE');
   db.exec('CREATE TABLE held (x)');
   parentPort.postMessage('locked');
   Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
   db.exec('COMMIT');
   db.close();`,
  { eval: true, workerData: lockedFile },
);
await once(holder, 'message');
const waitsForLock = outcome(() => SqliteStore.open(lockedFile).close());
await holder.terminate();
rmSync(dir, { recursive: true, force: true });

process.stdout.write(
  `${JSON.stringify({ driver: db.driver, inTransaction: db.inTransaction, savepoint, full, afterFull, readOnly, notADatabase, waitsForLock })}\n`,
);
