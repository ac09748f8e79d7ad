/**
 * Six openers of one fresh data directory released at the same instant, each doing what `serve` does
 * at start (open the store, create the demo workspace if the store is empty, issue the missing API
 * keys). Each runs in its own worker thread with its own SQLite connection, held at a barrier until
 * all have loaded, so the starts overlap to the microsecond; a process start (test/cli/concurrent-
 * start.test.ts) overlaps far less. Every opener must succeed, the schema and the demo must be made
 * once, and exactly one key must be handed out: the one stored.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, expect, it } from 'vitest';
import { hashApiKey } from '../../src/service/acting-user.js';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { makeTempDir } from '../support/local.js';

const OPENERS = 6;
const ROUNDS = 4;

/** Worker code (CommonJS, run by `eval`): loads our TypeScript through tsx, waits, then starts. */
const OPENER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  (await import(workerData.tsx)).register();
  const { openLocalRuntime } = await import(workerData.runtime);
  const { issueMissingApiKeys } = await import(workerData.actingUser);
  parentPort.postMessage('ready');
  Atomics.wait(new Int32Array(workerData.barrier), 0, 0);
  try {
    const runtime = await openLocalRuntime({ dataDir: workerData.dataDir, demo: true });
    const keys = (await issueMissingApiKeys(runtime.store)).map((issued) => issued.apiKey);
    await runtime.close();
    parentPort.postMessage({ keys });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
})();
`;

const source = (path: string) => pathToFileURL(join(import.meta.dirname, '../../src', path)).href;

const dirs: string[] = [];
const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.terminate()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const nextMessage = (worker: Worker) =>
  new Promise<unknown>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });

async function openAllAtOnce(dataDir: string): Promise<Array<{ keys?: string[]; error?: string }>> {
  const barrier = new SharedArrayBuffer(4);
  const workerData = {
    tsx: import.meta.resolve('tsx/esm/api'),
    runtime: source('local-runtime.ts'),
    actingUser: source('service/acting-user.ts'),
    dataDir,
    barrier,
  };
  const round = Array.from({ length: OPENERS }, () => new Worker(OPENER, { eval: true, workerData }));
  workers.push(...round);
  await Promise.all(round.map(nextMessage)); // all loaded and waiting
  const outcomes = round.map(nextMessage);
  Atomics.store(new Int32Array(barrier), 0, 1);
  Atomics.notify(new Int32Array(barrier), 0);
  return (await Promise.all(outcomes)) as Array<{ keys?: string[]; error?: string }>;
}

function storedWorkspace(dataDir: string) {
  const db = openDatabase(join(dataDir, DATABASE_FILE));
  // A process that just exited may still be checkpointing its WAL: wait for it as the program does.
  db.exec('PRAGMA busy_timeout = 5000');
  try {
    return {
      users: db
        .prepare('SELECT u.name, k.key_hash AS keyHash FROM users u LEFT JOIN api_keys k ON k.user_id = u.id')
        .all(),
      brands: (db.prepare('SELECT title FROM brands ORDER BY id').all() as Array<{ title: string }>).map(
        (brand) => brand.title,
      ),
    };
  } finally {
    db.close();
  }
}

it(`${OPENERS} starts at one instant on a fresh store: all succeed, one schema, one demo, one key`, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const dataDir = makeTempDir('spm-concurrent-');
    dirs.push(dataDir);
    const outcomes = await openAllAtOnce(dataDir);
    expect(outcomes.filter((outcome) => outcome.error !== undefined)).toEqual([]);
    const keys = outcomes.flatMap((outcome) => outcome.keys ?? []);
    expect(keys).toHaveLength(1);
    expect(storedWorkspace(dataDir)).toEqual({
      users: [{ name: 'Demo User', keyHash: hashApiKey(keys[0]!) }],
      brands: ['Northwind Coffee', 'Kite & Key Studio'],
    });
    await Promise.all(workers.splice(0).map((worker) => worker.terminate()));
  }
}, 120_000);
