/**
 * What is YouTube's own in its connector, against the loopback stand-in: what each post field becomes
 * (the title, the caption and link as the description, `platforms.youtube.tags`, `privacy`, the
 * playlists of this channel added after processing), the processing as a pending step, the watch URL,
 * the auto-comment as a comment thread, the refusals made before anything is sent (YouTube's limits),
 * the daily quota waited for until midnight Pacific Time, a lost session replaced, and `verify`'s choice
 * of the channel.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryJob, Publisher } from '../../src/ports.js';
import { nextPacificMidnightMs } from '../../src/publish/connectors/google/google-errors.js';
import { verifyYouTube } from '../../src/publish/connectors/youtube/youtube-account.js';
import {
  startYouTubeServer,
  type YouTubeServer,
  type YouTubeServerOptions,
} from '../support/youtube-server.js';
import { openAgainst, stepped, videoFile, videoJob, youtubeContext } from '../support/youtube-steps.js';

let server: YouTubeServer;
let publisher: Publisher;
let logged: string[];
const records = [videoFile('med_video', 600 * 1024), { ...videoFile('med_image', 2048), type: 'image/png' }];

async function start(options: YouTubeServerOptions = {}): Promise<void> {
  server = await startYouTubeServer(options);
  logged = [];
  publisher = await openAgainst(server, youtubeContext(records, { log: (line) => logged.push(line) }));
}

beforeEach(() => start());
afterEach(async () => {
  await publisher.close?.();
  await server.close();
});

const resourceOf = () =>
  server.kit.requestsTo('/upload/youtube/v3/videos', 'POST')[0]!.body.json as {
    snippet: Record<string, unknown>;
    status: Record<string, unknown>;
  };

const stateOf = (outcome: unknown) => (outcome as { state: DeliveryJob['state'] }).state;

/** Runs the delivery's steps to their end, as the engine would. */
const publish = (job: DeliveryJob) => stepped(publisher).deliver(job);

