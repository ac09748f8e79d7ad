/**
 * What is X's own in the X connector, against the loopback stand-in (test/support/x-server.ts): what each
 * field of a post becomes on the wire (text, link, poll, images, a video in chunks, the reply), the
 * steps of a video X processes, the post found again after its answer was lost, verify's messages and
 * the sign-in's hooks. The tokens' refresh through the engine is in x-tokens.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PlatformContent } from '../../src/domain/delivery.js';
import type { CheckOutcome, DeliveryJob, PrepareOutcome, Publisher } from '../../src/ports.js';
import type { ConnectorContext, MediaSource } from '../../src/publish/connector.js';
import { verifyX } from '../../src/publish/connectors/x/x-account.js';
import { openX } from '../../src/publish/connectors/x/x-connector.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import { FakeClock } from '../support/fake-clock.js';
import { startXServer, type XServer, type XServerOptions } from '../support/x-server.js';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const MiB = 1024 * 1024;
/** A video of 2.5 MiB: an MP4 header, then zeros. */
const VIDEO = new Uint8Array(2.5 * MiB);
VIDEO.set([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6d, 0x70, 0x34, 0x32]);
const FILES: Record<string, () => MediaSource> = {
  a: () => mediaFromBytes(PNG, 'image/png', 'a.png'),
  b: () => mediaFromBytes(PNG, 'image/png', 'b.png'),
  v: () => {
    const file = mediaFromBytes(VIDEO, 'video/mp4', 'v.mp4');
    return {
      ...file,
      blob: () => {
        reads.push('whole');
        return file.blob();
      },
      range: (start: number, end: number) => {
        reads.push(end - start);
        return file.range(start, end);
      },
    };
  },
};
/** How the video was read: the sizes of its ranges, or 'whole'. */
let reads: (number | 'whole')[] = [];

let server: XServer;
let clock: FakeClock;
let opened: Publisher[] = [];
let jobs = 0;

async function start(options: Omit<XServerOptions, 'now'> = {}): Promise<void> {
  clock = new FakeClock(Date.now());
  reads = [];
  server = await startXServer({ ...options, now: () => clock.now() });
}

afterEach(async () => {
  await Promise.all(opened.map((publisher) => publisher.close?.()));
  opened = [];
  await server.close();
});

function context(overrides: Partial<ConnectorContext> = {}): ConnectorContext {
  return {
    loadMedia: async (_brandId, media) => FILES[media.id!]!(),
    saveSecret: async () => {},
    clock,
    log: () => {},
    timeoutMs: 2_000,
    userAgent: 'social-publisher-mcp/test',
    ...overrides,
  };
}

async function connect(overrides: Partial<ConnectorContext> = {}): Promise<Publisher> {
  const verified = await verifyX({ apiRoot: server.url, tokens: server.tokens() });
  const publisher = openX({ ...verified, channelId: 7 }, context(overrides));
  opened.push(publisher);
  return publisher;
}

function job(content: Partial<PlatformContent>, state: DeliveryJob['state'] = {}): DeliveryJob {
  jobs++;
  return {
    deliveryId: jobs,
    postId: jobs,
    brandId: 1,
    channel: { id: 7, name: 'Acme on X', type: 'X/Twitter' },
    content: { platform: 'X/Twitter', format: 'feed', media: [], ...content },
    idempotencyKey: `store-1-${jobs}`,
    dueAtMs: clock.now(),
    attempt: 1,
    state,
  };
}

const bodyOf = (route: string, index = 0) => server.kit.requestsTo(route)[index]?.body;

