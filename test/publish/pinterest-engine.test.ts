/**
 * The Pinterest connector through the engine, against the Pinterest stand-in whose video processes for
 * five minutes by the engine's clock: the send gives its slot back while Pinterest processes, another
 * process (a second scheduler on the same store) finishes it, and the pin is made once, with the video,
 * when Pinterest says `succeeded`. A pin whose answer is lost is looked for on the board: found, it is
 * recorded (never pinned twice); never made, it is pinned once more. The auto-comment is skipped with
 * Pinterest's reason, nothing sent.
 */
import { afterEach, expect, it } from 'vitest';
import { tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import type { TestRuntime } from '../support/local.js';
import { openEngineRuntime, openOAuthEngine } from '../support/oauth-engine.js';
import { type PinterestServer, startPinterestServer } from '../support/pinterest-server.js';

const PROCESSING_MS = 5 * 60_000;
/** The start of an MP4 file (an `ftyp` box): what the type detection reads. */
const MP4 = Uint8Array.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6d, 0x70, 0x34, 0x32, 0, 0, 0, 0]);
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

let rt: TestRuntime;
let pinterest: PinterestServer;
afterEach(async () => {
  await rt.close();
  await pinterest.close();
});

async function setUp() {
  rt = await openEngineRuntime();
  pinterest = await startPinterestServer({ now: () => rt.clock.now(), videoProcessingMs: PROCESSING_MS });
  const board = pinterest.boards[0]!;
  const tokens = pinterest.signedIn();
  return openOAuthEngine(
    rt,
    {
      name: 'Acme on Pinterest',
      type: 'Pinterest',
      connector: 'pinterest',
      account: board.name,
      accountId: board.id,
      instance: pinterest.url,
    },
    tokensSecret({ ...tokens, expiresAtMs: rt.clock.now() + 30 * 86_400_000 }),
  );
}

it('a video Pinterest processes for five minutes holds nothing; another process pins it once, when ready', async () => {
  const { scheduler, publish, upload } = await setUp();
  const [engine, other] = [scheduler(), scheduler()];
  const read = await publish({
    publishMode: 'IMMEDIATE',
    title: 'Tomatoes, slow',
    caption: 'Four hours at 120°C',
    media: [{ id: await upload('clip.mp4', MP4) }],
  });
  await engine.runOnce();
  const waiting = (await read()).deliveries[0]!;
  expect(waiting.status).toBe('sending');
  expect(waiting.reason).toMatch(/processing/i);
  expect(pinterest.pins).toHaveLength(0);
  const started = rt.clock.now();
  let turn = 0;
  while (rt.clock.now() < started + PROCESSING_MS + 120_000 && pinterest.pins.length === 0) {
    rt.clock.advance(20_000);
    await (turn++ % 2 === 0 ? other : engine).runOnce();
    if (rt.clock.now() < started + PROCESSING_MS) expect(pinterest.pins).toHaveLength(0);
  }
  expect(pinterest.pins).toHaveLength(1);
  expect(pinterest.videos.size).toBe(1);
  expect(pinterest.kit.requestsTo('/pinterest-media-upload')).toHaveLength(1);
  expect(pinterest.kit.requestsTo('/v5/pins')).toHaveLength(1);
  const [video] = pinterest.videos.values();
  expect(pinterest.pins[0]).toMatchObject({
    sourceType: 'video_id',
    videoId: video!.id,
    title: 'Tomatoes, slow',
    description: 'Four hours at 120°C',
    boardId: pinterest.boards[0]!.id,
  });
  const published = await read();
  expect(published.status).toBe('published');
  expect(published.deliveries[0]).toMatchObject({
    externalId: pinterest.pins[0]!.id,
    url: `https://www.pinterest.com/pin/${pinterest.pins[0]!.id}/`,
  });
  const checks = pinterest.kit.requestsTo('/v5/media/:id');
  expect(checks.length).toBeGreaterThan(0);
  expect(checks.length).toBeLessThan(40);
});

it('a pin whose answer is lost after Pinterest made it is found on the board: one pin, published with its URL', async () => {
  const { scheduler, publish, upload } = await setUp();
  const engine = scheduler();
  pinterest.kit.hangAfterCreating({ route: '/v5/pins' });
  const read = await publish({
    publishMode: 'IMMEDIATE',
    caption: 'Once only',
    media: [{ id: await upload('a.png', PNG) }],
  });
  await engine.runOnce();
  expect((await read()).deliveries[0]!.reason).toMatch(/may have been pinned.*Reading the platform/);
  for (let i = 0; i < 5 && (await read()).status !== 'published'; i++) {
    rt.clock.advance(60_000);
    await engine.runOnce();
  }
  expect(pinterest.kit.requestsTo('/v5/pins')).toHaveLength(1);
  expect(pinterest.pins).toHaveLength(1);
  expect(pinterest.kit.requestsTo('/v5/boards/:board_id/pins')).toHaveLength(1);
  const published = await read();
  expect(published.status).toBe('published');
  expect(published.deliveries[0]).toMatchObject({
    status: 'sent',
    externalId: pinterest.pins[0]!.id,
    url: `https://www.pinterest.com/pin/${pinterest.pins[0]!.id}/`,
  });
});

it('a pin whose request got no answer and was never made is found absent, then pinned once', async () => {
  const { scheduler, publish, upload } = await setUp();
  const engine = scheduler();
  pinterest.kit.hang('forever', { route: '/v5/pins' });
  const read = await publish({
    publishMode: 'IMMEDIATE',
    caption: 'Never arrived',
    media: [{ id: await upload('a.png', PNG) }],
  });
  await engine.runOnce();
  expect(pinterest.pins).toHaveLength(0);
  for (let i = 0; i < 5 && (await read()).status !== 'published'; i++) {
    rt.clock.advance(60_000);
    await engine.runOnce();
  }
  expect((await read()).status).toBe('published');
  expect(pinterest.pins).toHaveLength(1);
  expect(pinterest.kit.requestsTo('/v5/pins')).toHaveLength(2);
  expect((await read()).deliveries[0]!.externalId).toBe(pinterest.pins[0]!.id);
});

it('the auto-comment is skipped with Pinterest’s reason, and nothing more is sent', async () => {
  const { scheduler, publish, upload } = await setUp();
  const engine = scheduler();
  const read = await publish({
    publishMode: 'IMMEDIATE',
    caption: 'With a comment',
    media: [{ id: await upload('b.png', PNG) }],
    comment: { comment: 'Recipe in bio', delay: 0 },
  });
  for (let i = 0; i < 4; i++) {
    await engine.runOnce();
    rt.clock.advance(60_000);
  }
  const post = await read();
  expect(post.deliveries[0]).toMatchObject({ status: 'sent' });
  expect(JSON.stringify(post)).toContain('no way to post a comment');
  expect(pinterest.kit.log.map((request) => request.route)).toEqual(['/v5/pins']);
});
