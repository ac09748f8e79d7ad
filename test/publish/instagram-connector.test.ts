/**
 * What is Instagram's own (the contract holds the rest): what each post field becomes as containers
 * (an image, a carousel, a Reel with every `platforms.instagram` field, a Story), the media the stand-in
 * downloads from the public addresses it is given, a container Meta processes (pending, then published
 * by `check`, once), a container that fails (the delivery fails with Meta's reason), the publishing
 * quota, the auto-comment, and Instagram Login's token renewed before it expires.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlatformMedia } from '../../src/domain/delivery.js';
import type { DeliveryJob, Publisher } from '../../src/ports.js';
import type { ConnectorContext } from '../../src/publish/connector.js';
import { verifyInstagram } from '../../src/publish/connectors/instagram/instagram-account.js';
import { openInstagram } from '../../src/publish/connectors/instagram/instagram-connector.js';
import { tokensOf, tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import { contractJob } from '../support/connector-contract.js';
import { ACME_INSTAGRAM, type InstagramServer, startInstagramServer } from '../support/instagram-server.js';
import { JPEG, MP4, servedImage } from '../support/served-media.js';

let server: InstagramServer;
let files: Awaited<ReturnType<typeof servedImage>>;
let nowMs: number;
let publisher: Publisher;

async function start(options: Parameters<typeof startInstagramServer>[0] = {}) {
  await server?.close();
  server = await startInstagramServer({ now: () => nowMs, ...options });
  publisher = await open();
}

beforeEach(async () => {
  nowMs = Date.UTC(2027, 0, 5, 9);
  files = await servedImage();
  server = undefined as unknown as InstagramServer;
  await start();
});

afterEach(async () => {
  await publisher.close?.();
  await files.close();
  await server.close();
});

function context(extra: Partial<ConnectorContext> = {}): ConnectorContext {
  return {
    loadMedia: async () => {
      throw new Error('Instagram never reads a file itself.');
    },
    publicMediaUrl: async (_brandId, media) => media.url ?? `${files.url}/photo-${media.id}.jpg`,
    saveSecret: async () => {},
    clock: { now: () => nowMs },
    log: () => {},
    timeoutMs: 5_000,
    userAgent: 'test',
    ...extra,
  };
}

async function open(extra: Partial<ConnectorContext> = {}) {
  const userToken = server.signIn.grant('fb-user');
  const verified = await verifyInstagram({
    endpoint: server.url,
    secret: userToken,
    tokens: { accessToken: userToken },
    userAgent: 'test',
    timeoutMs: 5_000,
  });
  return openInstagram({ ...verified, channelId: 1 }, context(extra));
}

function job(content: Partial<DeliveryJob['content']> = {}, state: DeliveryJob['state'] = {}): DeliveryJob {
  const base = contractJob('Instagram', 'Fresh beans today');
  return { ...base, content: { ...base.content, media: photos(1), ...content }, state };
}

const photos = (count: number): PlatformMedia[] =>
  Array.from({ length: count }, (_, i) => ({ url: `${files.url}/photo-${i + 1}.jpg`, type: 'image/jpeg' }));
const video: PlatformMedia = { url: `http://127.0.0.1:1/never`, type: 'video/mp4' };
const clip = (): PlatformMedia => ({ url: `${files.url}/video-1.mp4`, type: 'video/mp4' });
const publishes = () => server.kit.requestsTo('/:version/:id/media_publish');
const containerRequests = () => server.kit.requestsTo('/:version/:id/media', 'POST');

describe('Instagram: what a post becomes', () => {
  it('an image: downloaded by Instagram, with caption, link, alt text, location and collaborators; the permalink', async () => {
    const outcome = await publisher.deliver(
      job({
        link: 'https://acme.example/beans',
        alt: 'A cup of coffee on a wooden table',
        overrides: { location: { id: '110843418940484', name: 'Acme Roastery' }, collab: '@ada, grace' },
      }),
    );
    const [post] = server.posts;
    expect(outcome).toEqual({ ok: true, externalId: post!.id, url: post!.permalink });
    expect(post!.permalink).toMatch(/^https:\/\/www\.instagram\.com\/p\//);
    const [container] = server.containers.values();
    expect(container).toMatchObject({ mediaType: 'IMAGE', downloaded: JPEG.length });
    expect(container!.fields).toEqual({
      image_url: `${files.url}/photo-1.jpg`,
      alt_text: 'A cup of coffee on a wooden table',
      caption: 'Fresh beans today\n\nhttps://acme.example/beans',
      location_id: '110843418940484',
      collaborators: '["ada","grace"]',
    });
    expect(files.fetched).toEqual(['/photo-1.jpg']);
    expect(publishes()).toHaveLength(1);
  });

  it('a carousel: one item per file (a video as VIDEO), then a CAROUSEL of their ids', async () => {
    const outcome = await publisher.deliver(job({ media: [...photos(2), clip()] }));
    expect(outcome).toMatchObject({ ok: true });
    const all = [...server.containers.values()];
    const items = all.filter((c) => c.carouselItem);
    expect(items.map((c) => c.mediaType)).toEqual(['IMAGE', 'IMAGE', 'VIDEO']);
    expect(items.map((c) => c.downloaded)).toEqual([JPEG.length, JPEG.length, MP4.length]);
    const carousel = all.find((c) => c.mediaType === 'CAROUSEL')!;
    expect(carousel.children).toEqual(items.map((c) => c.id));
    expect(carousel.fields.caption).toBe('Fresh beans today');
    expect(server.posts).toHaveLength(1);
  });

  it('a carousel of 11 is refused before any container is made', async () => {
    const outcome = await publisher.deliver(job({ media: photos(11) }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('at most 10'),
    });
    expect(containerRequests()).toHaveLength(0);
  });

  it('a video is a Reel with shareToFeed, trialReel, collab and location', async () => {
    const outcome = await publisher.deliver(
      job({
        media: [clip()],
        overrides: {
          shareToFeed: false,
          trialReel: 'manual',
          collab: 'ada',
          location: { id: '7', name: 'X' },
        },
      }),
    );
    expect(outcome).toMatchObject({ ok: true, url: expect.stringMatching(/instagram\.com\/reel\//) });
    const [container] = server.containers.values();
    expect(container!.fields).toEqual({
      media_type: 'REELS',
      video_url: `${files.url}/video-1.mp4`,
      share_to_feed: 'false',
      trial_params: '{"graduation_strategy":"MANUAL"}',
      caption: 'Fresh beans today',
      location_id: '7',
      collaborators: '["ada"]',
    });
  });

  it('a trialReel Meta does not know is refused before any container', async () => {
    const outcome = await publisher.deliver(job({ media: [clip()], overrides: { trialReel: 'SOMETIMES' } }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('MANUAL or SS_PERFORMANCE'),
    });
    expect(containerRequests()).toHaveLength(0);
  });

  it('a Story: STORIES with the file only (no caption, no collaborators)', async () => {
    const outcome = await publisher.deliver(job({ format: 'story', overrides: { collab: 'ada' } }));
    expect(outcome).toMatchObject({ ok: true, url: expect.stringMatching(/instagram\.com\/stories\//) });
    const [container] = server.containers.values();
    expect(container!.fields).toEqual({ media_type: 'STORIES', image_url: `${files.url}/photo-1.jpg` });
    const two = await publisher.deliver(job({ format: 'story', media: photos(2) }));
    expect(two).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('one image or video'),
    });
  });

  it('an uploaded file without a public address is refused naming SOCIAL_PUBLISHER_PUBLIC_URL', async () => {
    await publisher.close?.();
    publisher = await open({ publicMediaUrl: async () => undefined });
    const outcome = await publisher.deliver(job({ media: [{ id: 'm1', type: 'image/jpeg' }] }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('SOCIAL_PUBLISHER_PUBLIC_URL'),
    });
    expect(containerRequests()).toHaveLength(0);
  });

  it('the auto-comment goes on the published media', async () => {
    const sent = await publisher.deliver(job());
    const externalId = sent.ok === true ? sent.externalId : null;
    const base = { deliveryId: 1, postId: 1, brandId: 1, channel: job().channel, idempotencyKey: 'c-1' };
    const outcome = await publisher.comment({ ...base, externalId, comment: 'Brewing now ☕' });
    expect(outcome).toMatchObject({ ok: true, externalId: expect.any(String) });
    expect(server.posts[0]!.comments).toEqual(['Brewing now ☕']);
  });
});

describe('Instagram: containers and the quota', () => {
  it('a processing container is pending, and check publishes it once it is FINISHED', async () => {
    await start({ processingMs: 90_000 });
    const pending = await publisher.deliver(job({ media: [clip()] }));
    expect(pending).toMatchObject({ ok: 'pending', reason: expect.stringMatching(/processing/) });
    expect(publishes()).toHaveLength(0);
    const state = pending.ok === 'pending' ? pending.state : {};
    nowMs += 30_000;
    expect(await publisher.check!(job({ media: [clip()] }, state))).toMatchObject({ ok: 'pending' });
    nowMs += 60_000;
    const sent = await publisher.check!(job({ media: [clip()] }, state));
    expect(sent).toMatchObject({ ok: true, externalId: server.posts[0]!.id });
    expect(publishes()).toHaveLength(1);
    expect(server.containers.size).toBe(1);
  });

  it('a carousel with a video waits for its items to process before the carousel is made, then publishes once', async () => {
    await start({ processingMs: 90_000 });
    const carousel = job({ media: [photos(1)[0]!, clip()] });
    const pending = await publisher.deliver(carousel);
    expect(pending).toMatchObject({ ok: 'pending' });
    const state = pending.ok === 'pending' ? pending.state : {};
    expect(state).toMatchObject({ containerId: '', children: [expect.any(String), expect.any(String)] });
    expect([...server.containers.values()].map((c) => c.mediaType)).toEqual(['IMAGE', 'VIDEO']);
    nowMs += 90_000;
    const sent = await publisher.check!({ ...carousel, state });
    expect(sent).toMatchObject({ ok: true, externalId: server.posts[0]!.id });
    expect(server.posts[0]!.mediaType).toBe('CAROUSEL');
    expect(publishes()).toHaveLength(1);
    expect(containerRequests()).toHaveLength(3);
  });

  it('prepared ahead, the due second sends only the publish; a published container is never published again', async () => {
    const prepared = await publisher.prepare!(job());
    expect(prepared).toMatchObject({ ok: 'prepared' });
    const state = prepared.ok === 'prepared' ? prepared.state : {};
    const before = server.kit.log.length;
    expect(await publisher.deliver(job({}, state))).toMatchObject({ ok: true });
    const due = server.kit.log.slice(before).map((r) => `${r.method} ${r.route}`);
    expect(due.filter((r) => r.startsWith('POST'))).toEqual(['POST /:version/:id/media_publish']);
    expect(await publisher.deliver(job({}, state))).toEqual({ ok: true, externalId: null, url: null });
    expect(publishes()).toHaveLength(1);
    expect(containerRequests()).toHaveLength(1);
  });

  it('a prepared container 23 hours old, or one Meta says EXPIRED, is made again at the due time: one post', async () => {
    const prepared = await publisher.prepare!(job());
    const state = prepared.ok === 'prepared' ? prepared.state : {};
    nowMs += 23 * 3_600_000 + 1;
    expect(await publisher.deliver(job({}, state))).toMatchObject({ ok: true });
    expect(containerRequests()).toHaveLength(2);
    // A state that says it is young, of a container Meta let expire (24 hours unpublished).
    const again = await publisher.prepare!(job());
    nowMs += 25 * 3_600_000;
    const young = { ...(again.ok === 'prepared' ? again.state : {}), sinceMs: nowMs };
    expect(await publisher.deliver(job({}, young))).toMatchObject({ ok: true });
    expect(containerRequests()).toHaveLength(4);
    expect(publishes()).toHaveLength(2);
  });

  it('a video Instagram cannot download fails the delivery with Meta’s reason; an image is refused at once', async () => {
    const outcome = await publisher.deliver(job({ media: [video] }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('Media download has failed'),
    });
    expect(outcome).toMatchObject({
      reason: expect.stringContaining('fetch the media address from the internet'),
    });
    const image = await publisher.deliver(job({ media: [{ url: `${files.url}/missing.jpg` }] }));
    expect(image).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('could not be fetched'),
    });
    expect(publishes()).toHaveLength(0);
  });

  it('a spent publishing quota holds the post before the publish, an hour at a time, saying so', async () => {
    await start({ quotaTotal: 1 });
    expect(await publisher.deliver(job())).toMatchObject({ ok: true });
    const outcome = await publisher.deliver(job());
    expect(outcome).toMatchObject({ ok: false, kind: 'rate_limited', retryAfterMs: 3_600_000 });
    expect(outcome).toMatchObject({ reason: expect.stringContaining('1 of 1 posts in the last 24 hours') });
    expect(publishes()).toHaveLength(1);
    nowMs += 24 * 3_600_000 + 1;
    expect(await publisher.deliver(job())).toMatchObject({ ok: true });
  });
});

describe('Instagram Login', () => {
  it('verify reads the account with /me; a token near its end is renewed with ig_refresh_token first', async () => {
    const token = server.instagramToken(59 * 24 * 3_600_000);
    const tokens = { accessToken: token, refreshToken: token, expiresAtMs: nowMs + 60_000 };
    const verified = await verifyInstagram({
      endpoint: server.url,
      secret: token,
      tokens,
      login: 'instagram',
      userAgent: 'test',
      timeoutMs: 5_000,
    });
    expect(verified).toMatchObject({
      account: `@${ACME_INSTAGRAM.username}`,
      accountId: ACME_INSTAGRAM.id,
      settings: { login: 'instagram' },
    });
    const saved: string[] = [];
    await publisher.close?.();
    publisher = openInstagram(
      { ...verified, channelId: 1, settings: { ...verified.settings, authRoot: server.url } },
      context({
        oauthClient: () => server.apps.instagram,
        refreshSecret: async ({ stale, refresh }) => {
          const fresh = await refresh(stale);
          saved.push(fresh);
          return fresh;
        },
      }),
    );
    expect(await publisher.deliver(job())).toMatchObject({ ok: true });
    expect(server.kit.requestsTo('/refresh_access_token')).toHaveLength(1);
    const renewed = tokensOf(saved[0]!).accessToken;
    expect(renewed).not.toBe(token);
    expect(publishes()[0]!.headers.authorization).toBe(`Bearer ${renewed}`);
    expect(tokensSecret(tokensOf(saved[0]!))).toContain('refreshToken');
  });
});