describe('what a post becomes on X', () => {
  it('sends the caption, the link and the poll question as the text, and the poll as a poll', async () => {
    await start({ rateLimit: {} });
    const outcome = await (await connect()).deliver(
      job({
        caption: 'Our new schedule',
        link: 'https://example.com/schedule',
        poll: { question: 'Which day suits you?', options: ['Monday', 'Friday'], period: '3d' },
      }),
    );
    expect(bodyOf('/2/tweets')?.json).toEqual({
      text: 'Our new schedule\n\nhttps://example.com/schedule\n\nWhich day suits you?',
      poll: { options: ['Monday', 'Friday'], duration_minutes: 4_320 },
    });
    const id = server.posts[0]!.id;
    expect(outcome).toEqual({
      ok: true,
      externalId: id,
      url: `https://x.com/acme/status/${id}`,
      limit: { remaining: expect.any(Number), resetAtMs: expect.any(Number) },
    });
  });

  it('uploads each image in one request and posts them in order', async () => {
    await start();
    const outcome = await (await connect()).deliver(
      job({ caption: 'Two', media: [{ id: 'a' }, { id: 'b' }] }),
    );
    const uploads = server.kit.requestsTo('/2/media/upload', 'POST');
    expect(uploads.map((request) => [request.body.files[0]?.name, request.body.files[0]?.size])).toEqual([
      ['a.png', PNG.length],
      ['b.png', PNG.length],
    ]);
    expect(uploads.map((request) => request.body.fields)).toEqual([
      [['media_category', 'tweet_image']],
      [['media_category', 'tweet_image']],
    ]);
    const ids = [...server.media.keys()];
    expect(bodyOf('/2/tweets')?.json).toEqual({ text: 'Two', media: { media_ids: ids } });
    expect(outcome).toMatchObject({ ok: true });
  });

  it('uploads a video in 1 MiB chunks, waits for X outside the send, then posts it', async () => {
    await start({ videoProcessingMs: 5_000 });
    const publisher = await connect();
    const first = await publisher.deliver(job({ caption: 'Watch', media: [{ id: 'v' }] }));
    expect(bodyOf('/2/media/upload/initialize')?.json).toEqual({
      media_type: 'video/mp4',
      total_bytes: VIDEO.length,
      media_category: 'tweet_video',
    });
    const [video] = [...server.media.values()];
    expect(video!.appendSizes).toEqual([MiB, MiB, MiB / 2]);
    // Read a chunk at a time as it is sent, never whole.
    expect(reads).toEqual([MiB, MiB, MiB / 2]);
    expect([...video!.segments.keys()]).toEqual([0, 1, 2]);
    expect(server.kit.requestsTo('/2/media/upload/:id/finalize')).toHaveLength(1);
    expect(server.posts).toEqual([]);
    // X said when to ask again: check_after_secs of the time left.
    expect(first).toMatchObject({
      ok: 'pending',
      checkAtMs: clock.now() + 5_000,
      reason: 'X is processing a video of the post.',
    });
    if (first.ok !== 'pending') return;
    clock.advance(2_000);
    const still = await publisher.check!({
      ...job({ caption: 'Watch', media: [{ id: 'v' }] }),
      state: first.state,
    });
    expect(still).toMatchObject({ ok: 'pending', checkAtMs: clock.now() + 3_000 });
    expect(server.kit.requestsTo('/2/media/upload', 'GET')[0]?.query.get('command')).toBe('STATUS');
    clock.advance(3_000);
    const ready = await publisher.check!({
      ...job({ caption: 'Watch', media: [{ id: 'v' }] }),
      state: first.state,
    });
    // The post itself goes through a commit, which the engine never resends blindly.
    expect(ready).toMatchObject({ ok: 'prepared' });
    expect(server.posts).toEqual([]);
    if (ready.ok !== 'prepared') return;
    const sent = await publisher.deliver(job({ caption: 'Watch', media: [{ id: 'v' }] }, ready.state));
    expect(sent).toMatchObject({ ok: true });
    expect(server.posts[0]!.mediaIds).toEqual([video!.id]);
    expect(server.kit.requestsTo('/2/media/upload/initialize')).toHaveLength(1);
  });

  it("describes each image with the post's alt text, and no video", async () => {
    await start({ videoProcessingMs: 0 });
    const publisher = await connect();
    await publisher.deliver(
      job({ caption: 'Described', alt: 'A cup of coffee', media: [{ id: 'a' }, { id: 'b' }] }),
    );
    expect([...server.media.values()].map((item) => item.altText)).toEqual([
      'A cup of coffee',
      'A cup of coffee',
    ]);
    expect(bodyOf('/2/media/metadata')?.json).toEqual({
      id: [...server.media.keys()][0],
      metadata: { alt_text: { text: 'A cup of coffee' } },
    });
    await publisher.prepare!(job({ alt: 'A clip', media: [{ id: 'v' }] }));
    expect(server.kit.requestsTo('/2/media/metadata')).toHaveLength(2);
  });

  it('refuses a video with other media before uploading anything', async () => {
    await start();
    const outcome = await (await connect()).deliver(job({ media: [{ id: 'v' }, { id: 'a' }] }));
    expect(outcome).toEqual({
      ok: false,
      kind: 'refused',
      reason:
        'X takes up to 4 images, or one video or GIF alone, in one post: send the video in a post of its own.',
    });
    expect(server.media.size).toBe(0);
  });

  it("fails a video X could not process, in X's words", async () => {
    await start({ videoProcessingFails: true });
    const publisher = await connect();
    let outcome: CheckOutcome | PrepareOutcome = await publisher.prepare!(job({ media: [{ id: 'v' }] }));
    for (let i = 0; i < 3 && outcome.ok === 'pending'; i++) {
      outcome = await publisher.check!(job({ media: [{ id: 'v' }] }, outcome.state));
    }
    expect(outcome).toEqual({
      ok: false,
      kind: 'refused',
      reason:
        'X could not process a video of the post (InvalidMedia: Unsupported video codec): check its format.',
    });
  });

  it('prepares the media ahead, within the day X keeps them, and the commit only posts', async () => {
    await start();
    const publisher = await connect();
    expect(publisher.prepareLeadMs).toBeLessThan(24 * 3_600_000);
    const prepared = await publisher.prepare!(job({ caption: 'Ahead', media: [{ id: 'a' }] }));
    expect(prepared).toMatchObject({ ok: 'prepared', expiresAtMs: clock.now() + 23 * 3_600_000 });
    if (prepared.ok !== 'prepared') return;
    const before = server.kit.log.length;
    expect(
      await publisher.deliver(job({ caption: 'Ahead', media: [{ id: 'a' }] }, prepared.state)),
    ).toMatchObject({
      ok: true,
    });
    expect(server.kit.log.slice(before).map((request) => request.route)).toEqual(['/2/tweets']);
  });

  it('posts the auto-comment as a reply; refused replies and duplicates are refused in X words', async () => {
    await start();
    const publisher = await connect();
    const sent = await publisher.deliver(job({ caption: 'Hello' }));
    const comment = { deliveryId: 1, postId: 1, brandId: 1, channel: job({}).channel, comment: 'More below' };
    const externalId = sent.ok === true ? sent.externalId : null;
    const reply = await publisher.comment({ ...comment, externalId, idempotencyKey: 'c1' });
    expect(bodyOf('/2/tweets', 1)?.json).toEqual({
      text: 'More below',
      reply: { in_reply_to_tweet_id: externalId },
    });
    expect(reply).toMatchObject({
      ok: true,
      url: expect.stringMatching(/^https:\/\/x\.com\/acme\/status\/\d+$/),
    });
    expect(await publisher.deliver(job({ caption: 'Hello' }))).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'X refused the post: You are not allowed to create a Tweet with duplicate content.',
    });
    await server.close();
    await start({ refuseReplies: true });
    const other = await connect();
    const post = await other.deliver(job({ caption: 'Hi' }));
    const refused = await other.comment({
      ...comment,
      externalId: post.ok === true ? post.externalId : null,
      idempotencyKey: 'c2',
    });
    expect(refused).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('Reply to this conversation is not allowed'),
    });
  });
});

