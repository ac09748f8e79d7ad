/**
 * The Bluesky connector against a real PDS (test/pds, @atproto/dev-env on Node 22): what a post and a
 * reply become as records, sending once across resends, the session's renewal, and the outcome kinds.
 * The failures a local PDS cannot be made to show (429, 5xx, no answer) come from the PDS stand-in of
 * test/support/bluesky-xrpc-server.ts and its scripted trouble, at the end.
 */
import { AtpAgent } from '@atproto/api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PlatformContent } from '../../src/domain/delivery.js';
import type { CommentJob, DeliveryJob, Publisher } from '../../src/ports.js';
import type { ConnectorContext, MediaSource, VerifiedConnection } from '../../src/publish/connector.js';
import {
  BLUESKY_PREPARE_LEAD_MS,
  capabilitiesOfBluesky,
  openBluesky,
  verifyBluesky,
} from '../../src/publish/connectors/bluesky/bluesky-connector.js';
import {
  blueskyRecordKey,
  parseAtUri,
  recordKeyTimeMs,
} from '../../src/publish/connectors/bluesky/bluesky-post.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import { pngBytes } from '../contract/media-files.js';
import { startPds, type TestPds } from '../support/bluesky-pds.js';
import { startXrpcServer, type XrpcServer } from '../support/bluesky-xrpc-server.js';

const POST = 'app.bsky.feed.post';
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const DUE = Date.UTC(2026, 10, 22, 9, 0, 0);

/** A baseline JPEG header declaring 4×3 pixels: SOI, SOF0, EOI (enough for a blob and its ratio). */
function jpegBytes(width = 4, height = 3): Buffer {
  const sof = [0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03];
  const components = [0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01];
  return Buffer.from([0xff, 0xd8, ...sof, ...components, 0xff, 0xd9]);
}

const FILES = new Map<string, MediaSource>([
  ['png', mediaFromBytes(pngBytes(7), 'image/png', 'med_png.png')],
  ['jpeg', mediaFromBytes(jpegBytes(), 'image/jpeg', 'med_jpeg.jpg')],
  ['huge', mediaFromBytes(Buffer.concat([pngBytes(1), Buffer.alloc(2_000_001)]), 'image/png', 'huge.png')],
  ['video', mediaFromBytes(Buffer.alloc(64), 'video/mp4', 'clip.mp4')],
]);

function testContext(overrides: Partial<ConnectorContext> = {}) {
  const saved: string[] = [];
  const logs: string[] = [];
  const context: ConnectorContext = {
    loadMedia: async (_brandId, media) => {
      const file = FILES.get(media.id ?? '');
      if (!file) throw new Error(`no fixture ${media.id}`);
      return file;
    },
    saveSecret: async (secret) => {
      saved.push(secret);
    },
    clock: { now: () => NOW },
    log: (message) => logs.push(message),
    timeoutMs: 10_000,
    userAgent: 'social-publisher-mcp/test',
    ...overrides,
  };
  return { context, saved, logs };
}

function open(
  verified: VerifiedConnection,
  secret = verified.secret,
  overrides: Partial<ConnectorContext> = {},
) {
  const { secret: _, ...details } = verified;
  const made = testContext(overrides);
  return { publisher: openBluesky({ ...details, channelId: 1, secret }, made.context), ...made };
}

let sequence = 0;
function deliveryJob(content: Partial<PlatformContent>, idempotencyKey?: string): DeliveryJob {
  sequence += 1;
  return {
    deliveryId: sequence,
    postId: sequence,
    brandId: 1,
    channel: { id: 1, name: 'Bluesky', type: 'Bluesky' },
    content: { platform: 'Bluesky', format: 'feed', media: [], ...content },
    idempotencyKey: idempotencyKey ?? `store-a:delivery-${sequence}`,
    dueAtMs: DUE + sequence * 60_000,
    attempt: 1,
    state: {},
  };
}

function commentJob(externalId: string, comment: string, idempotencyKey: string): CommentJob {
  return {
    deliveryId: 1,
    postId: 1,
    brandId: 1,
    channel: { id: 1, name: 'Bluesky', type: 'Bluesky' },
    externalId,
    comment,
    idempotencyKey,
  };
}