describe('what each post field becomes', () => {
  it('title, caption and link as the description, tags, public by default; the watch URL', async () => {
    const outcome = await publish(
      videoJob('med_video', {
        link: 'https://northwind.example/roast',
        overrides: { tags: ['coffee', 'slow roast'] },
      }),
    );
    const video = [...server.videos.values()][0]!;
    expect(outcome).toEqual({
      ok: true,
      externalId: video.id,
      url: `https://www.youtube.com/watch?v=${video.id}`,
    });
    expect(resourceOf()).toEqual({
      snippet: {
        title: 'Morning roast',
        description: 'How we roast on Mondays.\n\nhttps://northwind.example/roast',
        tags: ['coffee', 'slow roast'],
      },
      status: { privacyStatus: 'public', selfDeclaredMadeForKids: false },
    });
    const opening = server.kit.requestsTo('/upload/youtube/v3/videos', 'POST')[0]!;
    expect(opening.query.get('uploadType')).toBe('resumable');
    expect(opening.headers['x-upload-content-length']).toBe(String(600 * 1024));
    expect(opening.headers['x-upload-content-type']).toBe('video/mp4');
    expect(video.bytes).toBe(600 * 1024);
  });

  it('platforms.youtube.privacy sets the privacy; without a title, the caption’s first line is the title', async () => {
    await publish(
      videoJob('med_video', {
        title: undefined,
        caption: 'Roast day\nmore',
        overrides: { privacy: 'unlisted' },
      }),
    );
    expect(resourceOf().status.privacyStatus).toBe('unlisted');
    expect(resourceOf().snippet.title).toBe('Roast day');
  });

  it('is pending while YouTube processes, then adds this channel’s playlists, each once', async () => {
    let nowMs = Date.now();
    await server.close();
    server = await startYouTubeServer({ videoProcessingMs: 60_000, now: () => nowMs });
    publisher = await openAgainst(server, youtubeContext(records));
    const job = videoJob('med_video', {
      overrides: {
        playlists: [
          { channelId: 1, playlistIds: ['PLroasts', 'PLnews', 'PLroasts'] },
          { channelId: 2, playlistIds: ['PLother'] },
        ],
      },
    });
    const opened = await publisher.deliver(job);
    expect(opened).toMatchObject({ ok: 'pending', state: { step: 'upload' } });
    expect(server.videos.size).toBe(0);
    const uploaded = await publisher.check!({ ...job, state: stateOf(opened) });
    expect(uploaded).toMatchObject({ ok: 'pending', reason: 'YouTube is processing the video.' });
    const still = await publisher.check!({ ...job, state: stateOf(uploaded) });
    expect(still).toMatchObject({ ok: 'pending', reason: 'YouTube is processing the video.' });
    expect(server.playlistItems).toEqual([]);
    nowMs += 60_000;
    const done = await publisher.check!({ ...job, state: stateOf(still) });
    const videoId = [...server.videos.keys()][0]!;
    expect(done).toEqual({
      ok: true,
      externalId: videoId,
      url: `https://www.youtube.com/watch?v=${videoId}`,
    });
    expect(server.playlistItems).toEqual([
      { playlistId: 'PLroasts', videoId },
      { playlistId: 'PLnews', videoId },
    ]);
  });

  it('fails with YouTube’s reason when processing fails', async () => {
    await server.close();
    await start({ processingFails: 'codec' });
    const outcome = await publish(videoJob('med_video'));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('failed: codec'),
    });
  });

  it('playlists after processing; a playlist YouTube refuses is logged and the video stays published', async () => {
    const outcome = await publish(
      videoJob('med_video', {
        overrides: { playlists: [{ channelId: 1, playlistIds: ['PLroasts', 'PLgone', 'PLnews'] }] },
      }),
    );
    const videoId = [...server.videos.keys()][0]!;
    expect(outcome).toMatchObject({ ok: true, externalId: videoId });
    expect(server.playlistItems).toEqual([
      { playlistId: 'PLroasts', videoId },
      { playlistId: 'PLnews', videoId },
    ]);
    expect(logged.join('\n')).toContain('was not added to the playlist PLgone');
  });

  it('a playlist failing for now waits for the next check, the ones added not added again', async () => {
    const job = videoJob('med_video', {
      overrides: { playlists: [{ channelId: 1, playlistIds: ['PLroasts', 'PLnews'] }] },
    });
    const opened = await publisher.deliver(job);
    const uploaded = await publisher.check!({ ...job, state: stateOf(opened) });
    server.playlistTrouble.set('PLnews', {
      status: 503,
      body: { error: { code: 503, message: 'Backend Error', errors: [{ reason: 'backendError' }] } },
    });
    const waiting = await publisher.check!({ ...job, state: stateOf(uploaded) });
    expect(waiting).toMatchObject({ ok: 'pending', state: { step: 'playlists', added: ['PLroasts'] } });
    server.playlistTrouble.clear();
    const done = await publisher.check!({ ...job, state: stateOf(waiting) });
    expect(done).toMatchObject({ ok: true });
    expect(server.playlistItems.map((item) => item.playlistId)).toEqual(['PLroasts', 'PLnews']);
  });
});

describe('refused before anything is sent', () => {
  const cases: [string, Partial<DeliveryJob['content']>, string][] = [
    ['a title over 100 characters', { title: 'T'.repeat(101) }, 'YouTube takes at most 100'],
    ['< or > in the title', { title: 'A <b>roast</b>' }, 'refuses < and > in a title'],
    ['a description over 5,000 bytes', { caption: 'é'.repeat(2_501) }, '5002 bytes in UTF-8'],
    ['< or > in the description', { caption: 'Roast -> cup' }, 'refuses < and > in a description'],
    [
      'tags over 500 characters',
      { overrides: { tags: Array.from({ length: 60 }, (_, i) => `tag number ${i}`) } },
      'drop some of platforms.youtube.tags',
    ],
    ['no video', { media: [] }, 'YouTube publishes a video'],
    ['an image', { media: [{ id: 'med_image' }] }, 'YouTube publishes videos'],
    ['two videos', { media: [{ id: 'med_video' }, { id: 'med_video' }] }, 'one video a post'],
  ];
  for (const [what, content, said] of cases) {
    it(what, async () => {
      const before = server.kit.log.length;
      const outcome = await publisher.deliver(videoJob('med_video', content));
      expect(outcome).toMatchObject({ ok: false, kind: 'refused', reason: expect.stringContaining(said) });
      expect(server.kit.log.length).toBe(before);
    });
  }
});

