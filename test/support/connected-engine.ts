/**
 * A publishing engine in process over channels connected to platform stand-ins on loopback: a real
 * store (test runtime, fake clock at the wall clock's time), brand "Acme" with a Mastodon and a Telegram
 * channel, each alone in a collection named after its platform, their secrets read from the names the
 * workspace gives. `scheduler()` routes each channel to its connector as a server does.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Post } from '../../src/domain/post-schemas.js';
import type { PublishingEventSink } from '../../src/ports.js';
import { ChannelConnectors } from '../../src/publish/channel-connectors.js';
import { mediaLoader } from '../../src/publish/media-loader.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { openTestRuntime, type TestRuntime } from './local.js';
import { type MastodonServer, type MastodonServerOptions, startMastodonServer } from './mastodon-server.js';
import { CHANNEL, startTelegramServer, type TelegramServer } from './telegram-server.js';

export interface ConnectedEngine {
  rt: TestRuntime;
  mastodon: MastodonServer;
  telegram: TelegramServer;
  /**
   * A scheduler whose connectors give up on a platform's answer after `timeoutMs` (default 500), with
   * `inFlight` jobs at once (default the engine's).
   */
  scheduler(timeoutMs?: number, inFlight?: number, events?: PublishingEventSink): Scheduler;
  /** Creates a post in the collection of that platform; returns a reader of the post as it is now. */
  publishTo(
    platform: 'Mastodon' | 'Telegram',
    payload: Record<string, unknown>,
  ): Promise<{ postId: number; read(): Promise<Post> }>;
  /** Uploads a small MP4 to the brand: its media id. */
  uploadVideo(): Promise<string>;
  close(): Promise<void>;
}

/** The start of an MP4 file (an `ftyp` box): what the type detection reads. */
const MP4 = Uint8Array.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6d, 0x70, 0x34, 0x32, 0, 0, 0, 0]);

/** `mastodon`: the Mastodon stand-in's options, its clock the engine's (fake) clock. */
export async function openConnectedEngine(
  options: { mastodon?: Omit<MastodonServerOptions, 'now'> } = {},
): Promise<ConnectedEngine> {
  const rt = await openTestRuntime({ demo: false, now: Date.now() });
  const mastodon = await startMastodonServer(
    options.mastodon && { ...options.mastodon, now: () => rt.clock.now() },
  );
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
    scheduler(timeoutMs = 500, inFlight?: number, events?: PublishingEventSink) {
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
      return new Scheduler({
        store,
        clock: rt.clock,
        publisher: fallback,
        connectors,
        concurrency: inFlight,
        events,
      });
    },
    async publishTo(platform, payload) {
      const brandId = (await store.findBrandIdByTitle('Acme'))!;
      const collections = await store.listCollections(brandId, { limit: 10, offset: 0 });
      const collectionId = collections.find((c) => c.title === platform)!.id;
      const service = new LocalPublishingService(rt.runtime, (await store.onlyUser())!);
      const { id } = await service.createPost({ brandId, collectionId, ...payload });
      return { postId: id!, read: () => service.getPost({ brandId, postId: id! }) };
    },
    async uploadVideo() {
      const brandId = (await store.findBrandIdByTitle('Acme'))!;
      const path = join(rt.dataDir, 'clip.mp4');
      writeFileSync(path, MP4);
      const service = new LocalPublishingService(
        { ...rt.runtime, allowLocalPaths: true },
        (await store.onlyUser())!,
      );
      return (await service.uploadMedia({ brandId, path })).id;
    },
    async close() {
      await rt.close();
      await mastodon.close();
      await telegram.close();
    },
  };
}