/** With a secret whose access token is `accessJwt` and refresh token `refreshJwt`. */
function secretWith(
  verified: VerifiedConnection,
  session: { accessJwt?: string; refreshJwt?: string },
): string {
  const secret = JSON.parse(verified.secret);
  return JSON.stringify({ ...secret, session: { ...secret.session, ...session } });
}

describe('the Bluesky connector against a real PDS', () => {
  let pds: TestPds;
  let verified: VerifiedConnection;
  let reader: AtpAgent;

  beforeAll(async () => {
    pds = await startPds();
    reader = new AtpAgent({ service: pds.service });
    verified = await verifyBluesky({
      service: pds.service,
      handle: `@${pds.handle}`,
      password: pds.appPassword,
    });
  }, 90_000);

  afterAll(async () => {
    await pds?.stop();
  });

  async function readRecord(uri: string) {
    const { repo, collection, rkey } = parseAtUri(uri)!;
    return (await reader.com.atproto.repo.getRecord({ repo, collection, rkey })).data;
  }

  async function countPosts(): Promise<number> {
    const { data } = await reader.com.atproto.repo.listRecords({
      repo: pds.did,
      collection: POST,
      limit: 100,
    });
    return data.records.length;
  }

  it('verifies an app password and says what to store', async () => {
    expect(verified).toMatchObject({
      kind: 'bluesky',
      account: pds.handle,
      accountId: pds.did,
      endpoint: pds.service,
      profileUrl: `https://bsky.app/profile/${pds.handle}`,
      capabilities: capabilitiesOfBluesky(),
    });
    const secret = JSON.parse(verified.secret);
    expect(secret.appPassword).toBe(pds.appPassword);
    expect(secret.session).toEqual({
      accessJwt: expect.stringMatching(/^eyJ/),
      refreshJwt: expect.stringMatching(/^eyJ/),
      did: pds.did,
      handle: pds.handle,
    });
  });

  it('refuses a wrong password, and the account password, saying what to fix without the password', async () => {
    const wrong = 'abcd-efgh-ijkl-mnop';
    const refused = await verifyBluesky({ service: pds.service, handle: pds.handle, password: wrong }).catch(
      (error: Error) => error,
    );
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/refused the handle or app password/);
    expect((refused as Error).message).toMatch(/Settings → Privacy and security → App passwords/);
    expect((refused as Error).message).not.toContain(wrong);

    const own = await verifyBluesky({
      service: pds.service,
      handle: pds.handle,
      password: pds.password,
    }).catch((error: Error) => error);
    expect((own as Error).message).toMatch(/account's own password, not an app password/);
    expect((own as Error).message).not.toContain(pds.password);

    const closed = await verifyBluesky({
      service: 'http://127.0.0.1:9',
      handle: pds.handle,
      password: wrong,
    }).catch((error: Error) => error);
    expect((closed as Error).message).toMatch(/^Could not reach http:\/\/127\.0\.0\.1:9 .*check the address/);
  });

  it('posts the text with link, mention and hashtag facets at their byte ranges, and two images with alt text', async () => {
    const { publisher } = open(verified);
    const caption = `Café ☕ with @${pds.other.handle} today #coffee`;
    const link = 'https://example.com/menu?day=1';
    const job = deliveryJob({
      caption,
      link,
      alt: 'Two cups on a table',
      media: [{ id: 'png' }, { id: 'jpeg' }],
    });
    const outcome = await publisher.deliver(job);

    const rkey = blueskyRecordKey(job.idempotencyKey, job.dueAtMs);
    expect(outcome).toEqual({
      ok: true,
      externalId: `at://${pds.did}/${POST}/${rkey}`,
      url: `https://bsky.app/profile/${pds.handle}/post/${rkey}`,
    });
    const { value } = await readRecord(outcome.ok === true ? outcome.externalId! : '');
    const text = `${caption}\n${link}`;
    expect(value.text).toBe(text);
    expect(value.createdAt).toBe(new Date(job.dueAtMs).toISOString());

    const range = (part: string) => {
      const byteStart = Buffer.byteLength(text.slice(0, text.indexOf(part)));
      return { byteStart, byteEnd: byteStart + Buffer.byteLength(part) };
    };
    const facets = (value.facets as { index: unknown; features: Record<string, unknown>[] }[]).map(
      (facet) => ({
        index: facet.index,
        features: facet.features.map(({ $type, ...rest }) => ({ $type, ...rest })),
      }),
    );
    expect(facets).toEqual([
      {
        index: range(`@${pds.other.handle}`),
        features: [{ $type: 'app.bsky.richtext.facet#mention', did: pds.other.did }],
      },
      { index: range('#coffee'), features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'coffee' }] },
      { index: range(link), features: [{ $type: 'app.bsky.richtext.facet#link', uri: link }] },
    ]);

    const embed = value.embed as { $type: string; images: Record<string, unknown>[] };
    expect(embed.$type).toBe('app.bsky.embed.images');
    expect(embed.images).toHaveLength(2);
    expect(embed.images.map((image) => image.alt)).toEqual(['Two cups on a table', 'Two cups on a table']);
    expect(embed.images.map((image) => (image.image as { mimeType: string }).mimeType)).toEqual([
      'image/png',
      'image/jpeg',
    ]);
    expect(embed.images.map((image) => (image.image as { size: number }).size)).toEqual([
      FILES.get('png')!.size,
      FILES.get('jpeg')!.size,
    ]);
    expect(embed.images.map((image) => image.aspectRatio)).toEqual([
      { width: 1, height: 1 },
      { width: 4, height: 3 },
    ]);
  });

  it('sends an image without alt text with an empty alt, and does not repeat a link the caption has', async () => {
    const { publisher } = open(verified);
    const caption = 'Menu at https://example.com/menu';
    const outcome = await publisher.deliver(
      deliveryJob({ caption, link: 'https://example.com/menu', media: [{ id: 'png' }] }),
    );
    expect(outcome.ok).toBe(true);
    const { value } = await readRecord(outcome.ok === true ? outcome.externalId! : '');
    expect(value.text).toBe(caption);
    expect((value.embed as { images: { alt: string }[] }).images[0]!.alt).toBe('');
  });

  it('leaves a mention whose handle does not resolve as plain text', async () => {
    const { publisher } = open(verified);
    const outcome = await publisher.deliver(deliveryJob({ caption: 'Hello @nobody.test and #friends' }));
    if (outcome.ok !== true) throw new Error(JSON.stringify(outcome));
    const { value } = await readRecord(outcome.externalId!);
    expect(value.facets).toEqual([
      {
        index: { byteStart: 23, byteEnd: 31 },
        features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'friends' }],
      },
    ]);
  });

  it('creates nothing new when a delivery is sent again, by this process or after a crash', async () => {
    const job = deliveryJob({ caption: 'Sent once, whatever happens' });
    const first = await open(verified).publisher.deliver(job);
    expect(first.ok).toBe(true);
    const count = await countPosts();

    // The same process retrying, and a new process after a crash between the create and markSent.
    const again = await open(verified).publisher.deliver({ ...job, attempt: 2 });
    const { publisher } = open(verified);
    const afterCrash = await publisher.deliver({ ...job, attempt: 3 });
    expect(again).toEqual(first);
    expect(afterCrash).toEqual(first);
    expect(await countPosts()).toBe(count);
  });

  it('prepares the images ahead: the commit references the uploaded blobs and reads no media', async () => {
    const { publisher } = open(verified);
    expect(publisher.prepareLeadMs).toBe(BLUESKY_PREPARE_LEAD_MS);
    const job = deliveryJob({ caption: 'Prepared', alt: 'Cups', media: [{ id: 'png' }, { id: 'jpeg' }] });
    const prepared = await publisher.prepare!(job);
    expect(prepared).toMatchObject({ ok: 'prepared', expiresAtMs: NOW + 5 * 60_000 });
    if (prepared.ok !== 'prepared') throw new Error(JSON.stringify(prepared));
    // What the store keeps is JSON: the commit may run in another process.
    const state = JSON.parse(JSON.stringify(prepared.state));
    const refs = (state.images as { image: { ref: { $link: string } } }[]).map((i) => i.image.ref.$link);
    expect(refs).toHaveLength(2);

    let loads = 0;
    const committer = open(verified, verified.secret, {
      loadMedia: async () => {
        loads++;
        throw new Error('the commit must not read media');
      },
    }).publisher;
    const outcome = await committer.deliver({ ...job, state });
    if (outcome.ok !== true) throw new Error(JSON.stringify(outcome));
    expect(loads).toBe(0);
    const { value } = await readRecord(outcome.externalId!);
    const images = (value.embed as { images: { image: { ref: { toString(): string } }; alt: string }[] })
      .images;
    expect(images.map((image) => image.image.ref.toString())).toEqual(refs);
    expect(images.map((image) => image.alt)).toEqual(['Cups', 'Cups']);
  });

  it('refuses in prepare what it would refuse in the commit, uploading nothing', async () => {
    const { publisher } = open(verified);
    const prepared = await publisher.prepare!(deliveryJob({ caption: 'x'.repeat(301) }));
    expect(prepared).toMatchObject({ ok: false, kind: 'refused' });
  });

  it('confirms a commit whose answer was lost: absent before it, sent (with its id) after', async () => {
    const { publisher } = open(verified);
    const job = deliveryJob({ caption: 'Was it published?' });
    expect(await publisher.confirm!(job)).toEqual({ ok: 'absent' });
    const sent = await publisher.deliver(job);
    expect(sent.ok).toBe(true);
    expect(await open(verified).publisher.confirm!(job)).toEqual(sent);
  });

  it('replies to the post, once, with root and parent pointing at it', async () => {
    const { publisher } = open(verified);
    const post = await publisher.deliver(deliveryJob({ caption: 'A post to reply to' }));
    if (post.ok !== true) throw new Error(JSON.stringify(post));
    const parent = await readRecord(post.externalId!);

    const job = commentJob(
      post.externalId!,
      `Thanks @${pds.other.handle}! More at https://example.com`,
      'c-1',
    );
    const reply = await publisher.comment(job);
    if (reply.ok !== true) throw new Error(JSON.stringify(reply));
    const { rkey } = parseAtUri(reply.externalId!)!;
    expect(reply.url).toBe(`https://bsky.app/profile/${pds.handle}/post/${rkey}`);
    expect(recordKeyTimeMs(rkey)).toBe(recordKeyTimeMs(parseAtUri(post.externalId!)!.rkey)! + 1);
    const { value } = await readRecord(reply.externalId!);
    expect(value.text).toBe(job.comment);
    expect(value.reply).toEqual({
      root: { uri: post.externalId, cid: parent.cid },
      parent: { uri: post.externalId, cid: parent.cid },
    });
    expect((value.facets as unknown[]).length).toBe(2);

    const count = await countPosts();
    expect(await open(verified).publisher.comment(job)).toEqual(reply);
    expect(await countPosts()).toBe(count);
  });

  it('writes a poll out as numbered lines, and refuses one that does not fit in 300 characters', async () => {
    const { publisher } = open(verified);
    const poll = { question: 'Which roast?', options: ['Light', 'Medium', 'Dark'], period: '1d' as const };
    const outcome = await publisher.deliver(
      deliveryJob({ caption: 'Vote below', link: 'https://example.com', poll }),
    );
    if (outcome.ok !== true) throw new Error(JSON.stringify(outcome));
    const { value } = await readRecord(outcome.externalId!);
    expect(value.text).toBe('Vote below\nhttps://example.com\n\nWhich roast?\n1. Light\n2. Medium\n3. Dark');

    const fits = { ...poll, options: ['A'.repeat(90), 'B'.repeat(90), 'C'.repeat(90)] };
    const full = await publisher.deliver(deliveryJob({ caption: 'Vote', poll: fits }));
    expect(full.ok).toBe(true);

    const count = await countPosts();
    const long = { ...poll, options: ['A'.repeat(91), 'B'.repeat(91), 'C'.repeat(91)] };
    const refused = await publisher.deliver(deliveryJob({ caption: 'Vote', poll: long }));
    expect(refused).toEqual({
      ok: false,
      kind: 'refused',
      reason:
        'The text with the poll written out is 303 characters; Bluesky takes 300: shorten it (or give platforms.bluesky.caption).',
    });
    expect(await countPosts()).toBe(count);
  });

  it.each([
    ['expired', (pds: TestPds) => pds.expiredAccessJwt],
    ['unreadable', () => 'not-a-token'],
  ])(
    'refreshes an %s access token, without the app password, and stores the new session',
    async (_, token) => {
      const fresh = await verifyBluesky({
        service: pds.service,
        handle: pds.handle,
        password: pds.appPassword,
      });
      // A wrong app password: only a refresh can succeed.
      const stale = JSON.stringify({
        ...JSON.parse(secretWith(fresh, { accessJwt: token(pds) })),
        appPassword: 'wrong-pass-word',
      });
      const { publisher, saved } = open(fresh, stale);
      const outcome = await publisher.deliver(deliveryJob({ caption: 'After a refresh' }));
      expect(outcome.ok).toBe(true);
      expect(saved).toHaveLength(1);
      const stored = JSON.parse(saved[0]!);
      const before = JSON.parse(stale).session;
      expect(stored.appPassword).toBe('wrong-pass-word');
      expect(stored.session.did).toBe(pds.did);
      expect(stored.session.handle).toBe(pds.handle);
      expect(stored.session.accessJwt).not.toBe(before.accessJwt);
      expect(stored.session.refreshJwt).not.toBe(before.refreshJwt);

      // The stored session works as it is: nothing to store the next time.
      const next = open(fresh, saved[0]!);
      expect((await next.publisher.deliver(deliveryJob({ caption: 'With the stored session' }))).ok).toBe(
        true,
      );
      expect(next.saved).toEqual([]);
    },
  );

  it('makes a new session with the app password when the refresh token is dead, and stores it', async () => {
    const dead = secretWith(verified, { accessJwt: 'not-a-token', refreshJwt: 'not-a-token-either' });
    const { publisher, saved } = open(verified, dead);
    expect((await publisher.deliver(deliveryJob({ caption: 'After a new session' }))).ok).toBe(true);
    expect(saved).toHaveLength(1);
    expect(JSON.parse(saved[0]!).session.refreshJwt).toMatch(/^eyJ/);
  });

  it('asks to reconnect once the app password is revoked, without the password in the reason', async () => {
    const owner = new AtpAgent({ service: pds.service });
    await owner.login({ identifier: pds.handle, password: pds.password });
    const { data } = await owner.com.atproto.server.createAppPassword({ name: 'to-revoke' });
    const connection = await verifyBluesky({
      service: pds.service,
      handle: pds.handle,
      password: data.password,
    });
    await owner.com.atproto.server.revokeAppPassword({ name: 'to-revoke' });

    // Its access token still works until it expires (the PDS checks no more); then the refresh fails.
    const expired = secretWith(connection, { accessJwt: pds.expiredAccessJwt });
    const count = await countPosts();
    const outcome = await open(connection, expired).publisher.deliver(deliveryJob({ caption: 'Never sent' }));
    expect(outcome).toEqual({
      ok: false,
      kind: 'reconnect',
      reason: expect.stringMatching(
        /^Bluesky refused the app password of alice\.test \(.+\); it may have been revoked: make an app password at Settings → Privacy and security → App passwords, and reconnect with `social-publisher-mcp connect bluesky` for alice\.test\.$/,
      ),
    });
    expect(!outcome.ok && outcome.reason).not.toContain(data.password);
    expect(!outcome.ok && outcome.reason).not.toMatch(/eyJ/);
    expect(await countPosts()).toBe(count);
  });

  it('refuses an image over 2 MB and a video before uploading anything', async () => {
    const { publisher } = open(verified);
    const count = await countPosts();
    const huge = await publisher.deliver(
      deliveryJob({ caption: 'Big', media: [{ id: 'png' }, { id: 'huge' }] }),
    );
    expect(huge).toEqual({
      ok: false,
      kind: 'refused',
      reason: `huge.png is ${FILES.get('huge')!.size} bytes; Bluesky takes images of at most 2000000 bytes (2 MB).`,
    });
    const video = await publisher.deliver(deliveryJob({ caption: 'Clip', media: [{ id: 'video' }] }));
    expect(video).toMatchObject({ ok: false, kind: 'refused' });
    expect(!video.ok && video.reason).toMatch(
      /clip\.mp4 is video\/mp4 \(video goes through Bluesky’s separate video service/,
    );
    expect(await countPosts()).toBe(count);
  });
  it('takes a secret that is the app password alone (from an environment variable) and stores a session', async () => {
    const { publisher, saved } = open(verified, pds.appPassword);
    expect((await publisher.deliver(deliveryJob({ caption: 'From an environment secret' }))).ok).toBe(true);
    expect(saved).toHaveLength(1);
    expect(JSON.parse(saved[0]!)).toMatchObject({ appPassword: pds.appPassword, session: { did: pds.did } });
  });

  // Last: it deactivates the second account.
  it('asks to reconnect when the account is deactivated', async () => {
    const owner = new AtpAgent({ service: pds.service });
    await owner.login({ identifier: pds.other.handle, password: pds.other.password });
    const { data } = await owner.com.atproto.server.createAppPassword({ name: 'publisher' });
    const bob = await verifyBluesky({
      service: pds.service,
      handle: pds.other.handle,
      password: data.password,
    });
    await owner.com.atproto.server.deactivateAccount({});
    // Seen when the session is renewed (its access token expired), which says whether the account is active.
    const stale = secretWith(bob, { accessJwt: pds.expiredAccessJwt });
    const outcome = await open(bob, stale).publisher.deliver(deliveryJob({ caption: 'Nobody home' }));
    expect(outcome).toEqual({
      ok: false,
      kind: 'reconnect',
      reason: expect.stringMatching(
        /^Bluesky says bob\.test is deactivated: reactivate it on Bluesky, and reconnect with/,
      ),
    });
  });
});

