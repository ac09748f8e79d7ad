/** The connector contract (test/support/connector-contract.ts) for Facebook Pages, on its loopback stand-in. */
import { verifyFacebook } from '../../src/publish/connectors/facebook/facebook-account.js';
import { openFacebook } from '../../src/publish/connectors/facebook/facebook-connector.js';
import {
  type ContractWorld,
  connectorContract,
  contractContext,
  contractJob,
} from '../support/connector-contract.js';
import { startFacebookServer } from '../support/facebook-server.js';

async function setUpFacebook(): Promise<ContractWorld> {
  const server = await startFacebookServer();
  const userToken = server.userToken();
  const verified = await verifyFacebook({
    endpoint: server.url,
    account: server.main.id,
    secret: userToken,
    tokens: { accessToken: userToken },
    userAgent: 'contract',
    timeoutMs: 5_000,
  });
  return {
    kit: server.kit,
    open: async (options) => openFacebook({ ...verified, channelId: 1 }, contractContext(options)),
    job: contractJob('Facebook'),
    createRoute: '/:version/:page/feed',
    published: () => server.posts.map((post) => post.id),
    // The token the connector holds: the Page's (the user token and the other Pages' never reach it).
    secrets: () => [server.main.token],
    account: server.main.id,
    refusalStatus: 400,
    refusedJob: { job: contractJob('Facebook', 'x'.repeat(63_207)), said: 'The message is too long.' },
  };
}

connectorContract('facebook', setUpFacebook, { idempotent: false, steps: { prepare: true } });
