/** The connector contract (test/support/connector-contract.ts) for Google Business Profile, on its stand-in. */
import { verifyGoogleBusiness } from '../../src/publish/connectors/googlebusiness/business-account.js';
import { openGoogleBusiness } from '../../src/publish/connectors/googlebusiness/business-connector.js';
import {
  type ContractWorld,
  connectorContract,
  contractContext,
  contractJob,
} from '../support/connector-contract.js';
import { startGoogleBusinessServer } from '../support/google-business-server.js';

async function setUpGoogleBusiness(): Promise<ContractWorld> {
  const server = await startGoogleBusinessServer();
  const tokens = server.tokens();
  const verified = await verifyGoogleBusiness({
    endpoint: server.url,
    secret: tokens.accessToken,
    tokens,
    userAgent: 'contract',
    timeoutMs: 5_000,
  });
  return {
    kit: server,
    open: async (options) => openGoogleBusiness({ ...verified, channelId: 1 }, contractContext(options)),
    job: contractJob('Google Business'),
    createRoute: '/v4/accounts/:a/locations/:l/localPosts',
    published: () => server.posts.map((post) => post.name),
    secrets: () => [tokens.accessToken, tokens.refreshToken],
    refusedJob: {
      job: contractJob('Google Business', 'é'.repeat(1_501)),
      said: 'too long for Google Business Profile: 1501 characters',
    },
  };
}

connectorContract('googlebusiness', setUpGoogleBusiness, {
  idempotent: false,
  steps: { confirm: true },
  confirmsByContent: true,
});
