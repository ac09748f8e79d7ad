/**
 * What is Pinterest's own (the contract holds the rest), against its loopback stand-in
 * (test/support/pinterest-server.ts): what each post field becomes in the pin, images by URL or by
 * their bytes (streamed, never read whole), carousels, a video registered, uploaded to the S3 form and
 * processed as a pending step, the limits refused before anything is sent, the auto-comment skipped,
 * the refusals in Pinterest's words.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyHttpFailure } from '../../src/publish/connectors/http.js';
import { NO_COMMENTS } from '../../src/publish/connectors/pinterest/pinterest-connector.js';
import { PINTEREST_HOOKS } from '../../src/publish/connectors/pinterest/pinterest-failures.js';
import { type PinterestWorld, PNG, pinJob, startPinterestWorld } from '../support/pinterest-world.js';

let world: PinterestWorld;

beforeEach(async () => {
  world = await startPinterestWorld();
});

afterEach(async () => {
  await world.close();
});

const pinsSent = () => world.server.kit.requestsTo('/v5/pins', 'POST');

describe('Pinterest: what a post becomes', () => {
  it('an uploaded image: every field of the pin, the bytes as base64, the pin URL', async () => {
    const publisher = await world.open();
    const media = [world.file('m1', 'image/png')];
    const outcome = await publisher.deliver(
      pinJob({ title: 'Roasted tomatoes', link: 'https://acme.example/tomatoes', alt: 'A tray', media }),
    );
    const [pin] = world.server.pins;
    expect(outcome).toEqual({
      ok: true,
      externalId: pin!.id,
      url: `https://www.pinterest.com/pin/${pin!.id}/`,
      limit: expect.objectContaining({ remaining: expect.any(Number) }),
    });
    expect(pin).toMatchObject({
      boardId: world.server.boards[0]!.id,
      title: 'Roasted tomatoes',
      description: 'Slow-roasted tomatoes, in four steps',
      link: 'https://acme.example/tomatoes',
      altText: 'A tray',
      sourceType: 'image_base64',
      imageBytes: [PNG.length],
    });
    const sent = pinsSent()[0]!.body.json as { media_source: { data: string; content_type: string } };
    expect(Buffer.from(sent.media_source.data, 'base64')).toEqual(PNG);
    expect(sent.media_source.content_type).toBe('image/png');
    expect(world.files.get('m1')!.released).toBe(1);
  });

  it('the link is the pin’s own and stays out of the description; no title, alt or link: none sent', async () => {
    const publisher = await world.open();
    await publisher.deliver(pinJob({ media: [world.file('m1', 'image/jpeg')] }));
    const sent = pinsSent()[0]!.body.json as Record<string, unknown>;
    expect(Object.keys(sent).sort()).toEqual(['board_id', 'description', 'media_source']);
  });

  it('an image given by URL: image_url, fetched by Pinterest, nothing read by us', async () => {
    const publisher = await world.open();
    const url = `${world.images}/photo.png`;
    expect(await publisher.deliver(pinJob({ media: [{ url }] }))).toMatchObject({ ok: true });
    expect(world.server.pins[0]).toMatchObject({
      sourceType: 'image_url',
      imageUrls: [url],
      imageBytes: [PNG.length],
    });
  });

  it('a URL Pinterest cannot reach is refused in its words', async () => {
    const publisher = await world.open();
    const outcome = await publisher.deliver(pinJob({ media: [{ url: `${world.images}/gone.png` }] }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('Unable to reach the URL'),
    });
  });

  it('a carousel of uploaded images (multiple_image_base64), and of URLs (multiple_image_urls)', async () => {
    const publisher = await world.open();
    const media = ['a', 'b', 'c'].map((id) => world.file(id, 'image/png'));
    expect(await publisher.deliver(pinJob({ media }))).toMatchObject({ ok: true });
    const urls = [1, 2].map((i) => ({ url: `${world.images}/photo-${i}.png` }));
    expect(await publisher.deliver(pinJob({ media: urls }))).toMatchObject({ ok: true });
    expect(world.server.pins.map((pin) => [pin.sourceType, pin.imageBytes.length])).toEqual([
      ['multiple_image_base64', 3],
      ['multiple_image_urls', 2],
    ]);
  });

  it('an image is streamed as base64 a chunk at a time, never read whole', async () => {
    const publisher = await world.open();
    const size = 2 * 1024 * 1024 + 5;
    const media = [world.file('big', 'image/jpeg', size)];
    expect(await publisher.deliver(pinJob({ media }))).toMatchObject({ ok: true });
    const file = world.files.get('big')!;
    expect(file.blobs).toBe(0);
    expect(file.ranges.length).toBe(3);
    expect(Math.max(...file.ranges.map(([start, end]) => end - start))).toBeLessThanOrEqual(786_432);
    expect(world.server.pins[0]!.imageBytes).toEqual([size]);
  });
});

describe('Pinterest: what is refused before anything is sent', () => {
  const cases: [string, Parameters<typeof pinJob>[0], string][] = [
    ['a title over 100', { title: 't'.repeat(101) }, 'title is 101 characters; Pinterest takes at most 100'],
    ['a description over 800', { caption: 'd'.repeat(801) }, 'description (the caption) is 801 characters'],
    ['a link over 2,048', { link: `https://a.example/${'l'.repeat(2040)}` }, 'link is 2058 characters'],
    ['alt text over 500', { alt: 'a'.repeat(501) }, 'alt text is 501 characters'],
    ['no media', { media: [] }, 'needs an image or a video'],
  ];
  for (const [name, content, said] of cases) {
    it(name, async () => {
      const publisher = await world.open();
      const asked = world.server.kit.log.length;
      const media = content.media ?? [world.file('m1', 'image/png')];
      const outcome = await publisher.deliver(pinJob({ ...content, media }));
      expect(outcome).toMatchObject({ ok: false, kind: 'refused', reason: expect.stringContaining(said) });
      expect(world.server.kit.log).toHaveLength(asked);
    });
  }

  it('a carousel of 6, two videos, a video with two images, a GIF by bytes', async () => {
    const publisher = await world.open();
    const image = (id: string) => world.file(id, 'image/png');
    const video = (id: string) => world.file(id, 'video/mp4');
    const refusals = [
      [[1, 2, 3, 4, 5, 6].map((i) => image(`i${i}`)), 'holds 2 to 5 images, not 6'],
      [[video('v1'), video('v2')], 'one video, not several'],
      [[video('v1'), image('i1'), image('i2')], 'one image beside the video'],
      [[world.file('g', 'image/gif')], 'JPEG or PNG, not image/gif'],
    ] as const;
    for (const [media, said] of refusals) {
      const outcome = await publisher.deliver(pinJob({ media: [...media] }));
      expect(outcome).toMatchObject({ ok: false, kind: 'refused', reason: expect.stringContaining(said) });
    }
    expect(pinsSent()).toHaveLength(0);
    expect(world.server.kit.requestsTo('/v5/media', 'POST')).toHaveLength(0);
  });
});

describe('Pinterest: a video pin', () => {
  it('prepare registers and uploads it (S3 form: the parameters, then the file), pending while it processes', async () => {
    await world.server.close();
    world = await startPinterestWorld({ videoProcessingMs: 30_000 });
    const publisher = await world.open();
    const job = pinJob({ title: 'Tomato time-lapse', media: [world.file('v', 'video/mp4', 100_000)] });
    const prepared = await publisher.prepare!(job);
    expect(prepared).toMatchObject({
      ok: 'pending',
      reason: 'Pinterest is processing the video of the pin.',
    });
    const upload = world.server.kit.requestsTo('/pinterest-media-upload')[0]!;
    expect(upload.body.fields.map(([name]) => name)).toEqual([
      'x-amz-date',
      'x-amz-signature',
      'x-amz-security-token',
      'x-amz-algorithm',
      'key',
      'policy',
      'x-amz-credential',
      'Content-Type',
    ]);
    expect(upload.body.files).toMatchObject([{ field: 'file', size: 100_000, name: 'v.mp4' }]);
    expect(upload.headers.authorization).toBeUndefined();
    expect(world.files.get('v')).toMatchObject({ blobs: 1, released: 1 });
    const state = prepared.ok === 'pending' ? prepared.state : {};
    expect(await publisher.check!({ ...job, state })).toMatchObject({ ok: 'pending' });
    world.clock.nowMs += 30_000;
    const ready = await publisher.check!({ ...job, state });
    expect(ready).toMatchObject({ ok: 'prepared' });
    expect(pinsSent()).toHaveLength(0);
    const outcome = await publisher.deliver({ ...job, state: ready.ok === 'prepared' ? ready.state : {} });
    expect(outcome).toMatchObject({
      ok: true,
      url: expect.stringMatching(/^https:\/\/www\.pinterest\.com\/pin\//),
    });
    expect(world.server.pins[0]).toMatchObject({
      sourceType: 'video_id',
      cover: 'key_frame',
      title: 'Tomato time-lapse',
    });
    expect(world.server.kit.requestsTo('/v5/media', 'POST')).toHaveLength(1);
  });

  it('deliver without a prepare uploads, waits as a pending step, and check pins; an image beside it is the cover', async () => {
    await world.server.close();
    world = await startPinterestWorld({ videoProcessingMs: 10_000 });
    const publisher = await world.open();
    const job = pinJob({ media: [world.file('v', 'video/mp4', 5_000), world.file('c', 'image/jpeg')] });
    const first = await publisher.deliver(job);
    expect(first).toMatchObject({ ok: 'pending', checkAtMs: world.clock.nowMs + 5_000 });
    world.clock.nowMs += 10_000;
    const done = await publisher.check!({ ...job, state: first.ok === 'pending' ? first.state : {} });
    expect(done).toMatchObject({ ok: true });
    expect(world.server.pins).toMatchObject([{ sourceType: 'video_id', cover: 'data' }]);
    const cover = (pinsSent()[0]!.body.json as { media_source: Record<string, string> }).media_source;
    expect(Buffer.from(cover.cover_image_data!, 'base64').subarray(0, PNG.length)).toEqual(PNG);
    expect(cover.cover_image_content_type).toBe('image/jpeg');
  });

  it('a video prepared more than 6 hours before the commit is uploaded again; an image post prepares nothing', async () => {
    const publisher = await world.open();
    const job = pinJob({ media: [world.file('v', 'video/mp4', 5_000)] });
    const prepared = await publisher.prepare!(job);
    expect(prepared).toMatchObject({ ok: 'prepared', expiresAtMs: world.clock.nowMs + 6 * 3_600_000 });
    world.clock.nowMs += 6 * 3_600_000 + 1;
    const state = prepared.ok === 'prepared' ? prepared.state : {};
    expect(await publisher.deliver({ ...job, state })).toMatchObject({ ok: true });
    expect(world.server.kit.requestsTo('/v5/media', 'POST')).toHaveLength(2);
    const [first, second] = world.server.videos.keys();
    expect(world.server.pins.map((pin) => pin.videoId)).toEqual([second]);
    expect(first).not.toBe(second);
    const asked = world.server.kit.log.length;
    expect(await publisher.prepare!(pinJob({ media: [world.file('m1', 'image/png')] }))).toMatchObject({
      ok: 'prepared',
    });
    expect(world.server.kit.log).toHaveLength(asked);
  });

  it('a video Pinterest fails to process is refused, and no pin is made', async () => {
    const publisher = await world.open();
    world.server.state.failVideos = true;
    const outcome = await publisher.deliver(pinJob({ media: [world.file('v', 'video/mp4', 5_000)] }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('could not process the video'),
    });
    expect(pinsSent()).toHaveLength(0);
  });

  it('an upload S3 refuses is refused in S3’s words; a cut upload is transient (nothing public yet)', async () => {
    const publisher = await world.open();
    world.server.kit.answerNext(
      {
        status: 403,
        headers: { 'content-type': 'application/xml' },
        body: '<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>',
      },
      { route: '/pinterest-media-upload' },
    );
    const outcome = await publisher.deliver(pinJob({ media: [world.file('v', 'video/mp4', 5_000)] }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('Request has expired (AccessDenied)'),
    });
    world.server.kit.dropNext({ route: '/pinterest-media-upload' });
    const dropped = await publisher.deliver(pinJob({ media: [world.file('v', 'video/mp4', 5_000)] }));
    expect(dropped).toMatchObject({ ok: false, kind: 'transient' });
  });
});

describe('Pinterest: the rest of its own', () => {
  it('the auto-comment is skipped with the reason, and nothing is sent', async () => {
    const publisher = await world.open();
    const asked = world.server.kit.log.length;
    const outcome = await publisher.comment({
      deliveryId: 1,
      postId: 1,
      brandId: 1,
      channel: { id: 1, name: 'Recipes', type: 'Pinterest' },
      externalId: '123',
      comment: 'First!',
      idempotencyKey: 'k',
    });
    expect(outcome).toEqual({ ok: false, kind: 'refused', reason: NO_COMMENTS });
    expect(world.server.kit.log).toHaveLength(asked);
  });

  it('a Trial app writing to production is told to use the API sandbox', async () => {
    const publisher = await world.open();
    world.server.kit.failNext(
      403,
      {
        code: 29,
        message:
          'Apps with Trial access may not create Pins in production https://api.pinterest.com - use API Sandbox https://api-sandbox.pinterest.com instead.',
      },
      { route: '/v5/pins' },
    );
    const outcome = await publisher.deliver(pinJob({ media: [world.file('m1', 'image/png')] }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('--api-root https://api-sandbox.pinterest.com'),
    });
  });

  it('a 403 for a missing scope asks for a reconnect; a board that is gone is refused', () => {
    const call = { what: 'pin', address: 'x', account: 'Recipes', nowMs: 0, secrets: [] };
    const answer = (status: number, body: object) => ({
      status,
      headers: {},
      text: JSON.stringify(body),
      json: body,
    });
    expect(
      classifyHttpFailure(
        answer(403, { code: 3, message: 'Not authorized: missing scope pins:write' }),
        PINTEREST_HOOKS,
        call,
      ),
    ).toMatchObject({ kind: 'reconnect' });
    expect(
      classifyHttpFailure(answer(404, { code: 40, message: 'Board not found.' }), PINTEREST_HOOKS, call),
    ).toMatchObject({ kind: 'refused', reason: 'Pinterest refused the pin: Board not found. (code 40)' });
  });

  it('the connection setting boardId replaces the board', async () => {
    const connection = await world.verified();
    const publisher = await world.open({
      ...connection,
      settings: { ...connection.settings, boardId: '1234' },
    });
    const outcome = await publisher.deliver(pinJob({ media: [world.file('m1', 'image/png')] }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('Board not found'),
    });
    expect((pinsSent()[0]!.body.json as { board_id: string }).board_id).toBe('1234');
  });
});