describe('record keys', () => {
  it('are valid TIDs at the due time, the same for one idempotency key and different across keys', () => {
    const a = blueskyRecordKey('store-a:delivery-1', DUE);
    expect(a).toMatch(/^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/);
    expect(blueskyRecordKey('store-a:delivery-1', DUE)).toBe(a);
    expect(blueskyRecordKey('store-a:delivery-2', DUE)).not.toBe(a);
    expect(blueskyRecordKey('store-a:delivery-1', DUE, 1)).not.toBe(a);
    expect(recordKeyTimeMs(a)).toBe(DUE);
  });
});

describe('the Bluesky connector when the PDS fails', () => {
  let pds: XrpcServer;
  const CREATE = 'com.atproto.repo.createRecord';
  const session = { accessJwt: 'eyJa.eyJb.sig1', refreshJwt: 'eyJc.eyJd.sig2' };
  const connection = (): VerifiedConnection => ({
    kind: 'bluesky',
    account: 'alice.test',
    accountId: 'did:plc:alice',
    endpoint: pds.url,
    profileUrl: null,
    settings: {},
    capabilities: capabilitiesOfBluesky(),
    secret: JSON.stringify({
      appPassword: 'abcd-efgh-ijkl-mnop',
      session: { ...session, did: 'did:plc:alice', handle: 'alice.test' },
    }),
  });

  beforeEach(async () => {
    pds = await startXrpcServer({ session });
  });

  afterEach(() => pds.close());

  function publisher(timeoutMs = 5_000): Publisher {
    return open(connection(), connection().secret, { timeoutMs }).publisher;
  }

  it('is rate limited until the reset the PDS names', async () => {
    const reset = String(NOW / 1000 + 30);
    pds.kit.rateLimitNext({ headers: { 'ratelimit-reset': reset } });
    expect(await publisher().deliver(deliveryJob({ caption: 'hello' }))).toEqual({
      ok: false,
      kind: 'rate_limited',
      reason: 'Bluesky is rate limiting alice.test (Rate Limit Exceeded).',
      retryAfterMs: 30_000,
      // The account has nothing left until the reset the PDS named.
      limit: { remaining: 0, resetAtMs: NOW + 30_000 },
    });
    expect(pds.kit.log.map((request) => request.headers['user-agent'])).toEqual([
      'social-publisher-mcp/test',
    ]);
  });

  it('is transient on a 5xx, and refused with the PDS’s own message on a 400', async () => {
    pds.kit.failNext(502, 'Bad gateway', { count: 2 });
    expect(await publisher().deliver(deliveryJob({ caption: 'hello' }))).toMatchObject({
      ok: false,
      kind: 'transient',
    });
    pds.kit.failNext(400, 'Invalid app.bsky.feed.post record: nope', { route: pds.route(CREATE) });
    expect(await publisher().deliver(deliveryJob({ caption: 'hello' }))).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'Bluesky refused the post: Invalid app.bsky.feed.post record: nope',
    });
  });

  it('is transient when a lookup gets no answer, unknown when the create gets none', async () => {
    pds.kit.hang('forever');
    const lookup = await publisher(300).deliver(deliveryJob({ caption: 'hello' }));
    expect(lookup).toMatchObject({ ok: false, kind: 'transient' });
    expect(!lookup.ok && lookup.reason).toMatch(/no answer within 300 ms/);

    pds.kit.hang('forever', { route: pds.route(CREATE) });
    const create = await publisher(300).deliver(deliveryJob({ caption: 'hello' }));
    expect(create).toEqual({
      ok: false,
      kind: 'unknown',
      reason: 'Bluesky did not answer the post (no answer within 300 ms): it may have been published.',
    });
  });

  it('counts a create that fails because the record exists as sent', async () => {
    const job = deliveryJob({ caption: 'hello' });
    const rkey = blueskyRecordKey(job.idempotencyKey, job.dueAtMs);
    // The record is created, and the answer is a 500 all the same.
    pds.kit.failAfterCreating(500, 'Internal Server Error', { route: pds.route(CREATE) });
    expect(await publisher().deliver(job)).toMatchObject({
      ok: true,
      externalId: `at://did:plc:alice/${POST}/${rkey}`,
    });
    expect(pds.records).toHaveLength(1);
  });

  it('sends nothing but the lookup when the record is there already', async () => {
    const job = deliveryJob({ caption: 'hello', media: [{ id: 'png' }] });
    const rkey = blueskyRecordKey(job.idempotencyKey, job.dueAtMs);
    const value = { $type: POST, text: 'hello', createdAt: new Date(job.dueAtMs).toISOString() };
    const { uri } = pds.putRecord(POST, rkey, value);
    expect(await publisher().deliver(job)).toMatchObject({ ok: true, externalId: uri });
    expect(pds.methods()).toEqual(['com.atproto.repo.getRecord']);
  });

  it('asks to reconnect when the PDS says the account is taken down', async () => {
    pds.kit.failNext(400, { error: 'AccountTakedown', message: 'Account has been taken down' }, { count: 2 });
    expect(await publisher().deliver(deliveryJob({ caption: 'hello' }))).toEqual({
      ok: false,
      kind: 'reconnect',
      reason: expect.stringMatching(
        /^Bluesky refused alice\.test \(Account has been taken down\): reconnect with/,
      ),
    });
  });

  it('never puts a token or the app password in a reason', async () => {
    pds.kit.failNext(400, 'bad token eyJa.eyJb.sig1 abcd-efgh-ijkl-mnop', { count: 2 });
    const outcome = await publisher().deliver(deliveryJob({ caption: 'hello' }));
    expect(outcome).toMatchObject({ ok: false, kind: 'refused' });
    expect(!outcome.ok && outcome.reason).toBe('Bluesky refused the post: bad token <token> <secret>');
  });
});
