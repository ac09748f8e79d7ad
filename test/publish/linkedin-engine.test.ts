/**
 * The LinkedIn connector through the engine, against the LinkedIn stand-in whose video processes for
 * five minutes by the engine's clock: the send gives its slot back while LinkedIn processes, another
 * process (a second scheduler on the same store) finishes it, and the post is made once, with the
 * video, when LinkedIn has made it AVAILABLE. A lost answer is not sent again.
 */
import { afterEach, expect, it } from 'vitest';
import { tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import { type LinkedInServer, MEMBER_URN, startLinkedInServer } from '../support/linkedin-server.js';
import type { TestRuntime } from '../support/local.js';
import { openEngineRuntime, openOAuthEngine } from '../support/oauth-engine.js';

const PROCESSING_MS = 5 * 60_000;
/** The start of an MP4 file (an `ftyp` box): what the type detection reads. */
const MP4 = Uint8Array.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6d, 0x70, 0x34, 0x32, 0, 0, 0, 0]);

let rt: TestRuntime;
let linkedin: LinkedInServer;
afterEach(async () => {
  await rt.close();
  await linkedin.close();
});

async function setUp() {
  rt = await openEngineRuntime();
  linkedin = await startLinkedInServer({ now: () => rt.clock.now(), videoProcessingMs: PROCESSING_MS });
  const engine = await openOAuthEngine(
    rt,
    {
      name: 'Acme on LinkedIn',
      type: 'LinkedIn',
      connector: 'linkedin',
      account: 'Ada Lovelace',
      accountId: MEMBER_URN,
      instance: linkedin.url,
    },
    tokensSecret({ accessToken: linkedin.token, expiresAtMs: rt.clock.now() + 50 * 86_400_000 }),
  );
  return { ...engine, uploadVideo: () => engine.upload('clip.mp4', MP4) };
}

it('a video LinkedIn processes for five minutes holds nothing; another process posts it once, when ready', async () => {
  const { scheduler, publish, uploadVideo } = await setUp();
  const [engine, other] = [scheduler(), scheduler()];
  const read = await publish({
    publishMode: 'IMMEDIATE',
    caption: 'Our roast (on video)',
    media: [{ id: await uploadVideo() }],
  });
  await engine.runOnce();
  const waiting = (await read()).deliveries[0]!;
  expect(waiting.status).toBe('sending');
  expect(waiting.reason).toMatch(/processing/i);
  expect(linkedin.posts).toHaveLength(0);
  const started = rt.clock.now();
  let turn = 0;
  while (rt.clock.now() < started + PROCESSING_MS + 120_000 && linkedin.posts.length === 0) {
    rt.clock.advance(20_000);
    await (turn++ % 2 === 0 ? other : engine).runOnce();
    if (rt.clock.now() < started + PROCESSING_MS) expect(linkedin.posts).toHaveLength(0);
  }
  expect(linkedin.posts).toHaveLength(1);
  expect(linkedin.uploads.size).toBe(1);
  expect(linkedin.kit.requestsTo('/rest/posts')).toHaveLength(1);
  const video = [...linkedin.uploads.values()][0]!;
  expect(linkedin.posts[0]!.body).toMatchObject({
    commentary: 'Our roast \\(on video\\)',
    content: { media: { id: video.urn } },
  });
  const published = await read();
  expect(published.status).toBe('published');
  expect(published.deliveries[0]!.externalId).toBe(linkedin.posts[0]!.urn);
  const checks = linkedin.kit.requestsTo('/rest/videos/:urn');
  expect(checks.length).toBeGreaterThan(0);
  expect(checks.length).toBeLessThan(40);
});

it('a post whose answer is lost fails with the reason and is not sent again', async () => {
  const { scheduler, publish } = await setUp();
  const engine = scheduler();
  linkedin.kit.hangAfterCreating({ route: '/rest/posts' });
  const read = await publish({ publishMode: 'IMMEDIATE', caption: 'Once only' });
  await engine.runOnce();
  for (let i = 0; i < 5; i++) {
    rt.clock.advance(60_000);
    await engine.runOnce();
  }
  expect(linkedin.kit.requestsTo('/rest/posts')).toHaveLength(1);
  const delivery = (await read()).deliveries[0]!;
  expect(delivery.status).toBe('failed');
  expect(delivery.reason).toMatch(/may have been published/);
});
