/**
 * A send whose answer was lost (the platform created the post, then no answer came), through the engine:
 * on a platform that recognises a repeated send (Mastodon, by Idempotency-Key) it is sent again with the
 * same key and published once; on one that cannot (Telegram) it fails with a reason saying why, and is
 * never sent again. Counted where it happens, at the platforms' stand-ins. A real scheduler on a real
 * store, connected channels on their loopback stand-ins, the connectors' deadline short.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ChannelConnectors } from '../../src/publish/channel-connectors.js';
import { mediaLoader } from '../../src/publish/media-loader.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { type MastodonServer, startMastodonServer } from '../support/mastodon-server.js';
import { CHANNEL, startTelegramServer, type TelegramServer } from '../support/telegram-server.js';

let rt: TestRuntime;
let mastodon: MastodonServer;
let telegram: TelegramServer;

beforeEach(async () => {
  rt = await openTestRuntime({ demo: false, now: Date.now() });
  mastodon = await startMastodonServer();
  telegram = await startTelegramServer();
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
});

afterEach(async () => {
  await rt.close();
  await mastodon.close();
  await telegram.close();
});

function scheduler(): Scheduler {
  const { store, secrets } = rt.runtime;
  const secretsByName: Record<string, string> = {
    ACME_MASTODON: mastodon.token,
    ACME_TELEGRAM: telegram.token,
  };
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
      timeoutMs: 500,
      userAgent: 'test',
    },
  });
  return new Scheduler({ store, clock: rt.clock, publisher: fallback, connectors });
}

async function publishTo(collectionTitle: string, caption: string) {
  const { store } = rt.runtime;
  const brandId = (await store.findBrandIdByTitle('Acme'))!;
  const collections = await store.listCollections(brandId, { limit: 10, offset: 0 });
  const collectionId = collections.find((c) => c.title === collectionTitle)!.id;
  const service = new LocalPublishingService(rt.runtime, (await store.onlyUser())!);
  const { id } = await service.createPost({ brandId, collectionId, publishMode: 'IMMEDIATE', caption });
  return async () => (await service.getPost({ brandId, postId: id! })).deliveries[0]!;
}

it('sends again, with its key, a send whose answer was lost on a platform that deduplicates: published once', async () => {
  const engine = scheduler();
  const delivery = await publishTo('Mastodon', 'Lost answer');
  mastodon.hangAfterCreatingNext(1);
  await engine.runOnce();
  const waiting = await delivery();
  expect(waiting.status).toBe('pending');
  expect(waiting.reason).toMatch(/Attempt 1 of 8 failed/);
  rt.clock.set(Date.parse(waiting.retryAt!));
  await engine.runOnce();

  const sent = await delivery();
  expect(sent.status).toBe('sent');
  expect(mastodon.statuses).toHaveLength(1);
  expect(sent.externalId).toBe(mastodon.statuses[0]!.id);
  const posts = mastodon.requests.filter((r) => r.path === '/api/v1/statuses' && r.method === 'POST');
  expect(posts).toHaveLength(2);
  expect(posts[0]!.idempotencyKey).not.toBeNull();
  expect(posts[1]!.idempotencyKey).toBe(posts[0]!.idempotencyKey);
});

it('fails, and never sends again, a send whose answer was lost on a platform that cannot deduplicate', async () => {
  const engine = scheduler();
  const delivery = await publishTo('Telegram', 'Lost answer');
  telegram.failNext(1, { kind: 'hang', afterRecording: true });
  await engine.runOnce();
  const failed = await delivery();
  expect(failed.status).toBe('failed');
  expect(failed.reason).toMatch(/whether it arrived is unknown/i);
  // Later passes, long after any retry would have come, send nothing more.
  rt.clock.advance(24 * 60 * 60_000);
  await engine.runOnce();
  expect(telegram.messages).toHaveLength(1);
  expect(telegram.callsOf('sendMessage')).toBe(1);
  expect((await delivery()).status).toBe('failed');
});