describe('quota', () => {
  it('the daily uploads spent: rate limited until midnight Pacific Time, saying so', async () => {
    await server.close();
    await start({ uploadsPerDay: 0 });
    const before = Date.now();
    const outcome = await publisher.deliver(videoJob('med_video'));
    expect(outcome).toMatchObject({ ok: false, kind: 'rate_limited' });
    const failed = outcome as { reason: string; retryAfterMs: number };
    expect(failed.reason).toContain('daily YouTube quota is spent');
    expect(failed.reason).toContain('midnight Pacific Time');
    expect(failed.reason).toContain('quotaExceeded');
    const resetAtMs = nextPacificMidnightMs(before);
    expect(Math.abs(before + failed.retryAfterMs - resetAtMs)).toBeLessThan(2_000);
    expect(server.videos.size).toBe(0);
  });

  it('the next Pacific midnight is a Pacific midnight, within a day', () => {
    for (const at of [
      Date.UTC(2026, 10, 26, 7, 59),
      Date.UTC(2026, 10, 26, 8, 1),
      Date.UTC(2026, 6, 1, 12),
    ]) {
      const midnight = nextPacificMidnightMs(at);
      expect(midnight).toBeGreaterThan(at);
      expect(midnight - at).toBeLessThanOrEqual(86_400_000);
      const wall = new Intl.DateTimeFormat('en-US', {
        timeZone: 'America/Los_Angeles',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(midnight);
      expect(wall).toBe('00:00');
    }
  });
});

describe('the auto-comment and the session', () => {
  it('comments as a comment thread on the video', async () => {
    const sent = await publish(videoJob('med_video'));
    const videoId = (sent as { externalId: string }).externalId;
    const comment = {
      deliveryId: 1,
      postId: 1,
      brandId: 1,
      channel: videoJob('x').channel,
      externalId: videoId,
      comment: 'First!',
      idempotencyKey: 'k',
    };
    const outcome = await publisher.comment(comment);
    expect(outcome).toMatchObject({ ok: true, url: expect.stringContaining(`watch?v=${videoId}&lc=`) });
    expect(server.comments).toEqual([{ videoId, text: 'First!' }]);
  });

  it('comments disabled: refused in YouTube’s words', async () => {
    await server.close();
    await start({ commentsDisabled: true });
    const sent = await publish(videoJob('med_video'));
    const comment = {
      deliveryId: 1,
      postId: 1,
      brandId: 1,
      channel: videoJob('x').channel,
      externalId: (sent as { externalId: string }).externalId,
      comment: 'First!',
      idempotencyKey: 'k',
    };
    expect(await publisher.comment(comment)).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('disabled comments'),
    });
  });

  it('a session Google no longer has is replaced, and the video made once', async () => {
    const job = videoJob('med_video');
    const opened = await publisher.deliver(job);
    server.uploads.expireAll();
    const reopened = await publisher.check!({ ...job, state: stateOf(opened) });
    expect(reopened).toMatchObject({ ok: 'pending', reason: expect.stringContaining('new upload session') });
    expect(stateOf(reopened).session).not.toBe(stateOf(opened).session);
    const done = await stepped(publisher).deliver({ ...job, state: stateOf(reopened) });
    expect(done).toMatchObject({ ok: true });
    expect(server.videos.size).toBe(1);
  });
});

describe('verify: the channel of the sign-in', () => {
  const input = (account?: string) => ({
    endpoint: server.url,
    secret: '',
    tokens: server.tokens(),
    userAgent: 'test',
    timeoutMs: 5_000,
    ...(account === undefined ? {} : { account }),
  });

  it('the only channel, or the one --account names by id or title', async () => {
    await server.close();
    server = await startYouTubeServer({
      channels: [
        { id: 'UCone', title: 'One', handle: '@one' },
        { id: 'UCtwo', title: 'Two' },
      ],
    });
    expect(await verifyYouTube(input('UCtwo'))).toMatchObject({
      account: 'Two',
      accountId: 'UCtwo',
      profileUrl: 'https://www.youtube.com/channel/UCtwo',
      settings: { channelId: 'UCtwo' },
    });
    expect(await verifyYouTube(input('one'))).toMatchObject({
      accountId: 'UCone',
      profileUrl: 'https://www.youtube.com/@one',
    });
    await expect(verifyYouTube(input())).rejects.toThrow(
      'several YouTube channels: pick one with --account (One (UCone), Two (UCtwo))',
    );
    await expect(verifyYouTube(input('Three'))).rejects.toThrow('no YouTube channel "Three"');
  });

  it('a Google account without a channel is told to create one', async () => {
    await server.close();
    server = await startYouTubeServer({ channels: [] });
    await expect(verifyYouTube(input())).rejects.toThrow('has no YouTube channel: create one on youtube.com');
  });
});
