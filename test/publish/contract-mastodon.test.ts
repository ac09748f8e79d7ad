/** The connector contract (test/support/connector-contract.ts) for Mastodon, on its loopback stand-in. */
import { verifyMastodon } from '../../src/publish/connectors/mastodon/mastodon-account.js';
import { openMastodon } from '../../src/publish/connectors/mastodon/mastodon-connector.js';
import {
  type ContractWorld,
  connectorContract,
  contractContext,
  contractJob,
} from '../support/connector-contract.js';
import { startMastodonServer } from '../support/mastodon-server.js';

async function setUpMastodon(): Promise<ContractWorld> {
  const server = await startMastodonServer({ rateLimit: {} });
  const verified = await verifyMastodon({ instance: server.url, token: server.token });
  return {
    kit: server.kit,
    open: async (options) => openMastodon({ ...verified, channelId: 1 }, contractContext(options)),
    job: contractJob('Mastodon'),
    createRoute: '/api/v1/statuses',
    published: () => server.statuses.map((status) => status.id),
    secrets: () => server.kit.credentials.all(),
    account: verified.accountId,
    refusalStatus: 422,
    refusedJob: {
      job: contractJob('Mastodon', 'x'.repeat(501)),
      said: 'Validation failed: Text character limit of 500 exceeded',
    },
  };
}

connectorContract('mastodon', setUpMastodon, {
  idempotent: true,
  rateLimitHeaders: true,
  steps: { prepare: true },
});
