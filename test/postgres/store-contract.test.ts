/**
 * The Store port's contract suites on the PostgreSQL store, each test on a fresh database of a real
 * PostgreSQL server (needs `node test/postgres/install.mjs`). The suites are written against the port
 * alone, so that they run on the SQLite store just as well.
 */
import { expectTypeOf, it } from 'vitest';
import type { Store } from '../../src/ports.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { jobsContract } from './jobs.contract.js';
import { keysAndConnectionsContract } from './keys-and-connections.contract.js';
import { usePostgres } from './postgres-databases.js';
import { postsContract } from './posts.contract.js';
import { transactionsContract } from './transactions.contract.js';
import { workspaceContract } from './workspace.contract.js';

const postgres = usePostgres();
const open = () => postgres.open();

it('implements the Store port of ports.ts', () => {
  expectTypeOf<PostgresStore>().toExtend<Store>();
});

workspaceContract(open);
keysAndConnectionsContract(open);
postsContract(open);
jobsContract(open);
transactionsContract(open);
