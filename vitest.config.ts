import { defineConfig } from 'vitest/config';

/**
 * The files that run a second time, in the `postgres` project, with their runtimes on PostgreSQL
 * (openTestRuntime, test/support/local.ts): the service contract in-process and through the REST
 * client, the REST API tests that read keys and store and list posts, media and queues, the MCP
 * lifecycle tools over the SDK client, the service's overlapping calls, create_post's pre-flight beside its transaction, claims between two schedulers
 * on one store, and connected channels. That project starts one PostgreSQL server for the run
 * (test/postgres/run-server.ts; needs `node test/postgres/install.mjs`). The `all` project runs every
 * file, its runtimes on SQLite.
 */
const ON_POSTGRES = [
  'test/contract/local.test.ts',
  'test/contract/remote.test.ts',
  'test/rest/auth.test.ts',
  'test/rest/create-post.test.ts',
  'test/rest/isolation.test.ts',
  'test/rest/lifecycle.test.ts',
  'test/rest/media-limits.test.ts',
  'test/rest/media.test.ts',
  'test/rest/pagination.test.ts',
  'test/rest/resources.test.ts',
  'test/rest/stored-limits.test.ts',
  'test/mcp/lifecycle-tools.test.ts',
  'test/service/concurrent-calls.test.ts',
  'test/service/create-post-preflight.test.ts',
  'test/service/preflight-video-length.test.ts',
  'test/publish/keep-signed-in.test.ts',
  'test/service/create-post-repeats.test.ts',
  'test/publish/channel-connectors.test.ts',
  'test/publish/claims.test.ts',
  'test/publish/refresh-secret.test.ts',
  'test/publish/channel-isolation.test.ts',
];

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    setupFiles: ['./test/support/temp-dirs-cleanup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'all', include: ['test/**/*.test.ts', 'src/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ON_POSTGRES,
          provide: { testStore: 'postgres' },
          globalSetup: ['test/postgres/run-server.ts'],
        },
      },
    ],
  },
});
