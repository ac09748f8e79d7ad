/**
 * The connector contract (test/support/connector-contract.ts) for Instagram, on its loopback stand-in,
 * signed in with Facebook Login (the Page's token): a post is an image the stand-in downloads from a
 * public address (served by the stand-in's own test route), a container, then its publish.
 */
import { verifyInstagram } from '../../src/publish/connectors/instagram/instagram-account.js';
import { openInstagram } from '../../src/publish/connectors/instagram/instagram-connector.js';
import { tokensOf } from '../../src/publish/connectors/oauth-tokens.js';
import {
  type ContractWorld,
  connectorContract,
  contractContext,
  contractJob,
} from '../support/connector-contract.js';
import { startInstagramServer } from '../support/instagram-server.js';
import { servedImage } from '../support/served-media.js';

async function setUpInstagram(): Promise<ContractWorld> {
  const server = await startInstagramServer();
  const files = await servedImage();
  const userToken = server.signIn.grant('fb-user');
  const verified = await verifyInstagram({
    endpoint: server.url,
    secret: userToken,
    tokens: { accessToken: userToken },
    userAgent: 'contract',
    timeoutMs: 5_000,
  });
  const withImage = (job: ReturnType<typeof contractJob>) => ({
    ...job,
    content: { ...job.content, media: [{ url: `${files.url}/photo.jpg`, type: 'image/jpeg' }] },
  });
  const kit = server.kit;
  const close = kit.close.bind(kit);
  kit.close = async () => {
    await files.close();
    await close();
  };
  return {
    kit,
    open: async (options) => openInstagram({ ...verified, channelId: 1 }, contractContext(options)),
    job: withImage(contractJob('Instagram')),
    createRoute: '/:version/:id/media_publish',
    published: () => server.posts.map((post) => post.id),
    // What the connector holds: the Page's token (it never sees the user's token or the app's secret).
    secrets: () => [tokensOf(verified.secret).accessToken],
    refusalStatus: 400,
    refusedJob: {
      job: withImage(contractJob('Instagram', 'x'.repeat(2_201))),
      said: 'too long for Instagram: 2201 characters',
    },
  };
}

connectorContract('instagram', setUpInstagram, {
  idempotent: false,
  steps: { prepare: true, confirm: true },
  confirmsByContent: true,
});
