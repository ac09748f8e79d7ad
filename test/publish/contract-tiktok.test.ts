/**
 * The connector contract (test/support/connector-contract.ts) for TikTok, on its loopback stand-in: a
 * video post by FILE_UPLOAD, whose last chunk is what makes the post (the contract's "create" request).
 */
import type { DeliveryJob } from '../../src/ports.js';
import { verifyTikTok } from '../../src/publish/connectors/tiktok/tiktok-account.js';
import { openTikTok } from '../../src/publish/connectors/tiktok/tiktok-connector.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import {
  type ContractWorld,
  connectorContract,
  contractContext,
  contractJob,
} from '../support/connector-contract.js';
import { mp4Bytes } from '../support/tiktok-media.js';
import { startTikTokServer } from '../support/tiktok-server.js';

function videoJob(id: string): DeliveryJob {
  const job = contractJob('TikTok');
  return { ...job, content: { ...job.content, media: [{ id, type: 'video/mp4' }] } };
}

async function setUpTikTok(): Promise<ContractWorld> {
  const server = await startTikTokServer();
  const tokens = server.userTokens();
  const verified = await verifyTikTok({
    endpoint: server.url,
    secret: tokens.accessToken,
    tokens,
    userAgent: 'contract',
    timeoutMs: 5_000,
  });
  const videos: Record<string, Buffer> = { short: mp4Bytes(30), long: mp4Bytes(700) };
  return {
    kit: server.kit,
    open: async (options) =>
      openTikTok(
        { ...verified, channelId: 1 },
        {
          ...contractContext(options),
          loadMedia: async (_brandId, media) => mediaFromBytes(videos[media.id!]!, 'video/mp4', 'clip.mp4'),
        },
      ),
    job: videoJob('short'),
    createRoute: '/upload/',
    published: () => server.published(),
    // What the connector holds: the tokens, and the upload tokens TikTok gave it.
    secrets: () => [
      tokens.accessToken,
      tokens.refreshToken,
      ...[...server.publishes.values()].map((publish) => publish.uploadToken),
    ],
    account: tokens.accessToken,
    refusalStatus: 400,
    refusedJob: { job: videoJob('long'), said: 'at most 600 seconds' },
  };
}

connectorContract('tiktok', setUpTikTok, { idempotent: false });
