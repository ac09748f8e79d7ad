/**
 * Facebook Reels and video Stories against the Graph API stand-in (test/support/facebook-server.ts):
 * the three phases (start, the bytes to the upload host, finish), the collaborator of a Reel, the
 * processing as a pending step that finishes or fails with Meta's reason, Meta's 30 Reels a day, and
 * the Page token never sent to an upload address on another host.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlatformContent, PlatformMedia } from '../../src/domain/delivery.js';
import type { CheckOutcome, DeliveryJob, Publisher, StepOutcome } from '../../src/ports.js';
import type { ConnectorContext, MediaSource } from '../../src/publish/connector.js';
import { verifyFacebook } from '../../src/publish/connectors/facebook/facebook-account.js';
import { openFacebook } from '../../src/publish/connectors/facebook/facebook-connector.js';
import { GRAPH_API_VERSION } from '../../src/publish/connectors/meta/graph.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import { contractJob } from '../support/connector-contract.js';
import { type FacebookServer, startFacebookServer } from '../support/facebook-server.js';

let server: FacebookServer;
let nowMs: number;
let files: Map<string, MediaSource & { blobs: number; ranges: number }>;
let publishers: Publisher[];

const REELS = '/:version/:page/video_reels';
const STORIES = '/:version/:page/video_stories';
const BYTES = '/video-upload/:version/:id';

/** A media file of `size` bytes, counting how often it is opened whole (Blob) or in parts. */
function file(id: string, type: string, size: number) {
  const source = mediaFromBytes(new Uint8Array(size).fill(9), type, `${id}.${type.split('/')[1]}`);
  const counted = { ...source, blobs: 0, ranges: 0 };
  counted.blob = () => {
    counted.blobs++;
    return source.blob();
  };
  counted.range = (start, end) => {
    counted.ranges++;
    return source.range(start, end);
  };
  files.set(id, counted);
  return { id, type } satisfies PlatformMedia;
}

function context(timeoutMs = 5_000): ConnectorContext {
  return {
    loadMedia: async (_brand, media) => files.get(media.id ?? '')!,
    saveSecret: async () => {},
    clock: { now: () => nowMs },
    log: () => {},
    timeoutMs,
    userAgent: 'facebook-reels-test',
  };
}

async function open(timeoutMs?: number) {
  const token = server.userToken();
  const connection = await verifyFacebook({
    endpoint: server.url,
    secret: token,
    tokens: { accessToken: token },
    account: server.main.id,
    userAgent: 'facebook-reels-test',
    timeoutMs: 5_000,
  });
  const publisher = openFacebook({ ...connection, channelId: 1 }, context(timeoutMs));
  publishers.push(publisher);
  return publisher;
}

function job(content: Partial<PlatformContent>, state: DeliveryJob['state'] = {}): DeliveryJob {
  const base = contractJob('Facebook');
  return { ...base, content: { ...base.content, ...content }, state };
}

const fieldsOf = (route: string, index: number) =>
  new Map(server.kit.requestsTo(route)[index]?.body.fields ?? []);

/** Checks the pending step once Meta's processing time has passed. */
async function checkLater(publisher: Publisher, pending: StepOutcome): Promise<CheckOutcome> {
  if (pending.ok !== 'pending') throw new Error(`not pending: ${JSON.stringify(pending)}`);
  nowMs += 5_000;
  return publisher.check!(job({}, pending.state));
}

beforeEach(async () => {
  nowMs = Date.UTC(2026, 10, 26, 9);
  server = await startFacebookServer({ now: () => nowMs });
  files = new Map();
  publishers = [];
});

afterEach(async () => {
  await Promise.all(publishers.map((publisher) => publisher.close?.()));
  await server.close();
});

