/**
 * A video's length, end to end: the upload measures an MP4 or QuickTime file from its `moov/mvhd`
 * (wherever the box is in the file), the store keeps it, and a post's pre-flight holds it to each
 * platform's shortest and longest video, telling only the channels that would refuse it. A file whose
 * duration cannot be read is left for the platform to judge.
 */
import { afterEach, expect, it } from 'vitest';
import { PLATFORM_CAPABILITIES } from '../../src/domain/capabilities.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { mp4Bytes, mp4Head } from '../support/tiktok-media.js';

const NORTHWIND = 1;
const CONVERSATION = 3; // X, Threads, Mastodon, Bluesky, LinkedIn, Telegram

let rt: TestRuntime;
afterEach(async () => {
  await rt.close();
});

function upload(bytes: Buffer, filename = 'clip.mp4') {
  return rt.service.uploadMedia({ brandId: NORTHWIND, base64: bytes.toString('base64'), filename });
}

async function lengthWarnings(mediaId: string) {
  const { warnings = [] } = await rt.service.createPost({
    brandId: NORTHWIND,
    collectionId: CONVERSATION,
    publishMode: 'DRAFT',
    caption: 'Roasting day',
    media: [{ id: mediaId }],
    dryRun: true,
  });
  return warnings.filter((warning) => warning.message.includes('is a video of'));
}

it('measures an uploaded MP4 and tells X, and only X, that it is too long', async () => {
  rt = await openTestRuntime();
  const media = await upload(mp4Bytes(141.5));
  const [stored] = await rt.runtime.store.findMedia(NORTHWIND, [media.id]);
  expect(stored?.durationMs).toBe(141_500);
  const warned = await lengthWarnings(media.id);
  expect(warned).toEqual([
    expect.objectContaining({
      channelName: expect.stringContaining('X'),
      outcome: 'fail',
      message:
        'media.0 is a video of 2 min 21.5 s; X/Twitter takes videos of 0.5 seconds to 2 min 20 s. (X/Twitter would refuse it; this channel publishes to the sandbox, which takes it anyway.)',
    }),
  ]);
  // Within every bound: nothing to say of its length.
  expect(await lengthWarnings((await upload(mp4Bytes(30))).id)).toEqual([]);
  // Under LinkedIn's 3 seconds (X takes half a second).
  expect((await lengthWarnings((await upload(mp4Bytes(2))).id)).map((w) => w.message)).toEqual([
    expect.stringMatching(
      /^media\.0 is a video of 2 seconds; LinkedIn takes videos of 3 seconds to 30 min\./,
    ),
  ]);
});

it('reads the duration from a moov at the end of the file, and leaves an unreadable one alone', async () => {
  rt = await openTestRuntime();
  // ftyp, then the media data, then moov (a file not prepared for streaming).
  const head = mp4Head(400);
  const ftypLength = head.readUInt32BE(0);
  const mdat = Buffer.alloc(64 * 1024);
  mdat.writeUInt32BE(mdat.length, 0);
  mdat.write('mdat', 4, 'latin1');
  const tail = Buffer.concat([head.subarray(0, ftypLength), mdat, head.subarray(ftypLength)]);
  const media = await upload(tail);
  expect((await rt.runtime.store.findMedia(NORTHWIND, [media.id]))[0]?.durationMs).toBe(400_000);
  expect((await lengthWarnings(media.id)).map((w) => w.message)).toEqual([
    expect.stringContaining('media.0 is a video of 6 min 40 s; X/Twitter takes'),
    expect.stringContaining('media.0 is a video of 6 min 40 s; Threads takes videos up to 5 min.'),
  ]);
  // An MP4 with no moov: its type is known, its length is not, and nothing is said of it.
  const unreadable = await upload(head.subarray(0, ftypLength), 'cut.mp4');
  expect((await rt.runtime.store.findMedia(NORTHWIND, [unreadable.id]))[0]?.durationMs).toBeNull();
  expect(await lengthWarnings(unreadable.id)).toEqual([]);
});

it("holds a connection made before the bounds were known to its platform's, and shows them", async () => {
  rt = await openTestRuntime();
  const { store, secrets } = rt.runtime;
  const channels = await store.listChannels(NORTHWIND, { limit: 100, offset: 0 });
  const x = channels.find((channel) => channel.type === 'X/Twitter')!;
  // What an X connection stored before 2026-11-26: the platform's limits without the video bounds.
  const { minVideoSeconds, maxVideoSeconds, ...before } = PLATFORM_CAPABILITIES['X/Twitter'];
  expect([minVideoSeconds, maxVideoSeconds]).toEqual([0.5, 140]);
  await store.connections.save(
    x.id,
    {
      kind: 'x',
      account: '@northwind',
      accountId: '42',
      endpoint: 'https://api.x.com',
      profileUrl: null,
      settings: {},
      capabilities: before,
      sealedSecret: secrets.seal(JSON.stringify({ accessToken: 'token' }), x.id),
      secretEnv: null,
    },
    rt.clock.now(),
  );
  const media = await upload(mp4Bytes(150));
  expect((await lengthWarnings(media.id)).map((w) => [w.channelId, w.message])).toEqual([
    [x.id, 'media.0 is a video of 2 min 30 s; X/Twitter takes videos of 0.5 seconds to 2 min 20 s.'],
  ]);
  const detail = await rt.service.getChannel({ brandId: NORTHWIND, channelId: x.id });
  expect(detail.connection.limits).toMatchObject({ minVideoSeconds: 0.5, maxVideoSeconds: 140 });
});
