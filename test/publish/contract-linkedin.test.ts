/** The connector contract (test/support/connector-contract.ts) for LinkedIn, on its loopback stand-in. */
import { verifyLinkedIn } from '../../src/publish/connectors/linkedin/linkedin-account.js';
import { openLinkedIn } from '../../src/publish/connectors/linkedin/linkedin-connector.js';
import {
  type ContractWorld,
  connectorContract,
  contractContext,
  contractJob,
} from '../support/connector-contract.js';
import { startLinkedInServer } from '../support/linkedin-server.js';

async function setUpLinkedIn(): Promise<ContractWorld> {
  const server = await startLinkedInServer();
  const verified = await verifyLinkedIn({
    endpoint: server.url,
    secret: server.token,
    tokens: { accessToken: server.token, expiresAtMs: Date.now() + 5_184_000_000 },
    userAgent: 'contract',
    timeoutMs: 5_000,
  });
  return {
    kit: server.kit,
    open: async (options) => openLinkedIn({ ...verified, channelId: 1 }, contractContext(options)),
    job: contractJob('LinkedIn'),
    createRoute: '/rest/posts',
    published: () => server.posts.map((post) => post.urn),
    secrets: () => server.kit.credentials.all(),
    refusalStatus: 422,
    refusedJob: {
      job: contractJob('LinkedIn', 'x'.repeat(3_001)),
      said: 'Field Value validation failed in REQUEST_BODY',
    },
  };
}

connectorContract('linkedin', setUpLinkedIn, { idempotent: false, steps: { prepare: true } });
