/** The connector contract (test/support/connector-contract.ts) for Pinterest, on its loopback stand-in. */
import type { DeliveryJob } from '../../src/ports.js';
import { verifyPinterest } from '../../src/publish/connectors/pinterest/pinterest-account.js';
import { openPinterest } from '../../src/publish/connectors/pinterest/pinterest-connector.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import {
  type ContractWorld,
  connectorContract,
  contractContext,
  contractJob,
} from '../support/connector-contract.js';
import { startPinterestServer } from '../support/pinterest-server.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

/** A pin needs media: the contract's post, with an uploaded image. */
function pinJob(caption?: string): DeliveryJob {
  const job = contractJob('Pinterest', caption);
  return { ...job, content: { ...job.content, title: 'Contract', media: [{ id: 'm1', type: 'image/png' }] } };
}

async function setUpPinterest(): Promise<ContractWorld> {
  const server = await startPinterestServer();
  const tokens = server.signedIn();
  const verified = await verifyPinterest({
    endpoint: server.url,
    secret: tokens.accessToken,
    tokens: { ...tokens, expiresAtMs: Date.now() + 30 * 86_400_000 },
    userAgent: 'contract',
    timeoutMs: 5_000,
  });
  return {
    kit: server.kit,
    open: async (options) =>
      openPinterest(
        { ...verified, channelId: 1 },
        { ...contractContext(options), loadMedia: async () => mediaFromBytes(PNG, 'image/png', 'm1.png') },
      ),
    job: pinJob(),
    createRoute: '/v5/pins',
    published: () => server.pins.map((pin) => pin.id),
    secrets: () => [...server.kit.credentials.all(), tokens.refreshToken],
    account: tokens.accessToken,
    refusedJob: { job: pinJob('x'.repeat(801)), said: 'at most 800' },
  };
}

connectorContract('pinterest', setUpPinterest, {
  idempotent: false,
  steps: { prepare: true, confirm: true },
  rateLimitHeaders: true,
  confirmsByContent: true,
});
