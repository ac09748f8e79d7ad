/**
 * What is TikTok's own, against its loopback stand-in: what each post field becomes at TikTok (counted
 * in the init requests and chunks the stand-in received), the chunk arithmetic for several sizes, the
 * privacy level checked against creator_info before each post, the creator's longest video, the
 * publish status as a pending step until the public id, TikTok's refusals, the skipped comment.
 */
import { mkdtempSync, openAsBlob, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlatformContent } from '../../src/domain/delivery.js';
import type { DeliveryJob, Publisher } from '../../src/ports.js';
import { tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import { verifyTikTok } from '../../src/publish/connectors/tiktok/tiktok-account.js';
import { openTikTok, TIKTOK_ID_WAIT_MS } from '../../src/publish/connectors/tiktok/tiktok-connector.js';
import { chunkPlan } from '../../src/publish/connectors/tiktok/tiktok-video.js';
import { mediaFromBlob } from '../../src/publish/media-loader.js';
import { FakeClock } from '../support/fake-clock.js';
import { mp4Bytes, writeMp4 } from '../support/tiktok-media.js';
import { chunkRuleBroken, startTikTokServer, type TikTokServer } from '../support/tiktok-server.js';

let server: TikTokServer;
let clock: FakeClock;
let publisher: Publisher | undefined;
let logged: string[];
let dir: string;
let reads: number[];
const videos = new Map<string, () => Promise<Blob>>();

async function open(settings: Record<string, unknown> = {}) {
  const tokens = server.userTokens();
  const verified = await verifyTikTok({
    endpoint: server.url,
    secret: tokens.accessToken,
    tokens,
    userAgent: 't',
    timeoutMs: 5_000,
  });
  publisher = openTikTok(
    {
      ...verified,
      settings: { ...verified.settings, ...settings },
      secret: tokensSecret(tokens),
      channelId: 1,
    },
    {
      loadMedia: async (_brandId, media) => {
        const source = mediaFromBlob(await videos.get(media.id!)!(), { type: 'video/mp4', name: 'clip.mp4' });
        // Each read of the file, to show that none holds a whole chunk.
        const range = (start: number, end: number) => {
          reads.push(end - start);
          return source.range(start, end);
        };
        return { ...source, range };
      },
      publicMediaUrl: async (_brandId, media) => (media.id ? `${server.url}/never/${media.id}` : media.url),
      saveSecret: async () => {},
      clock,
      log: (line) => logged.push(line),
      timeoutMs: 5_000,
      userAgent: 'test',
    },
  );
}

function job(content: Partial<PlatformContent>, state: DeliveryJob['state'] = {}): DeliveryJob {
  return {
    deliveryId: 1,
    postId: 1,
    brandId: 1,
    channel: { id: 1, name: 'Acme on TikTok', type: 'TikTok' },
    content: { platform: 'TikTok', format: 'feed', media: [{ id: 'clip', type: 'video/mp4' }], ...content },
    idempotencyKey: 'k-1',
    dueAtMs: clock.now(),
    attempt: 1,
    state,
  };
}

const inits = () => server.kit.requestsTo('/v2/post/publish/video/init/', 'POST');

beforeEach(async () => {
  clock = new FakeClock(Date.UTC(2027, 0, 5, 9));
  server = await startTikTokServer({ now: () => clock.now() });
  logged = [];
  reads = [];
  dir = mkdtempSync(join(tmpdir(), 'spm-tiktok-'));
  videos.clear();
  videos.set('clip', async () => new Blob([mp4Bytes(42, 50_000)]));
});

afterEach(async () => {
  await publisher?.close?.();
  publisher = undefined;
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the chunks of a FILE_UPLOAD', () => {
  it.each([
    [1_000, 1_000, 1, 1_000],
    [5 * 1024 * 1024 - 1, 5 * 1024 * 1024 - 1, 1, 5 * 1024 * 1024 - 1],
    [9_999_999, 9_999_999, 1, 9_999_999],
    [10_000_000, 10_000_000, 1, 10_000_000],
    [19_999_999, 10_000_000, 1, 19_999_999],
    [50_000_123, 10_000_000, 5, 10_000_123],
    [1_073_741_824, 10_000_000, 107, 13_741_824],
    [4 * 1024 ** 3, 10_000_000, 429, 14_967_296],
    [20_000_000_000, 20_000_000, 1000, 20_000_000],
  ])('%i bytes: chunks of %i, %i of them, the last %i bytes', (size, chunkSize, count, last) => {
    const plan = chunkPlan(size);
    expect(plan).toMatchObject({ chunkSize, totalChunkCount: count });
    expect(plan.chunks).toHaveLength(count);
    const [start, end] = plan.chunks.at(-1)!;
    expect(end - start).toBe(last);
    expect(end).toBe(size);
    // Within TikTok's rules, as its stand-in checks them.
    expect(chunkRuleBroken(size, plan.chunkSize, plan.totalChunkCount)).toBeUndefined();
  });

  it('the stand-in refuses chunk sizes TikTok refuses', () => {
    expect(chunkRuleBroken(3_000_000, 1_000_000, 3)).toMatch(/under 5 MB/);
    expect(chunkRuleBroken(50_000_123, 10_000_000, 6)).toMatch(/rounded down/);
    expect(chunkRuleBroken(100 * 1024 * 1024, 100 * 1024 * 1024, 1)).toMatch(/5 MB to 64 MB/);
    expect(chunkRuleBroken(50_000_000, 1_000_000, 50)).toMatch(/5 MB to 64 MB/);
  });

  it('a 25,000,001-byte video goes up in two chunks, streamed from the file, with their Content-Range', async () => {
    const path = join(dir, 'big.mp4');
    writeMp4(path, 30, 25_000_001);
    videos.set('clip', () => openAsBlob(path));
    await open();
    expect(await publisher!.deliver(job({ caption: 'Big' }))).toMatchObject({ ok: true });
    // Read from disk a MiB at a time as it is sent: never the file, nor a chunk, whole.
    expect(Math.max(...reads)).toBeLessThanOrEqual(1024 * 1024);
    expect(reads.reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(25_000_001);
    expect(inits()[0]!.body.json).toMatchObject({
      source_info: {
        source: 'FILE_UPLOAD',
        video_size: 25_000_001,
        chunk_size: 10_000_000,
        total_chunk_count: 2,
      },
    });
    const puts = server.kit.requestsTo('/upload/', 'PUT');
    expect(puts.map((put) => [put.headers['content-range'], put.body.bytes.length, put.status])).toEqual([
      ['bytes 0-9999999/25000001', 10_000_000, 206],
      ['bytes 10000000-25000000/25000001', 15_000_001, 201],
    ]);
  });
});

describe('what each field becomes', () => {
  it('a video: the title and caption (with the link) as its title, the channel’s privacy level, the URL of the post', async () => {
    await open();
    const read = server.kit.requestsTo('/v2/post/publish/creator_info/query/').length;
    const outcome = await publisher!.deliver(
      job({ title: 'New roast', caption: 'Dark and sweet #coffee', link: 'https://acme.example/roast' }),
    );
    const [id] = server.published();
    expect(id).toMatch(/^\d{19}$/);
    expect(outcome).toEqual({
      ok: true,
      externalId: id,
      url: `https://www.tiktok.com/@acme.roasters/video/${id}`,
    });
    expect(server.kit.requestsTo('/v2/post/publish/creator_info/query/')).toHaveLength(read + 1);
    expect(inits()[0]!.body.json).toMatchObject({
      post_info: {
        title: 'New roast\n\nDark and sweet #coffee\n\nhttps://acme.example/roast',
        privacy_level: 'SELF_ONLY',
        disable_comment: false,
        // As the creator has them (the stand-in's creator has stitches off).
        disable_duet: false,
        disable_stitch: true,
      },
    });
  });

  it('sendToInbox: the inbox init with source_info only, no creator_info, sent once TikTok has it in the inbox', async () => {
    await open();
    const read = server.kit.requestsTo('/v2/post/publish/creator_info/query/').length;
    const outcome = await publisher!.deliver(job({ caption: 'Draft', overrides: { sendToInbox: true } }));
    expect(outcome).toEqual({ ok: true, externalId: null, url: null });
    const [init] = server.kit.requestsTo('/v2/post/publish/inbox/video/init/', 'POST');
    expect(Object.keys(init!.body.json as object)).toEqual(['source_info']);
    expect(inits()).toHaveLength(0);
    expect(server.kit.requestsTo('/v2/post/publish/creator_info/query/')).toHaveLength(read);
  });

  it('photos: PULL_FROM_URL from their addresses, the title (90 at most) and the caption as the description', async () => {
    server.settings.verifiedPrefixes.push('https://cdn.acme.example/');
    await open();
    const photos = [1, 2].map((n) => ({ url: `https://cdn.acme.example/p${n}.jpg`, type: 'image/jpeg' }));
    const outcome = await publisher!.deliver(job({ title: 'Two cups', caption: 'Morning', media: photos }));
    // The stand-in could not download them (no such host): TikTok fails the post, saying so.
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('photo_pull_failed'),
    });
    expect(server.kit.requestsTo('/v2/post/publish/content/init/')[0]!.body.json).toMatchObject({
      media_type: 'PHOTO',
      post_mode: 'DIRECT_POST',
      post_info: { title: 'Two cups', description: 'Morning', privacy_level: 'SELF_ONLY' },
      source_info: { source: 'PULL_FROM_URL', photo_images: photos.map((p) => p.url) },
    });
    const long = await publisher!.deliver(job({ title: 'x'.repeat(91), media: photos }));
    expect(long).toMatchObject({ ok: false, kind: 'refused', reason: expect.stringContaining('at most 90') });
  });

  it('a photo domain TikTok has not verified for the app: refused saying how to verify it', async () => {
    await open();
    const outcome = await publisher!.deliver(job({ media: [{ url: 'https://elsewhere.example/p.jpg' }] }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringMatching(/url_ownership_unverified.*verif/),
    });
  });

  it('no media, or a video with photos: refused before anything is sent', async () => {
    await open();
    expect(await publisher!.deliver(job({ caption: 'Text', media: [] }))).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('no text posts'),
    });
    const mixed = [{ id: 'clip', type: 'video/mp4' }, { url: 'https://cdn.acme.example/p.jpg' }];
    expect(await publisher!.deliver(job({ media: mixed }))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('never both'),
    });
    expect(inits()).toHaveLength(0);
  });
});

