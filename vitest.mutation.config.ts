/**
 * The tests StrykerJS runs against each mutant: those that run the sources in this process. Tests of the
 * built program (dist/), which a mutant of src/ never reaches, and the slow fuzz, memory and bundle runs
 * are left out.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/domain/**/*.test.ts',
      'test/contract/local.test.ts',
      'test/publish/scheduler.test.ts',
      'test/publish/claims.test.ts',
      'test/publish/webhook-publisher.test.ts',
      'test/publish/queue-index.test.ts',
      'test/mcp/*.test.ts',
      'test/rest/*.test.ts',
      'test/store/*.test.ts',
      'test/media/post-media.test.ts',
    ],
    exclude: ['test/mcp/handshake.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
