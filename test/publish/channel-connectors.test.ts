/**
 * Routing by channel: a connected channel's deliveries go to its connector (here Mastodon, on its
 * loopback stand-in), the others to the default publisher (the sandbox); a connection declared in a
 * workspace file reads its secret from the environment variable it names; bad credentials turn the
 * channel INACTIVE with a reason, and later posts fail on it before reaching the platform.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ChannelConnectors } from '../../src/publish/channel-connectors.js';
import { IDEMPOTENT_PLATFORMS } from '../../src/publish/connectors/registry.js';
import { mediaLoader } from '../../src/publish/media-loader.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { connectChannel } from '../../src/service/connections.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { type MastodonServer, startMastodonServer } from '../support/mastodon-server.js';

let rt: TestRuntime;
let mastodon: MastodonServer;
const env = new Map<string, string>();

beforeEach(async () => {
  rt = await openTestRuntime({ demo: false, now: Date.now() });
  mastodon = await startMastodonServer();
  env.clear();
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
          { name: 'Acme on Threads', type: 'Threads' },
        ],
        collections: [{ title: 'Both', channels: ['Acme on Mastodon', 'Acme on Threads'] }],
      },
    ],
    users: [{ name: 'Ada', timezone: 'Europe/London', apiKey: 'ada-key-0123456789', brands: ['Acme'] }],
  });
});

afterEach(async () => {
  await rt.close();
  await mastodon.close();
});

/** The engine's router over this store: connected channels to their connector, others to the sandbox. */
function channelConnectors() {
  const { store, secrets } = rt.runtime;
  const fallback = new SandboxPublisher(store.sandbox, rt.clock);
  const connectors = new ChannelConnectors({
    store,
    secrets,
    fallback,
    readEnv: (name) => env.get(name),
    context: {
      loadMedia: mediaLoader(store, undefined, undefined),
      clock: rt.clock,
      log: () => undefined,
      timeoutMs: 5_000,
      userAgent: 'test',
    },
  });
  return { fallback, connectors };
}

function scheduler() {
  const { fallback, connectors } = channelConnectors();
  return new Scheduler({ store: rt.runtime.store, clock: rt.clock, publisher: fallback, connectors });
}

const ids = async () => {
  const { store } = rt.runtime;
  const brandId = (await store.findBrandIdByTitle('Acme'))!;
  const collection = (await store.listCollections(brandId, { limit: 10, offset: 0 }))[0]!;
  const channelId = collection.channels.find((c) => c.type === 'Mastodon')!.id;
  return { brandId, collectionId: collection.id, channelId };
};

/** `engine`: a scheduler kept across calls, whose router keeps the connectors it opened. */
async function publish(caption: string, engine = scheduler()) {
  const { brandId, collectionId } = await ids();
  const user = (await rt.runtime.store.onlyUser())!;
  const { LocalPublishingService } = await import('../../src/service/local-service.js');
  const service = new LocalPublishingService(rt.runtime, user);
  const created = await service.createPost({ brandId, collectionId, publishMode: 'IMMEDIATE', caption });
  await engine.runOnce();
  return service.getPost({ brandId, postId: created.id! });
}

it('sends a connected channel to its platform with the secret from the named variable, and the others to the sandbox', async () => {
  env.set('ACME_MASTODON', mastodon.token);
  const post = await publish('Fresh beans');
  expect(post.status).toBe('published');
  expect(mastodon.statuses.map((s) => s.text)).toEqual(['Fresh beans']);
  const toMastodon = post.deliveries.find((d) => d.channelType === 'Mastodon')!;
  expect(toMastodon).toMatchObject({ status: 'sent', externalId: mastodon.statuses[0]!.id });
  expect(toMastodon.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/@publisher\/\d+$/);
  const toThreads = post.deliveries.find((d) => d.channelType === 'Threads')!;
  expect(toThreads.externalId).toBe(`sandbox-${toThreads.id}`);
  expect(
    (await rt.runtime.store.connections.activity((await ids()).channelId)).lastPublishedAtMs,
  ).not.toBeNull();
});

it('fails the delivery and turns the channel INACTIVE when the variable is not set, naming it', async () => {
  const post = await publish('No token');
  const toMastodon = post.deliveries.find((d) => d.channelType === 'Mastodon')!;
  expect(toMastodon.status).toBe('failed');
  expect(toMastodon.reason).toContain('ACME_MASTODON, which is not set');
  expect(mastodon.statuses).toEqual([]);
  const { brandId, channelId } = await ids();
  const channel = (await rt.runtime.store.findChannel(brandId, channelId))!;
  expect(channel.status).toBe('INACTIVE');
  expect((await rt.runtime.store.connections.activity(channel.id)).statusReason).toContain('ACME_MASTODON');
  expect(post.status).toBe('partially_published');
});

