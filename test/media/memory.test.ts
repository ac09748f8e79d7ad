/**
 * Uploading 100 MB streams it: whether the file is read from a path or downloaded from a url (accepted
 * at the limit, or refused one byte over it), the process never holds more than a small part of it.
 *
 * Two measures per case, each after a warm-up upload of the same kind and size:
 * - live memory (V8 heap + array buffers, after a forced GC) sampled every 10 MiB read: a file held
 *   whole, or piece by piece, shows here however the allocator and GC behave;
 * - peak RSS growth (sampled every 5 ms, no forced GC), the product's bar.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransferOptions } from '../../src/ports.js';
import { MEDIA_LIMIT_BYTES, MediaFiles, pngBytes } from '../contract/media-files.js';
import { BRAND, expectErrors } from '../contract/support.js';
import {
  expectNothingKept,
  type LoopbackServer,
  type MediaWorld,
  MiB,
  openMediaWorld,
  startLoopbackServer,
  streamBody,
  TOO_LARGE_MESSAGE,
} from './support.js';

/** Far below the 100 MB file (the product's bar for peak RSS growth is 64 MB). */
const RSS_BOUND = 50 * MiB;
/** Live memory a streaming upload may hold at any point: buffers in flight, not the file. */
const LIVE_BOUND = 32 * MiB;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const liveBytes = () => {
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};

let world: MediaWorld;
let server: LoopbackServer;
let files: MediaFiles;
let shade = 0;
beforeAll(async () => {
  world = await openMediaWorld();
  server = await startLoopbackServer();
  files = new MediaFiles();
  // Chunked (no length): the size is only known by reading it. Each download is another file.
  server.route('/file', (req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    void streamBody(res, pngBytes(shade++), Number(new URL(req.url!, 'http://x').searchParams.get('size')));
  });
});
afterAll(async () => {
  await server.close();
  files.remove();
  await world.close();
});

type Upload = (transfer: TransferOptions) => Promise<unknown>;

/** Highest RSS growth over the baseline while `upload` runs. */
async function peakRssGrowth(upload: Upload): Promise<number> {
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    await upload({});
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, process.memoryUsage.rss()) - baseline;
}

/** Highest growth of live memory over the baseline, sampled every 10 MiB read; and how many samples. */
async function peakLiveGrowth(upload: Upload): Promise<{ growth: number; samples: number }> {
  const baseline = liveBytes();
  let growth = 0;
  let samples = 0;
  let next = 10 * MiB;
  await upload({
    onProgress: (bytes) => {
      if (bytes < next) return;
      next += 10 * MiB;
      samples++;
      growth = Math.max(growth, liveBytes() - baseline);
    },
  });
  return { growth, samples };
}

async function expectStreamed(upload: Upload): Promise<void> {
  await upload({}); // warm-up
  expect(await peakRssGrowth(upload)).toBeLessThan(RSS_BOUND);
  const live = await peakLiveGrowth(upload);
  expect(live.samples).toBeGreaterThanOrEqual(9);
  expect(live.growth).toBeLessThan(LIVE_BOUND);
}

describe('memory while uploading 100 MB', () => {
  it('reading a 104,857,600-byte file from a path', async () => {
    await expectStreamed(async (transfer) => {
      const path = files.sized(`big-${shade}.png`, pngBytes(shade++), MEDIA_LIMIT_BYTES);
      const media = await world.service.uploadMedia({ brandId: BRAND.northwind, path }, transfer);
      expect(media.size).toBe(MEDIA_LIMIT_BYTES);
    });
  });

  it('downloading 104,857,600 bytes from a url', async () => {
    await expectStreamed(async (transfer) => {
      const url = server.url(`/file?size=${MEDIA_LIMIT_BYTES}`);
      const media = await world.service.uploadMedia({ brandId: BRAND.northwind, url }, transfer);
      expect(media.size).toBe(MEDIA_LIMIT_BYTES);
    });
  });

  it('refusing a 104,857,601-byte download once it passes the limit, keeping nothing', async () => {
    const rows = world.mediaRows();
    await expectStreamed(async (transfer) => {
      const url = server.url(`/file?size=${MEDIA_LIMIT_BYTES + 1}`);
      await expectErrors(world.service.uploadMedia({ brandId: BRAND.northwind, url }, transfer), {
        media: [TOO_LARGE_MESSAGE],
      });
    });
    await expectNothingKept(world, rows);
  });
});
