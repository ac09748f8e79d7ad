/**
 * Databases on the run's PostgreSQL server (run-server.ts) for the test runtimes of one test file: a
 * database is made for the file's first runtime (about 260 ms), and handed to the next one once the
 * first is closed, emptied and with its ids counting from 1 again (under 10 ms), as a new database would
 * be. A runtime opened while another is still open gets a database of its own. The schema is the
 * store's: it migrates a new database when it opens it.
 */
import { Client } from 'pg';
import { inject } from 'vitest';
import { createDatabase } from './harness.js';
import { EMPTY_AND_RESTART_IDS } from './postgres-databases.js';
import './run-server.js';

export interface RunDatabase {
  url: string;
  /** Gives the database back for the file's next runtime: call it once the store on it is closed. */
  release(): void;
}

/** Databases of this file no runtime uses now (module state: vitest gives each file its own). */
const free: string[] = [];

function serverUrl(): string {
  const server = inject('postgresServer');
  if (!server) {
    throw new Error(
      'No PostgreSQL server for this run: only the files of the "postgres" project of vitest.config.ts get one.',
    );
  }
  if ('error' in server) throw new Error(`The run's PostgreSQL server did not start: ${server.error}`);
  return server.url;
}

async function empty(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(EMPTY_AND_RESTART_IDS);
  } finally {
    await client.end();
  }
}

/** A database nothing is stored in, for one runtime; see the file's comment. */
export async function takeRunDatabase(): Promise<RunDatabase> {
  const reused = free.pop();
  let url: string;
  if (reused === undefined) {
    url = await createDatabase(serverUrl());
  } else {
    url = reused;
    await empty(url);
  }
  return { url, release: () => free.push(url) };
}