it('turns the channel INACTIVE on a revoked token, and a later post fails on it without reaching Mastodon', async () => {
  env.set('ACME_MASTODON', mastodon.token);
  mastodon.revoke(mastodon.token);
  const first = await publish('Revoked');
  expect(first.deliveries.find((d) => d.channelType === 'Mastodon')!.reason).toMatch(/connect mastodon/);
  const requests = mastodon.requests.length;
  const second = await publish('Still revoked');
  const failed = second.deliveries.find((d) => d.channelType === 'Mastodon')!;
  expect(failed.reason).toContain('INACTIVE');
  expect(mastodon.requests.length).toBe(requests);
});

it('opens the connector anew after a reconnect: the next post goes with the new token, not the revoked one', async () => {
  env.set('ACME_MASTODON', mastodon.token);
  const { fallback, connectors } = channelConnectors();
  const engine = new Scheduler({ store: rt.runtime.store, clock: rt.clock, publisher: fallback, connectors });
  const before = await publish('Before', engine);
  expect(before.deliveries.find((d) => d.channelType === 'Mastodon')!.status).toBe('sent');

  // The user revokes the token and connects the channel again with a new one, while the engine runs.
  mastodon.revoke(mastodon.token);
  const { store, secrets } = rt.runtime;
  const { brandId, channelId } = await ids();
  const { kind, account, accountId, endpoint, profileUrl, settings, capabilities } =
    (await store.connections.find(channelId))!;
  rt.clock.advance(1_000);
  const reconnected = await connectChannel(store, secrets, rt.clock, {
    brandId,
    type: 'Mastodon',
    connection: { kind, account, accountId, endpoint, profileUrl, settings, capabilities },
    secret: { value: mastodon.issueToken() },
    collectionIds: [],
  });
  expect(reconnected).toBe(channelId);

  const after = await publish('After', engine);
  expect(after.deliveries.find((d) => d.channelType === 'Mastodon')).toMatchObject({ status: 'sent' });
  expect(mastodon.statuses.map((s) => s.text)).toEqual(['Before', 'After']);
  await connectors.close();
});

it('waits for the time a rate limit names, then sends once', async () => {
  env.set('ACME_MASTODON', mastodon.token);
  mastodon.rateLimitNext('/api/v1/statuses', 1, { retryAfterSeconds: 40 });
  const waiting = await publish('Later');
  const delivery = waiting.deliveries.find((d) => d.channelType === 'Mastodon')!;
  expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
  expect(Date.parse(delivery.retryAt!) - rt.clock.now()).toBeGreaterThan(35_000);
  expect(mastodon.statuses).toEqual([]);
  await scheduler().runOnce();
  expect(mastodon.statuses).toEqual([]);
  rt.clock.advance(41_000);
  await scheduler().runOnce();
  expect(mastodon.statuses.map((s) => s.text)).toEqual(['Later']);
});

it('knows which connectors deduplicate without opening them, as each connector says', async () => {
  env.set('ACME_MASTODON', mastodon.token);
  const { connectors } = channelConnectors();
  const { channelId } = await ids();
  const opened = await connectors.forChannel(channelId);
  expect(opened.name).toBe('mastodon');
  expect(await connectors.idempotent(channelId)).toBe(opened.idempotent);
  expect(IDEMPOTENT_PLATFORMS.mastodon).toBe(true);
  const { openTelegram } = await import('../../src/publish/connectors/telegram/telegram-connector.js');
  const telegram = openTelegram(
    {
      kind: 'telegram',
      account: '@c',
      accountId: '-1001',
      endpoint: 'http://127.0.0.1:9',
      profileUrl: null,
      settings: {},
      capabilities: {} as never,
      channelId: 1,
      secret: 't',
    },
    {
      loadMedia: async () => {
        throw new Error('unused');
      },
      saveSecret: async () => {},
      clock: rt.clock,
      log: () => {},
      timeoutMs: 1,
      userAgent: 't',
    },
  );
  expect(telegram.idempotent).toBe(IDEMPOTENT_PLATFORMS.telegram);
  await connectors.close();
});
