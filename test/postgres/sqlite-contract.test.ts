/**
 * The same contract suites on the SQLite store, each test on a fresh file: what the PostgreSQL store
 * is held to (store-contract.test.ts) is what the SQLite store does. Needs no PostgreSQL.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { makeTempDir } from '../support/local.js';
import { jobsContract } from './jobs.contract.js';
import { keysAndConnectionsContract } from './keys-and-connections.contract.js';
import { postsContract } from './posts.contract.js';
import { transactionsContract } from './transactions.contract.js';
import { workspaceContract } from './workspace.contract.js';

const opened: Array<{ store: SqliteStore; dir: string }> = [];
afterEach(async () => {
  for (const { store, dir } of opened.splice(0)) {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

async function open(): Promise<SqliteStore> {
  const dir = makeTempDir('spm-contract-');
  const store = SqliteStore.open(join(dir, 'store.sqlite'));
  opened.push({ store, dir });
  return store;
}

workspaceContract(open);
keysAndConnectionsContract(open);
postsContract(open);
jobsContract(open);
transactionsContract(open);