describe('a post whose answer was lost', () => {
  it('is found by its text (X shortens its links) and media, and only since the delivery fell due', async () => {
    await start();
    const publisher = await connect({ timeoutMs: 300 });
    const content = { caption: 'Read this & that', link: 'https://example.com/a', media: [{ id: 'a' }] };
    const prepared = await publisher.prepare!(job(content));
    if (prepared.ok !== 'prepared') throw new Error('not prepared');
    server.kit.hangAfterCreating({ route: '/2/tweets' });
    const lost = job(content, prepared.state);
    expect(await publisher.deliver(lost)).toMatchObject({ ok: false, kind: 'unknown' });
    expect(server.posts).toHaveLength(1);
    const found = await publisher.confirm!(lost);
    expect(found).toEqual({
      ok: true,
      externalId: server.posts[0]!.id,
      url: `https://x.com/acme/status/${server.posts[0]!.id}`,
    });
    // A due time ahead of this clock (another process's) is read as now: the commit was not later.
    expect(await publisher.confirm!({ ...lost, dueAtMs: clock.now() + 3_600_000 })).toMatchObject({
      ok: true,
    });
    // The same text due an hour later (a repeated post) is not that one.
    clock.advance(3_600_000);
    expect(await publisher.confirm!({ ...lost, dueAtMs: clock.now() })).toEqual({ ok: 'absent' });
  });
});

