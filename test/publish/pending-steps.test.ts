/**
 * Steps that take time at the platform, through the engine, against the Mastodon stand-in, whose video
 * processes for five minutes by the engine's clock (a GET of it answers 206, a status with it is
 * refused, as Mastodon does), counted and timed at the stand-in:
 * - a video still processing holds no send slot: with one slot, another channel's post goes out in the
 *   same pass; the post is published, and announced once, when processing ends, by whichever process
 *   checks it then;
 * - a SCHEDULE post's video is uploaded ahead of its time (prepare) and only the status is sent at its
 *   due second.
 */
import { afterEach, expect, it } from 'vitest';
import { formatLocalTime } from '../../src/domain/time.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { type ConnectedEngine, openConnectedEngine } from '../support/connected-engine.js';

const PROCESSING_MS = 5 * 60_000;
let world: ConnectedEngine;
afterEach(() => world.close());

const uploads = () => world.mastodon.kit.requestsTo('/api/v2/media');
const statusPosts = () => world.mastodon.kit.requestsTo('/api/v1/statuses', 'POST');

it('a video processing for five minutes holds no send slot; the post is published when it is done', async () => {
  world = await openConnectedEngine({ mastodon: { videoProcessingMs: PROCESSING_MS } });
  const { rt, mastodon, telegram } = world;
  const events: string[] = [];
  const tell = (event: { message: string }) => events.push(event.message);
  const engine = world.scheduler(500, 1, tell);
  const other = world.scheduler(500, 1, tell); // another process on the same store
  const mediaId = await world.uploadVideo();
  const video = await world.publishTo('Mastodon', {
    publishMode: 'IMMEDIATE',
    caption: 'Our new roast, on video',
    media: [{ id: mediaId }],
  });
  const text = await world.publishTo('Telegram', { publishMode: 'IMMEDIATE', caption: 'Meanwhile, in text' });
  await engine.runOnce();
  // One slot: the video's send gave it back while Mastodon processes, and the text went out.
  expect(uploads()).toHaveLength(1);
  expect(telegram.messages.map((message) => message.text)).toEqual(['Meanwhile, in text']);
  expect((await text.read()).status).toBe('published');
  const waiting = (await video.read()).deliveries[0]!;
  expect(waiting.status).toBe('sending');
  expect(waiting.reason).toMatch(/processing/i);
  expect(mastodon.statuses).toHaveLength(0);

  // Checked now and then, by both processes, until Mastodon is done: never a status before.
  const startedMs = rt.clock.now();
  let turn = 0;
  while (rt.clock.now() < startedMs + PROCESSING_MS + 60_000 && mastodon.statuses.length === 0) {
    rt.clock.advance(15_000);
    await (turn++ % 2 === 0 ? other : engine).runOnce();
    if (rt.clock.now() < startedMs + PROCESSING_MS) expect(mastodon.statuses).toHaveLength(0);
  }
  expect(mastodon.statuses).toHaveLength(1);
  expect(statusPosts()).toHaveLength(1);
  expect(uploads()).toHaveLength(1);
  const published = await video.read();
  expect(published.status).toBe('published');
  expect(published.deliveries[0]!.externalId).toBe(mastodon.statuses[0]!.id);
  expect(events.filter((message) => message === `post ${video.postId}: published`)).toHaveLength(1);
  // The media was checked a few times, not once per second of processing.
  const checks = mastodon.kit.requestsTo('/api/v1/media/:id');
  expect(checks.length).toBeGreaterThan(0);
  expect(checks.length).toBeLessThan(40);
  process.stderr.write(`a video processing for 5 min: ${checks.length} checks, published once\n`);
});

it("a SCHEDULE post's video is uploaded ahead of its time and only the status goes at its due second", async () => {
  world = await openConnectedEngine({ mastodon: { videoProcessingMs: PROCESSING_MS } });
  const { rt, mastodon } = world;
  const engine = world.scheduler();
  const mediaId = await world.uploadVideo();
  const dueAtMs = Math.ceil(rt.clock.now() / 1000) * 1000 + 10 * 60_000;
  const post = await world.publishTo('Mastodon', {
    publishMode: 'SCHEDULE',
    scheduledAt: formatLocalTime(dueAtMs, 'Europe/London'),
    caption: 'Scheduled, with a video',
    media: [{ id: mediaId }],
  });
  // Ten minutes ahead: within Mastodon's lead, the video is uploaded now and processes meanwhile.
  await engine.runOnce();
  expect(uploads()).toHaveLength(1);
  expect(uploads()[0]!.receivedAt).toBeLessThan(dueAtMs);
  expect((await post.read()).status).toBe('scheduled');
  for (let at = rt.clock.now() + 60_000; at < dueAtMs; at += 60_000) {
    rt.clock.set(at);
    await engine.runOnce();
  }
  expect(mastodon.statuses).toHaveLength(0);

  // At the due second: the status alone, with the media prepared ahead.
  rt.clock.set(dueAtMs);
  await engine.runOnce();
  expect(uploads()).toHaveLength(1);
  expect(statusPosts().map((request) => request.receivedAt)).toEqual([dueAtMs]);
  expect(mastodon.statuses).toHaveLength(1);
  expect(mastodon.statuses[0]!.mediaIds).toEqual([...mastodon.media.keys()]);
  expect((await post.read()).status).toBe('published');
});

it('a post moved past the time the platform keeps its prepared media is uploaded again at its time', async () => {
  world = await openConnectedEngine({ mastodon: { videoProcessingMs: 0 } });
  const { rt, mastodon } = world;
  const engine = world.scheduler();
  const mediaId = await world.uploadVideo();
  const startMs = Math.ceil(rt.clock.now() / 1000) * 1000;
  const post = await world.publishTo('Mastodon', {
    publishMode: 'SCHEDULE',
    scheduledAt: formatLocalTime(startMs + 10 * 60_000, 'Europe/London'),
    caption: 'Moved to tomorrow',
    media: [{ id: mediaId }],
  });
  await engine.runOnce();
  rt.clock.advance(5_000); // its processing, checked: prepared
  await engine.runOnce();
  expect(uploads()).toHaveLength(1);
  const [prepared] = [...(await rt.runtime.store.jobs.preparedFor(post.postId)).values()];
  expect(prepared?.status).toBe('done');
  // Moved 21 hours later, same content: Mastodon deletes unattached media after a day, counted as 20 h.
  const movedMs = startMs + 21 * 60 * 60_000;
  const { store } = rt.runtime;
  const brandId = (await store.findBrandIdByTitle('Acme'))!;
  await new LocalPublishingService(rt.runtime, (await store.onlyUser())!).updatePost({
    brandId,
    postId: post.postId,
    scheduledAt: formatLocalTime(movedMs, 'Europe/London'),
  });
  rt.clock.set(movedMs);
  await engine.runOnce();
  expect(uploads()).toHaveLength(2);
  rt.clock.advance(5_000); // the new upload's processing, checked
  await engine.runOnce();
  expect(mastodon.statuses).toHaveLength(1);
  expect(mastodon.statuses[0]!.mediaIds).toEqual([[...mastodon.media.keys()][1]]);
  expect((await post.read()).status).toBe('published');
});
