/**
 * Instagram through the engine, against its stand-in whose containers process for two minutes by the
 * engine's clock:
 *
 * - an uploaded image reaches Instagram through the public address the context gives (as serve would
 *   sign one); the container's processing holds no send slot and is finished by whichever of two
 *   processes checks it then; the post is published once;
 * - a SCHEDULE post's container is made ahead of its time; the process that publishes it at the due
 *   second stops dead after Meta published it and before the answer came back (its claim left to
 *   expire): another process takes the delivery over, reads the container (PUBLISHED) and records the
 *   post with its id: `media_publish` was called once;
 * - an Instagram Login channel's token is renewed ahead of its post with the INSTAGRAM app's
 *   credentials (the connection's `login`), at graph.instagram.com's `refresh_access_token`.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { PlatformMedia } from '../../src/domain/delivery.js';
import { formatLocalTime } from '../../src/domain/time.js';
import { ChannelConnectors } from '../../src/publish/channel-connectors.js';
import { verifyInstagram } from '../../src/publish/connectors/instagram/instagram-account.js';
import { tokensOf, tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import { mediaLoader } from '../../src/publish/media-loader.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { ACME_INSTAGRAM, type InstagramServer, startInstagramServer } from '../support/instagram-server.js';
import type { TestRuntime } from '../support/local.js';
import { openEngineRuntime, openOAuthEngine, saveConnection } from '../support/oauth-engine.js';
import { JPEG, servedImage } from '../support/served-media.js';

const PROCESSING_MS = 2 * 60_000;
const LEASE_MS = 30_000;

let rt: TestRuntime;
let instagram: InstagramServer;
let files: Awaited<ReturnType<typeof servedImage>>;
let engine: Awaited<ReturnType<typeof openOAuthEngine>>;

beforeEach(async () => {
  rt = await openEngineRuntime();
  instagram = await startInstagramServer({ now: () => rt.clock.now(), processingMs: PROCESSING_MS });
  files = await servedImage();
  engine = await openOAuthEngine(
    rt,
    {
      name: 'Acme on Instagram',
      type: 'Instagram',
      connector: 'instagram',
      account: `@${ACME_INSTAGRAM.username}`,
      accountId: ACME_INSTAGRAM.id,
      instance: instagram.url,
    },
    () => tokensSecret({ accessToken: instagram.pageToken() }),
  );
});

afterEach(async () => {
  await instagram.close();
  await files.close();
  await rt.close();
});

const signed = async (_brandId: number, media: PlatformMedia) => `${files.url}/photo-${media.id}?sig=test`;

/** A process of the engine on the shared store. */
const scheduler = (timeoutMs = 2_000) =>
  engine.scheduler({ timeoutMs, publicMediaUrl: signed, leaseMs: LEASE_MS });

async function postImage(schedule?: { dueAtMs: number }, caption = 'A cup of the new roast') {
  const mediaId = await engine.upload('cup.jpg', JPEG);
  const read = await engine.publish({
    ...(schedule
      ? { publishMode: 'SCHEDULE', scheduledAt: formatLocalTime(schedule.dueAtMs, 'Europe/London') }
      : { publishMode: 'IMMEDIATE' }),
    caption,
    media: [{ id: mediaId }],
  });
  return { mediaId, read };
}

const publishes = () => instagram.kit.requestsTo('/:version/:id/media_publish');

it('an uploaded image goes by its public address; processing holds nothing; published once by either process', async () => {
  const engine = scheduler();
  const other = scheduler();
  const post = await postImage();
  await engine.runOnce();
  const waiting = (await post.read()).deliveries[0]!;
  expect(waiting.status).toBe('sending');
  expect(waiting.reason).toMatch(/processing/i);
  const [container] = instagram.containers.values();
  expect(container).toMatchObject({
    mediaUrl: `${files.url}/photo-${post.mediaId}?sig=test`,
    downloaded: JPEG.length,
  });
  const startedMs = rt.clock.now();
  let turn = 0;
  while (rt.clock.now() < startedMs + PROCESSING_MS + 120_000 && instagram.posts.length === 0) {
    rt.clock.advance(15_000);
    await (turn++ % 2 === 0 ? other : engine).runOnce();
  }
  const published = await post.read();
  expect(published.status).toBe('published');
  expect(published.deliveries[0]).toMatchObject({
    externalId: instagram.posts[0]!.id,
    url: instagram.posts[0]!.permalink,
  });
  expect(publishes()).toHaveLength(1);
  expect(instagram.containers.size).toBe(1);
});