describe('the creator, read before each post', () => {
  it('a privacy level the creator no longer offers: refused, nothing uploaded', async () => {
    await open({ privacyLevel: 'PUBLIC_TO_EVERYONE' });
    server.settings.privacyLevels = ['FOLLOWER_OF_CREATOR', 'SELF_ONLY'];
    const outcome = await publisher!.deliver(job({ caption: 'Hi' }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('no longer offers'),
    });
    expect(inits()).toHaveLength(0);
  });

  it('a video longer than the creator may post: refused, naming the limit', async () => {
    server.settings.maxVideoSeconds = 60;
    await open();
    videos.set('clip', async () => new Blob([mp4Bytes(61)]));
    expect(await publisher!.deliver(job({}))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('61 seconds'),
    });
    videos.set('clip', async () => new Blob([mp4Bytes(60)]));
    expect(await publisher!.deliver(job({}))).toMatchObject({ ok: true });
  });

  it('an unaudited app posting PUBLIC_TO_EVERYONE: TikTok’s refusal, with what to do', async () => {
    await open({ privacyLevel: 'PUBLIC_TO_EVERYONE' });
    const outcome = await publisher!.deliver(job({}));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringMatching(
        /unaudited_client_can_only_post_to_private_accounts.*private TikTok account/,
      ),
    });
  });
});

