/**
 * A publishing engine in process over channels connected to platform stand-ins on loopback: a real
 * store (test runtime, fake clock at the wall clock's time), brand "Acme" with a Mastodon and a Telegram
 * channel, each alone in a collection named after its platform, their secrets read from the names the
 * workspace gives. `scheduler()` routes each channel to its connector as a server does.
 */
import type { Post } from '../../src/domain/post-schemas.js';
import { ChannelConnectors } from '../../src/publish/channel-connectors.js';
import { mediaLoader } from '../../src/publish/media-loader.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { openTestRuntime, type TestRuntime } from './local.js';
import { type MastodonServer, startMastodonServer } from './mastodon-server.js';
import { CHANNEL, startTelegramServer, type TelegramServer } from './telegram-server.js';

export interface ConnectedEngine {
  rt: TestRuntime;
  mastodon: MastodonServer;
  telegram: TelegramServer;
  /** A scheduler whose connectors give up on a platform's answer after `timeoutMs` (default 500). */
  scheduler(timeoutMs?: number): Scheduler;
  /** Creates a post in the collection of that platform; returns a reader of the post as it is now. */
  publishTo(
    platform: 'Mastodon' | 'Telegram',
    payload: Record<string, unknown>,
  ): Promise<{ postId: number; read(): Promise<Post> }>;
  close(): Promise<void>;
}

export async function openConnectedEngine(): Promise<ConnectedEngine> {
  const rt = await openTestRuntime({ demo: false, now: Date.now() });
  const mastodon = await startMastodonServer();
  const telegram = await startTelegramServer();
  await rt.importWorkspace({
    brands: [
      {
        title: 'Acme',
        timezone: 'Europe/London',
        channels: [
          {
            name: 'Acme on Mastodon',
            type: 'Mastodon',
            connection: {
              connector: 'mastodon',
              account: '@publisher',
              instance: mastodon.url,
              secretEnv: 'ACME_MASTODON',
            },
          },
          {
            name: 'Acme on Telegram',
            type: 'Telegram',
            connection: {
              connector: 'telegram',
              account: `@${CHANNEL.username}`,
              instance: telegram.url,
              secretEnv: 'ACME_TELEGRAM',
            },
          },
        ],
        collections: [
          { title: 'Mastodon', channels: ['Acme on Mastodon'] },
          { title: 'Telegram', channels: ['Acme on Telegram'] },
        ],
      },
    ],
    users: [{ name: 'Ada', timezone: 'Europe/London', apiKey: 'ada-key-0123456789', brands: ['Acme'] }],
  });
  const { store, secrets } = rt.runtime;
  const secretsByName: Record<string, string> = {
    ACME_MASTODON: mastodon.token,
    ACME_TELEGRAM: telegram.token,
  };
  return {
    rt,
    mastodon,
    telegram,
    scheduler(timeoutMs = 500) {
      const fallback = new SandboxPublisher(store.sandbox, rt.clock);
      const connectors = new ChannelConnectors({
        store,
        secrets,
        fallback,
        readEnv: (name) => secretsByName[name],
        context: {
          loadMedia: mediaLoader(store, undefined, undefined),
          clock: rt.clock,
          log: () => undefined,
          timeoutMs,
          userAgent: 'test',
        },
      });
      return new Scheduler({ store, clock: rt.clock, publisher: fallback, connectors });
    },
    async publishTo(platform, payload) {
      const brandId = (await store.findBrandIdByTitle('Acme'))!;
      const collections = await store.listCollections(brandId, { limit: 10, offset: 0 });
      const collectionId = collections.find((c) => c.title === platform)!.id;
      const service = new LocalPublishingService(rt.runtime, (await store.onlyUser())!);
      const { id } = await service.createPost({ brandId, collectionId, ...payload });
      return { postId: id!, read: () => service.getPost({ brandId, postId: id! }) };
    },
    async close() {
      await rt.close();
      await mastodon.close();
      await telegram.close();
    },
  };
}