describe('a Reel', () => {
  it('goes up in three phases, the bytes streamed to the upload host, then pending until Meta has processed it', async () => {
    const video = file('r', 'video/mp4', 700_000);
    const publisher = await open();
    const first = await publisher.deliver(
      job({
        caption: 'Latte art',
        link: 'https://acme.test/latte',
        media: [video],
        overrides: { reel: true },
      }),
    );
    expect(first).toMatchObject({ ok: 'pending', reason: 'Facebook is processing the Reel of the post.' });
    expect(server.kit.requestsTo(REELS).map((r) => new Map(r.body.fields).get('upload_phase'))).toEqual([
      'start',
      'finish',
    ]);
    const [upload] = server.kit.requestsTo(BYTES);
    const videoId = [...server.shortVideos.keys()][0]!;
    expect(upload?.path).toBe(`/video-upload/${GRAPH_API_VERSION}/${videoId}`);
    expect(upload?.headers).toMatchObject({
      authorization: `OAuth ${server.main.token}`,
      offset: '0',
      file_size: '700000',
    });
    expect(upload?.body.bytes.length).toBe(700_000);
    expect(files.get('r')).toMatchObject({ blobs: 1, ranges: 0 });
    const finish = fieldsOf(REELS, 1);
    expect(finish.get('video_id')).toBe(videoId);
    expect(finish.get('video_state')).toBe('PUBLISHED');
    expect(finish.get('description')).toBe('Latte art\n\nhttps://acme.test/latte');
    expect(server.posts.filter((post) => post.kind === 'reel')).toHaveLength(1);

    // Still processing: pending again, nothing sent but a read.
    const still = await publisher.check!(job({}, first.ok === 'pending' ? first.state : {}));
    expect(still).toMatchObject({ ok: 'pending' });
    const done = await checkLater(publisher, first);
    expect(done).toEqual({ ok: true, externalId: videoId, url: `https://www.facebook.com/reel/${videoId}` });
    expect(server.kit.requestsTo(REELS)).toHaveLength(2);
    expect(server.kit.requestsTo(BYTES)).toHaveLength(1);
  });

  it('a collaborator makes one video a Reel and is invited on it', async () => {
    const publisher = await open();
    const first = await publisher.deliver(
      job({ media: [file('c', 'video/mp4', 1_000)], overrides: { collab: 'Partner Roasters' } }),
    );
    expect(first).toMatchObject({ ok: 'pending' });
    expect(fieldsOf(REELS, 1).get('collaborators')).toBe('["Partner Roasters"]');
    expect([...server.shortVideos.values()][0]?.collaborators).toEqual(['Partner Roasters']);
    expect(server.kit.requestsTo('/:version/:page/videos')).toHaveLength(0);
  });

  it('a Reel Meta fails to process is refused with Meta’s reason', async () => {
    await server.close();
    server = await startFacebookServer({
      now: () => nowMs,
      shortVideoFails: 'The video is shorter than 3 seconds.',
    });
    const publisher = await open();
    const first = await publisher.deliver(
      job({ media: [file('f', 'video/mp4', 10)], overrides: { reel: true } }),
    );
    expect(await checkLater(publisher, first)).toEqual({
      ok: false,
      kind: 'refused',
      reason:
        'Facebook could not process the Reel (The video is shorter than 3 seconds.): check its format (MP4 or MOV).',
    });
  });

  it('past the 30 Reels a Page may publish in 24 hours, rate limited and nothing published', async () => {
    await server.close();
    server = await startFacebookServer({ now: () => nowMs, reelsPerDay: 1 });
    const publisher = await open();
    const reel = () => job({ media: [file('q', 'video/mp4', 10)], overrides: { reel: true } });
    expect(await publisher.deliver(reel())).toMatchObject({ ok: 'pending' });
    const second = await publisher.deliver(reel());
    expect(second).toMatchObject({ ok: false, kind: 'rate_limited', retryAfterMs: 3_600_000 });
    expect(server.posts.filter((post) => post.kind === 'reel')).toHaveLength(1);
  });

  it('an upload that gets no answer is transient: nothing was published', async () => {
    const publisher = await open(300);
    server.kit.hang('forever', { route: BYTES });
    const outcome = await publisher.deliver(
      job({ media: [file('h', 'video/mp4', 10)], overrides: { reel: true } }),
    );
    expect(outcome).toMatchObject({ ok: false, kind: 'transient' });
    expect(server.posts).toHaveLength(0);
    expect(server.kit.requestsTo(REELS)).toHaveLength(1);
  });

  it('an upload the upload host refuses is refused in its words (its debug_info), nothing published', async () => {
    const publisher = await open();
    server.kit.answerNext(
      {
        status: 400,
        body: {
          debug_info: { retriable: false, type: 'ParameterValidationError', message: 'Bad file_size' },
        },
      },
      { route: BYTES },
    );
    const outcome = await publisher.deliver(
      job({ media: [file('d', 'video/mp4', 10)], overrides: { reel: true } }),
    );
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: 'Facebook refused the video upload: Bad file_size',
    });
    expect(server.posts).toHaveLength(0);
  });

  it('sends the Page token to no upload address on another host than the upload host', async () => {
    const publisher = await open();
    server.kit.answerNext(
      { status: 200, body: { video_id: '424242', upload_url: 'https://uploads.example.net/steal' } },
      { route: REELS },
    );
    await publisher.deliver(job({ media: [file('x', 'video/mp4', 10)], overrides: { reel: true } }));
    expect(server.kit.requestsTo(BYTES).map((request) => request.path)).toEqual([
      `/video-upload/${GRAPH_API_VERSION}/424242`,
    ]);
  });

  it('refuses, before anything is sent, a Reel that is not one video and a collaborator on a Story', async () => {
    const publisher = await open();
    const photo = await publisher.deliver(
      job({ media: [file('p', 'image/png', 10)], overrides: { reel: true } }),
    );
    expect(photo).toMatchObject({ ok: false, kind: 'refused', reason: expect.stringContaining('one video') });
    const story = await publisher.deliver(
      job({ format: 'story', media: [file('s', 'video/mp4', 10)], overrides: { collab: 'Partner' } }),
    );
    expect(story).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('not on a Story'),
    });
    expect(server.kit.log.filter((request) => request.method === 'POST')).toHaveLength(0);
  });
});

describe('a video Story', () => {
  it('goes up in the same three phases on video_stories, then is sent with its post id once processed', async () => {
    const video = file('s', 'video/mp4', 200_000);
    const publisher = await open();
    const first = await publisher.deliver(job({ format: 'story', caption: 'Not sent', media: [video] }));
    expect(first).toMatchObject({ ok: 'pending' });
    expect(server.kit.requestsTo(STORIES).map((r) => new Map(r.body.fields).get('upload_phase'))).toEqual([
      'start',
      'finish',
    ]);
    expect(server.kit.requestsTo(BYTES)[0]?.body.bytes.length).toBe(200_000);
    expect(fieldsOf(STORIES, 1).has('video_state')).toBe(false);
    const story = server.posts.find((post) => post.kind === 'story')!;
    expect(await checkLater(publisher, first)).toMatchObject({ ok: true, externalId: story.id });
    expect(server.kit.requestsTo(REELS)).toHaveLength(0);
  });

  it('a feed video still goes to /videos as bytes, not as a Reel', async () => {
    const publisher = await open();
    expect(await publisher.deliver(job({ media: [file('v', 'video/mp4', 5_000)] }))).toMatchObject({
      ok: 'pending',
    });
    const [upload] = server.kit.requestsTo('/:version/:page/videos');
    expect(upload?.body.files[0]).toMatchObject({ field: 'source', size: 5_000 });
    expect(server.kit.requestsTo(REELS)).toHaveLength(0);
  });
});