describe('the publish status, a pending step', () => {
  it('processing, then the public id after moderation: pending until then, checked by the state alone', async () => {
    server.settings.processingMs = 30_000;
    server.settings.moderationMs = 60_000;
    await open();
    const first = await publisher!.deliver(job({}));
    expect(first).toMatchObject({ ok: 'pending', reason: expect.stringMatching(/processing/) });
    const state = first.ok === 'pending' ? first.state : {};
    clock.advance(31_000);
    const second = await publisher!.check!(job({}, state));
    expect(second).toMatchObject({ ok: 'pending', reason: expect.stringMatching(/moderation/) });
    clock.advance(60_000);
    const done = await publisher!.check!(job({}, second.ok === 'pending' ? second.state : {}));
    expect(done).toMatchObject({ ok: true, externalId: server.published()[0] });
    expect(server.kit.requestsTo('/upload/', 'PUT')).toHaveLength(1);
  });

  it('PUBLISH_COMPLETE and no public id for an hour: sent without one, with the profile', async () => {
    server.settings.moderationMs = 10 * TIKTOK_ID_WAIT_MS;
    await open();
    const first = await publisher!.deliver(job({}));
    clock.advance(TIKTOK_ID_WAIT_MS + 1);
    const after = await publisher!.check!(job({}, first.ok === 'pending' ? first.state : {}));
    expect(after).toEqual({ ok: true, externalId: null, url: 'https://www.tiktok.com/@acme.roasters' });
  });

  it('FAILED: refused with TikTok’s fail_reason and what it means', async () => {
    server.failNextPublish('frame_rate_check_failed');
    await open();
    expect(await publisher!.deliver(job({}))).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('frame_rate_check_failed): TikTok takes videos of 23 to 60 frames'),
    });
  });
});

