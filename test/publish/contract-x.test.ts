/** The connector contract (test/support/connector-contract.ts) for X, on its loopback stand-in. */
import { verifyX } from '../../src/publish/connectors/x/x-account.js';
import { openX } from '../../src/publish/connectors/x/x-connector.js';
import {
  type ContractWorld,
  connectorContract,
  contractContext,
  contractJob,
} from '../support/connector-contract.js';
import { startXServer } from '../support/x-server.js';

async function setUpX(): Promise<ContractWorld> {
  const server = await startXServer({ rateLimit: {} });
  const verified = await verifyX({ apiRoot: server.url, tokens: server.tokens() });
  return {
    kit: server.kit,
    open: async (options) =>
      openX(
        { ...verified, settings: { ...verified.settings, authRoot: server.url }, channelId: 1 },
        contractContext(options),
      ),
    job: contractJob('X/Twitter'),
    createRoute: '/2/tweets',
    published: () => server.posts.map((post) => post.id),
    // The tokens the connector holds (the contract gives it no app credentials to hide).
    secrets: () => [...server.kit.credentials.all(), ...server.signIn.issuedRefreshTokens],
    account: server.userId,
    refusalStatus: 403,
    refusedJob: { job: contractJob('X/Twitter', '字'.repeat(141)), said: 'Your Tweet text is too long.' },
  };
}

connectorContract('x', setUpX, {
  idempotent: false,
  rateLimitHeaders: true,
  steps: { prepare: true, confirm: true },
  confirmsByContent: true,
});
