/**
 * The connector contract's own check: a small reference connector with every optional step (prepare,
 * confirm) and the rate limit it reads from each answer passes it, on a plain platform of the kit. The
 * cases the real connectors do not reach yet (prepare, confirm, a reported `limit`) run here, so that
 * they are known to work when a connector gains those steps.
 */
import { connectorContract, contractJob } from '../support/connector-contract.js';
import { ACCOUNT, ReferencePublisher, startReferencePlatform } from '../support/reference-platform.js';

connectorContract(
  'reference',
  async () => {
    const { kit, token, posts } = await startReferencePlatform();
    return {
      kit,
      open: async (options) => new ReferencePublisher(kit.url, token, options),
      job: contractJob('Mastodon'),
      createRoute: '/posts',
      published: () => [...posts.values()].map((post) => post.id),
      secrets: () => kit.credentials.all(),
      account: ACCOUNT,
    };
  },
  { idempotent: true, steps: { prepare: true, confirm: true }, rateLimitHeaders: true },
);
