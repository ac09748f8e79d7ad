/**
 * TikTok through the engine, against the TikTok stand-in whose posts process for two minutes by the
 * engine's clock: an uploaded video goes up in its chunk, the processing holds no send slot, and a
 * process that dies while it reads the publish status (its request never answered, its lease left to
 * run out) leaves the post to another process, which finishes it: published once, uploaded once.
 */
import { afterEach, expect, it } from 'vitest';
import { tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import { jpegBytes } from '../contract/media-files.js';
import type { TestRuntime } from '../support/local.js';
import { openEngineRuntime, openOAuthEngine } from '../support/oauth-engine.js';
import { mp4Bytes } from '../support/tiktok-media.js';
import { startTikTokServer, TIKTOK_OPEN_ID, type TikTokServer } from '../support/tiktok-server.js';

const PROCESSING_MS = 2 * 60_000;
const STATUS = '/v2/post/publish/status/fetch/';

let rt: TestRuntime;
let tiktok: TikTokServer;

afterEach(async () => {
  await rt.close();
  await tiktok.close();
});

/** The engine over a TikTok channel (`scheduler(timeoutMs)`: a process of it on the shared store). */
async function setUp() {
  rt = await openEngineRuntime();
  tiktok = await startTikTokServer({ now: () => rt.clock.now(), processingMs: PROCESSING_MS });
  const engine = await openOAuthEngine(
    rt,
    {
      name: 'Acme on TikTok',
      type: 'TikTok',
      connector: 'tiktok',
      account: '@acme.roasters',
      accountId: TIKTOK_OPEN_ID,
      instance: tiktok.url,
    },
    tokensSecret(tiktok.userTokens()),
  );
  return { ...engine, scheduler: (timeoutMs = 2_000) => engine.scheduler({ timeoutMs }) };
}

it('a process killed while TikTok processes: another one finishes it, and the post is published once', async () => {
  const { scheduler, upload, publish } = await setUp();
  const first = scheduler(60_000);
  const read = await publish({
    publishMode: 'IMMEDIATE',
    caption: 'The new roast, ground fresh',
    media: [{ id: await upload('roast.mp4', mp4Bytes(20, 300_000)) }],
  });
  await first.runOnce();
  const waiting = (await read()).deliveries[0]!;
  expect(waiting.status).toBe('sending');
  expect(waiting.reason).toMatch(/processing/i);
  expect(tiktok.kit.requestsTo('/upload/', 'PUT')).toHaveLength(1);
  expect(tiktok.published()).toEqual([]);

  // The first process asks for the status once processing is over, and dies before the answer.
  tiktok.kit.hang('forever', { route: STATUS });
  rt.clock.advance(PROCESSING_MS + 1_000);
  const dying = first.runOnce();
  await expect.poll(() => tiktok.kit.requestsTo(STATUS).filter((r) => r.answeredAt === null).length).toBe(1);

  // Its claim runs out (no process renews it), and another process takes the check over.
  const second = scheduler();
  for (let i = 0; i < 20 && (await read()).status !== 'published'; i++) {
    rt.clock.advance(30_000);
    await second.runOnce();
  }
  const published = await read();
  expect(published.status).toBe('published');
  const [id] = tiktok.published();
  expect(published.deliveries[0]).toMatchObject({
    status: 'sent',
    externalId: id,
    url: `https://www.tiktok.com/@acme.roasters/video/${id}`,
  });
  expect(tiktok.kit.requestsTo('/v2/post/publish/video/init/', 'POST')).toHaveLength(1);
  expect(tiktok.kit.requestsTo('/upload/', 'PUT')).toHaveLength(1);
  expect(tiktok.publishes.size).toBe(1);

  // The dead process's request ends with the platform; it records nothing over the other's outcome.
  await tiktok.close();
  await dying;
  expect((await read()).deliveries[0]).toMatchObject({ status: 'sent', externalId: id });
});

it('pre-flight tells what is TikTok’s own: the skipped comment, the privacy level, an uploaded photo without a public address, a photo title over 90', async () => {
  const { upload, service, brandId, collectionId } = await setUp();
  const photo = await upload('cup.jpg', jpegBytes());
  const created = await service.createPost({
    brandId,
    collectionId,
    publishMode: 'IMMEDIATE',
    title: '☕'.repeat(46),
    caption: 'A cup',
    media: [{ id: photo }],
    comment: { comment: 'First!', delay: 5 },
  });
  const messages = (created.warnings ?? []).map((warning) => `${warning.outcome}: ${warning.message}`);
  expect(messages).toEqual([
    'change: TikTok has no comments: the auto-comment is not posted there.',
    expect.stringMatching(
      /^fail: TikTok pulls photos from a public address.*SOCIAL_PUBLISHER_PUBLIC_URL.*verified/,
    ),
    expect.stringMatching(
      /^change: TikTok posts it visible to the creator only.*not audited may post a few times a day/,
    ),
  ]);
});
