/**
 * The tests StrykerJS runs against each mutant: the domain unit tests, the service contract suite, the
 * scheduler, claim and store tests, which run the mutated sources in this process and decide what a user
 * sees of publishing; and, for the pre-flight, the error hints and the connectors' limits and failure
 * classification, the tests that hold them: the MCP error-hint and pre-flight suites, and the connector
 * suites against their loopback stand-ins (Mastodon, Telegram) and a real PDS (Bluesky, test/pds), and the
 * connector contract run for each connector.
 * Left out: tests of the built program (dist/), which a mutant of src/ never reaches; the other MCP and
 * REST adapter suites, which run the same service through another layer at several times the cost per
 * mutant; the slow fuzz, memory and bundle runs.
 *
 * MUTATION_TESTS (comma-separated globs) runs only those, for a run over a few files whose tests are
 * known: `MUTATION_TESTS=test/domain/**,test/mcp/error-hints.test.ts npx stryker run --mutate …`.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: process.env.MUTATION_TESTS?.split(',') ?? [
      'test/domain/**/*.test.ts',
      'test/contract/local.test.ts',
      'test/publish/scheduler.test.ts',
      'test/publish/claims.test.ts',
      'test/publish/webhook-publisher.test.ts',
      'test/publish/queue-index.test.ts',
      'test/store/*.test.ts',
      'test/mcp/error-hints.test.ts',
      'test/mcp/error-wording.test.ts',
      'test/mcp/error-hint-paths.test.ts',
      'test/mcp/preflight-warnings.test.ts',
      'test/publish/mastodon-connector.test.ts',
      'test/publish/telegram-connector.test.ts',
      'test/publish/bluesky-connector.test.ts',
      'test/publish/linkedin-connector.test.ts',
      'test/publish/bluesky-limits.test.ts',
      'test/publish/preflight-sent-text.test.ts',
      'test/publish/channel-connectors.test.ts',
      'test/publish/failure-kinds.test.ts',
      'test/publish/bluesky-failures.test.ts',
      'test/publish/contract-mastodon.test.ts',
      'test/publish/contract-telegram.test.ts',
      'test/publish/contract-bluesky.test.ts',
      'test/publish/contract-linkedin.test.ts',
      'test/publish/contract-x.test.ts',
      'test/publish/x-connector.test.ts',
      'test/publish/x-tokens.test.ts',
      'test/publish/contract-facebook.test.ts',
      'test/publish/facebook-connector.test.ts',
      'test/publish/meta-graph.test.ts',
      'test/publish/contract-threads.test.ts',
      'test/publish/threads-connector.test.ts',
      'test/publish/contract-googlebusiness.test.ts',
      'test/publish/googlebusiness-connector.test.ts',
      'test/publish/token-endpoint.test.ts',
      'test/publish/contract-pinterest.test.ts',
      'test/publish/pinterest-connector.test.ts',
      'test/publish/pinterest-sign-in.test.ts',
      'test/publish/contract-tiktok.test.ts',
      'test/publish/tiktok-connector.test.ts',
      'test/publish/tiktok-tokens.test.ts',
      'test/publish/http-classification.test.ts',
      'test/publish/mastodon-steps.test.ts',
      'test/publish/media-source.test.ts',
      'test/publish/connector-registry.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