it('a process stopped between Meta publishing and its answer: the other reads the container, publishes nothing twice', async () => {
  const dueAtMs = Math.ceil(rt.clock.now() / 1000) * 1000 + 10 * 60_000;
  const dead = scheduler(600_000);
  const post = await postImage({ dueAtMs });
  await dead.runOnce(); // the container, made ten minutes ahead, processes meanwhile
  expect(instagram.containers.size).toBe(1);
  for (let at = rt.clock.now() + 60_000; at < dueAtMs; at += 60_000) {
    rt.clock.set(at);
    await dead.runOnce();
  }
  expect(publishes()).toHaveLength(0);
  rt.clock.set(dueAtMs);
  instagram.kit.hangAfterCreating({ route: '/:version/:id/media_publish' });
  const stopped = dead.runOnce(); // never finishes: the process is gone, its claim left to expire
  await expect.poll(() => instagram.posts.length).toBe(1);
  const other = scheduler();
  for (let i = 0; i < 5 && (await post.read()).status !== 'published'; i++) {
    rt.clock.advance(LEASE_MS);
    await other.runOnce();
  }
  const published = await post.read();
  expect(published.status).toBe('published');
  expect(published.deliveries[0]!.externalId).toBe(instagram.posts[0]!.id);
  expect(publishes()).toHaveLength(1);
  expect(instagram.containers.size).toBe(1);
  await instagram.close(); // the stopped process's request ends (nothing of it may be recorded)
  await stopped.catch(() => undefined);
  expect((await post.read()).deliveries[0]!.externalId).toBe(instagram.posts[0]!.id);
});

it('an Instagram Login channel is renewed ahead of its post with the INSTAGRAM app, not the FACEBOOK one', async () => {
  const { store, secrets } = rt.runtime;
  const channelId = (await store.listChannels(1, { limit: 1, offset: 0 }))[0]!.id;
  const old = instagram.instagramToken(59 * 24 * 3_600_000);
  const expiresAtMs = rt.clock.now() + 30 * 60_000;
  const verified = await verifyInstagram({
    endpoint: instagram.url,
    secret: old,
    tokens: { accessToken: old, refreshToken: old, expiresAtMs },
    login: 'instagram',
    userAgent: 'test',
    timeoutMs: 2_000,
  });
  await saveConnection(rt, channelId, verified, { authRoot: instagram.url });
  const asked: string[] = [];
  const connectors = new ChannelConnectors({
    store,
    secrets,
    fallback: new SandboxPublisher(store.sandbox, rt.clock),
    readEnv: () => undefined,
    oauthApps: {
      get: (name) => {
        asked.push(name);
        return name === 'INSTAGRAM' ? instagram.apps.instagram : undefined;
      },
    },
    context: {
      loadMedia: mediaLoader(store, undefined, undefined),
      publicMediaUrl: signed,
      clock: rt.clock,
      log: () => undefined,
      timeoutMs: 2_000,
      userAgent: 'test',
    },
  });
  try {
    expect(await connectors.freshen(channelId, rt.clock.now() + 10 * 60_000)).toBe(false);
    expect(await connectors.freshen(channelId, rt.clock.now() + 60 * 60_000)).toBe(true);
    expect(asked).toEqual(['INSTAGRAM']);
    const [refresh] = instagram.kit.requestsTo('/refresh_access_token');
    expect(refresh?.query.get('grant_type')).toBe('ig_refresh_token');
    const stored = tokensOf(
      secrets.open((await store.connections.find(channelId))!.sealedSecret!, channelId),
    );
    expect(stored.accessToken).not.toBe(old);
    expect(instagram.tokens.get(stored.accessToken)).toMatchObject({
      kind: 'ig-long',
      account: ACME_INSTAGRAM.id,
    });
  } finally {
    await connectors.close();
  }
});

it('a spent publishing quota holds the post, and pre-flight then tells the next post of that account', async () => {
  await instagram.close();
  instagram = await startInstagramServer({ now: () => rt.clock.now(), processingMs: 0, quotaTotal: 1 });
  const { store } = rt.runtime;
  const channelId = (await store.listChannels(1, { limit: 1, offset: 0 }))[0]!.id;
  const connection = (await store.connections.find(channelId))!;
  await store.connections.save(channelId, { ...connection, endpoint: instagram.url }, rt.clock.now() + 1);
  const sender = scheduler();
  const settle = async (
    post: Awaited<ReturnType<typeof postImage>>,
    done: (status: string, reason: string | null) => boolean,
  ) => {
    for (let turn = 0; turn < 20; turn++) {
      await sender.runOnce();
      const delivery = (await post.read()).deliveries[0]!;
      if (done(delivery.status, delivery.reason)) return;
      rt.clock.advance(15_000);
    }
  };
  const first = await postImage();
  await settle(first, (status) => status === 'sent');
  expect((await first.read()).status).toBe('published');
  const second = await postImage(undefined, 'A second cup');
  await settle(second, (_status, reason) => reason?.includes('publishing limit') === true);
  const held = (await second.read()).deliveries[0]!;
  expect(held.reason).toContain('publishing limit');
  expect(held.retryAt).not.toBeNull();
  expect(publishes()).toHaveLength(1);
  const { service, brandId, collectionId } = engine;
  const dry = await service.createPost({
    brandId,
    collectionId,
    publishMode: 'IMMEDIATE',
    caption: 'And another',
    media: [{ id: second.mediaId }],
    dryRun: true,
  } as Parameters<typeof service.createPost>[0]);
  expect(JSON.stringify(dry)).toMatch(
    /Instagram said this account has nothing left of its limit or quota until/,
  );
});
