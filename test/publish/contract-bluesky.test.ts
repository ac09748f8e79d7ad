/**
 * The connector contract (test/support/connector-contract.ts) for Bluesky, on the PDS stand-in of
 * test/support/bluesky-xrpc-server.ts (a real PDS cannot be made to fail on cue; bluesky-connector.test.ts
 * covers what only a real one shows).
 */
import { verifyBluesky } from '../../src/publish/connectors/bluesky/bluesky-account.js';
import { openBluesky } from '../../src/publish/connectors/bluesky/bluesky-connector.js';
import { startXrpcServer } from '../support/bluesky-xrpc-server.js';
import {
  type ContractWorld,
  connectorContract,
  contractContext,
  contractJob,
} from '../support/connector-contract.js';

async function setUpBluesky(): Promise<ContractWorld> {
  const pds = await startXrpcServer({ rateLimit: {} });
  const verified = await verifyBluesky({ service: pds.url, handle: pds.handle, password: pds.appPassword });
  return {
    kit: pds.kit,
    open: async (options) => openBluesky({ ...verified, channelId: 1 }, contractContext(options)),
    job: contractJob('Bluesky'),
    createRoute: pds.route('com.atproto.repo.createRecord'),
    published: () =>
      pds.records.filter((record) => record.collection === 'app.bsky.feed.post').map((record) => record.uri),
    secrets: () => pds.kit.credentials.all(),
    account: pds.did,
  };
}

connectorContract('bluesky', setUpBluesky, {
  idempotent: true,
  rateLimitHeaders: true,
  steps: { prepare: true, confirm: true },
});