describe('TikTok’s refusals, classified once', () => {
  it.each([
    ['spam_risk_too_many_posts', 403, 'refused', /daily limit/],
    ['rate_limit_exceeded', 429, 'rate_limited', /rate limiting/],
    ['access_token_invalid', 401, 'reconnect', /connect/],
    ['scope_not_authorized', 401, 'reconnect', /connect/],
    ['internal_error', 500, 'transient', /internal_error/],
  ])('%s (HTTP %i) is %s', async (code, status, kind, reason) => {
    await open();
    server.kit.answerNext(
      { status, body: { data: {}, error: { code, message: 'TikTok says no', log_id: 'l' } } },
      { route: '/v2/post/publish/video/init/' },
    );
    const outcome = await publisher!.deliver(job({}));
    expect(outcome).toMatchObject({ ok: false, kind, reason: expect.stringMatching(reason) });
    if (kind === 'rate_limited') expect(outcome).toMatchObject({ retryAfterMs: 60_000 });
  });

  it('the per-minute limit of init (6 a token): the seventh post waits a minute', async () => {
    await open();
    for (let i = 0; i < 6; i++) expect(await publisher!.deliver(job({}))).toMatchObject({ ok: true });
    expect(await publisher!.deliver(job({}))).toMatchObject({
      ok: false,
      kind: 'rate_limited',
      retryAfterMs: 60_000,
    });
  });
});

it('the auto-comment: skipped, saying TikTok has no comment API; nothing sent', async () => {
  await open();
  const asked = server.kit.log.length;
  const outcome = await publisher!.comment({
    deliveryId: 1,
    postId: 1,
    brandId: 1,
    channel: { id: 1, name: 'Acme on TikTok', type: 'TikTok' },
    externalId: '7300000000000000001',
    comment: 'First!',
    idempotencyKey: 'c',
  });
  expect(outcome).toMatchObject({
    ok: false,
    kind: 'refused',
    reason: expect.stringContaining('no API for comments'),
  });
  expect(server.kit.log.length).toBe(asked);
});

it('verify: the creator, the open id, the chosen privacy level; one the creator lacks is refused', async () => {
  const tokens = server.userTokens();
  const input = {
    endpoint: server.url,
    secret: tokens.accessToken,
    tokens,
    userAgent: 't',
    timeoutMs: 5_000,
  };
  expect(await verifyTikTok({ ...input, account: 'MUTUAL_FOLLOW_FRIENDS' })).toMatchObject({
    kind: 'tiktok',
    account: '@acme.roasters',
    accountId: '-000AbCdEfGhIjKlMnOpQrStUvWxYz0123',
    profileUrl: 'https://www.tiktok.com/@acme.roasters',
    settings: { privacyLevel: 'MUTUAL_FOLLOW_FRIENDS' },
  });
  await expect(verifyTikTok({ ...input, account: 'FOLLOWER_OF_CREATOR' })).rejects.toThrow(
    /does not offer the privacy level FOLLOWER_OF_CREATOR: give --account one of PUBLIC_TO_EVERYONE/,
  );
});