describe('verifyX', () => {
  it('says who the account is and stores the tokens as the secret', async () => {
    await start();
    const tokens = server.tokens();
    const verified = await verifyX({ apiRoot: `${server.url}/`, tokens });
    expect(verified).toMatchObject({
      kind: 'x',
      account: '@acme',
      accountId: server.userId,
      endpoint: server.url,
      profileUrl: 'https://x.com/acme',
      settings: { username: 'acme' },
      capabilities: { textUnit: 'weighted', textLimit: 280, maxMedia: 4 },
    });
    expect(JSON.parse(verified.secret)).toEqual(tokens);
  });

  it('says what to fix, never with a token', async () => {
    await start();
    const narrow = server.tokens('tweet.read offline.access');
    const refused = verifyX({ apiRoot: server.url, tokens: narrow }).catch((error: Error) => error.message);
    expect(await refused).toBe(
      'X refused the sign-in (You are not permitted to perform this action. (client-forbidden)): make sure the app has the scopes tweet.read and users.read and read-and-write permission, then sign in again.',
    );
    const tokens = server.tokens();
    server.kit.revoke(tokens.accessToken);
    expect(await verifyX({ apiRoot: server.url, tokens }).catch((error: Error) => error.message)).toMatch(
      /^X refused the sign-in \(Unauthorized\)/,
    );
    const wrong = await verifyX({ apiRoot: `${server.url}/nowhere`, tokens: server.tokens() }).catch(
      (error: Error) => error.message,
    );
    expect(wrong).toBe(
      `${server.url}/nowhere did not answer like X (users/me: Sorry, that page does not exist): check --api-root, or try again if X is down.`,
    );
    await server.close();
    const gone = await verifyX({ apiRoot: server.url, tokens }).catch((error: Error) => error.message);
    expect(gone).toMatch(new RegExp(`^Could not reach X at ${server.url} \\(.*\\): check --api-root\\.$`));
    for (const message of [await refused, wrong, gone]) expect(message).not.toContain(tokens.accessToken);
  });
});

describe("X's refusals, classified once", () => {
  it('waits for the 24-hour reset when that is the limit spent', async () => {
    await start();
    const publisher = await connect();
    const resetS = Math.ceil(clock.now() / 1000) + 5 * 3_600;
    server.kit.answerNext(
      {
        status: 429,
        headers: {
          'x-rate-limit-limit': '100',
          'x-rate-limit-remaining': '57',
          'x-rate-limit-reset': String(Math.ceil(clock.now() / 1000) + 600),
          'x-app-limit-24hour-limit': '10000',
          'x-app-limit-24hour-remaining': '0',
          'x-app-limit-24hour-reset': String(resetS),
        },
        body: { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
      },
      { route: '/2/tweets' },
    );
    const outcome = await publisher.deliver(job({ caption: 'Limited' }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'rate_limited',
      reason: 'X is rate limiting @acme (Too Many Requests).',
    });
    const wait = outcome.ok === false ? (outcome.retryAfterMs ?? 0) : 0;
    expect(Math.abs(wait - (resetS * 1000 - clock.now()))).toBeLessThan(1_000);
  });

  it('refuses when the usage cap is reached, a suspended account, and reconnects on Unsupported Authentication', async () => {
    await start();
    const publisher = await connect();
    const capped = {
      title: 'Usage cap exceeded',
      detail: 'Usage cap exceeded: Monthly product cap',
      type: 'https://api.x.com/2/problems/usage-capped',
      status: 429,
    };
    server.kit.failNext(429, capped, { route: '/2/tweets' });
    expect(await publisher.deliver(job({ caption: 'Capped' }))).toEqual({
      ok: false,
      kind: 'refused',
      reason:
        "X refused the post: Usage cap exceeded: Monthly product cap (usage-capped). The X app's usage cap is reached: add credits in the developer portal (developer.x.com), then publish again.",
    });
    const suspended = {
      title: 'Forbidden',
      detail: 'Your account is suspended and is not permitted to access this feature.',
      type: 'https://api.x.com/2/problems/user-suspended',
      status: 403,
    };
    server.kit.failNext(403, suspended, { route: '/2/tweets' });
    expect(await publisher.deliver(job({ caption: 'Suspended' }))).toEqual({
      ok: false,
      kind: 'refused',
      reason:
        'X refused the post: Your account is suspended and is not permitted to access this feature. (user-suspended)',
    });
    const unsupported = {
      title: 'Unsupported Authentication',
      detail: 'Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.',
      type: 'https://api.x.com/2/problems/unsupported-authentication',
      status: 403,
    };
    server.kit.failNext(403, unsupported, { route: '/2/tweets' });
    expect(await publisher.deliver(job({ caption: 'App-only' }))).toEqual({
      ok: false,
      kind: 'reconnect',
      reason:
        'X refused the sign-in of @acme (Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint. (unsupported-authentication)): run `social-publisher-mcp connect x` again to reconnect the channel.',
    });
  });
});
