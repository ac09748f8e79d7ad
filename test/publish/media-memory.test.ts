/**
 * Media are streamed to the platform, never whole in memory: a 100 MiB video uploaded to the brand, and
 * one of 99 MiB given by URL (downloaded to a temporary file first), each sent through the Mastodon
 * connector to its loopback stand-in, which receives every byte. This process's resident memory
 * (sampled every 10 ms, and Linux's peak when it can be reset) and its heap and buffers grow far less
 * than the file: under 30 MiB. The stand-in runs in this process too and streams what it receives.
 *
 * How the growth is measured: test/support/memory-growth.ts. A file read whole would hold 100 MiB
 * whatever the collections.
 */
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { DeliveryJob, MediaDownloader, MediaRecord, Publisher, Store } from '../../src/ports.js';
import { openMastodon, verifyMastodon } from '../../src/publish/connectors/mastodon/mastodon-connector.js';
import { mediaLoader } from '../../src/publish/media-loader.js';
import { type MastodonServer, startMastodonServer } from '../support/mastodon-server.js';
import { growthDuring, MIB, reportGrowth } from '../support/memory-growth.js';
import { makeTempDir } from '../support/temp-dirs.js';

const LIMIT_BYTES = 30 * MIB;
/** The first transfer of a process sets up what every later one reuses (buffers, socket, heap). */
const WARM_UP = 16 * MIB;
const MP4_HEAD = Buffer.from('000000186674797069736f6d0000020069736f6d6d703432', 'hex');

let server: MastodonServer | undefined;
let publisher: Publisher | undefined;
afterEach(async () => {
  await publisher?.close?.();
  await server?.close();
});

async function connect(loadMedia: ReturnType<typeof mediaLoader>): Promise<Publisher> {
  // The stand-in runs in this process: it keeps only the start of each file, so that the figures are
  // the connector's alone.
  server = await startMastodonServer({ fileSizeLimit: 64 * 1024 });
  const verified = await verifyMastodon({ instance: server.url, token: server.token });
  publisher = openMastodon(
    { ...verified, channelId: 1 },
    {
      loadMedia,
      saveSecret: async () => {},
      clock: { now: () => Date.now() },
      log: () => {},
      timeoutMs: 120_000,
      userAgent: 'social-publisher-mcp/test',
    },
  );
  return publisher;
}

let jobs = 0;
const job = (media: DeliveryJob['content']['media']): DeliveryJob => ({
  deliveryId: ++jobs,
  postId: jobs,
  brandId: 1,
  channel: { id: 1, name: 'Mastodon', type: 'Mastodon' },
  content: { platform: 'Mastodon', format: 'feed', caption: 'A long roast', media },
  idempotencyKey: `store-1:delivery-${jobs}`,
  dueAtMs: Date.now(),
  attempt: 1,
  state: {},
});

/** A sparse file of `size` bytes that reads as an MP4. */
function videoFile(id: string, size: number): MediaRecord {
  const path = join(makeTempDir(), id);
  const fd = openSync(path, 'w');
  writeSync(fd, MP4_HEAD);
  ftruncateSync(fd, size);
  closeSync(fd);
  return { id, brandId: 1, type: 'video/mp4', size, sha256: '', path, createdAtMs: 0, durationMs: null };
}

it('uploads a 100 MiB video of the brand from disk with memory growth far below its size', async () => {
  const size = 100 * MIB;
  const records = [videoFile('med_warm', WARM_UP), videoFile('med_big', size)];
  const store = {
    findMedia: async (_brandId: number, ids: string[]) => records.filter((record) => ids.includes(record.id)),
  } as unknown as Store;
  const mastodon = await connect(mediaLoader(store, undefined, undefined));
  // Warm up: the first upload loads and compiles what every later one uses.
  await mastodon.deliver(job([{ id: 'med_warm' }]));

  let outcome: Awaited<ReturnType<Publisher['deliver']>> | undefined;
  const growth = await growthDuring(async () => {
    outcome = await mastodon.deliver(job([{ id: 'med_big' }]));
  });
  reportGrowth('uploaded file', size, growth);
  // A video: uploaded, and pending while the stand-in "processes" it.
  expect(outcome).toMatchObject({ ok: 'pending' });
  expect([...server!.media.values()].map((item) => item.size)).toEqual([WARM_UP, size]);
  expect(growth.rss).toBeLessThan(LIMIT_BYTES);
  expect(growth.heap).toBeLessThan(LIMIT_BYTES);
}, 120_000);

it('downloads a 99 MiB video given by URL to a temporary file and uploads it, as lean', async () => {
  const size = 99 * MIB;
  const chunk = Buffer.alloc(256 * 1024, 1);
  const downloader: MediaDownloader = {
    open: async (url) => {
      const bytes = url.includes('warm-up') ? WARM_UP : size;
      return {
        body: (async function* () {
          yield MP4_HEAD;
          for (let sent = MP4_HEAD.length; sent < bytes; sent += chunk.length) {
            yield chunk.subarray(0, Math.min(chunk.length, bytes - sent));
          }
        })(),
        announcedBytes: bytes,
      };
    },
  };
  const mastodon = await connect(mediaLoader({} as Store, undefined, downloader));
  await mastodon.deliver(job([{ url: 'https://cdn.example/warm-up.mp4' }]));
  let outcome: Awaited<ReturnType<Publisher['deliver']>> | undefined;
  const growth = await growthDuring(async () => {
    outcome = await mastodon.deliver(job([{ url: 'https://cdn.example/roast.mp4' }]));
  });
  reportGrowth('URL media', size, growth);
  expect(outcome).toMatchObject({ ok: 'pending' });
  expect([...server!.media.values()].map((item) => [item.size, item.fileName])).toEqual([
    [WARM_UP, 'warm-up.mp4'],
    [size, 'roast.mp4'],
  ]);
  expect(growth.rss).toBeLessThan(LIMIT_BYTES);
  expect(growth.heap).toBeLessThan(LIMIT_BYTES);
}, 120_000);
