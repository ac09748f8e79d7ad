/**
 * The vitest globalSetup of the `postgres` project (vitest.config.ts): one PostgreSQL server
 * (harness.ts) for the whole run, started only when a file of that project runs and stopped at its end.
 * Test files reach it through `inject('postgresServer')` and make databases of their own there
 * (run-databases.ts). A server that cannot start (test/postgres not installed, say) is passed on as its
 * reason, which then fails each test that needs it, rather than the whole run.
 */
import type { TestProject } from 'vitest/node';
import { startPostgres } from './harness.js';

/** The run's server: the URL of its `postgres` database as its superuser, or why it did not start. */
export type RunServer = { url: string } | { error: string };

declare module 'vitest' {
  export interface ProvidedContext {
    postgresServer: RunServer;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  try {
    const server = await startPostgres();
    project.provide('postgresServer', { url: server.url() });
    return () => server.stop();
  } catch (error) {
    project.provide('postgresServer', { error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}
