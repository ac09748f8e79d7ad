/**
 * The tests StrykerJS runs against each mutant: the domain unit tests, the service contract suite, the
 * scheduler, claim and store tests, which run the mutated sources in this process and decide what a user
 * sees of publishing. Left out: tests of the built program (dist/), which a mutant of src/ never reaches;
 * the MCP and REST adapter suites, which run the same service through another layer at several times
 * the cost per mutant; the slow fuzz, memory and bundle runs.
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
      'test/store/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
