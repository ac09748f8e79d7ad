/**
 * A url download against servers that misbehave, all on 127.0.0.1: headers never sent, a body that
 * stalls, a body that trickles past the deadline, 100 MB + 1 byte with every framing (chunked, until the
 * connection closes, an honest length) and a length that promises more than is sent. The limit is
 * enforced on the bytes read; nothing is kept, and the server sees the download stop.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UrlDownloader } from '../../src/media/url-download.js';
import { MEDIA_LIMIT_BYTES, pdfBytes, pngBytes } from '../contract/media-files.js';
import { BRAND, expectErrors, expectValidation } from '../contract/support.js';
import {
  expectNothingKept,
  type LoopbackServer,
  type MediaWorld,
  openMediaWorld,
  startLoopbackServer,
  startRawServer,
  streamBody,
  streamRaw,
  TOO_LARGE_MESSAGE,
  uncaughtDuring,
  waitFor,
} from './support.js';

const STALLED = 'The url stopped answering before the file was downloaded.';

let world: MediaWorld;
let server: LoopbackServer;
const cleanups: Array<() => Promise<void>> = [];
beforeEach(async () => {
  world = await openMediaWorld({ stallTimeoutMs: 300, timeoutMs: 20_000 });
  server = await startLoopbackServer();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await server.close();
  await world.close();
});

const uploadUrl = (url: string, service = world.service) =>
  service.uploadMedia({ brandId: BRAND.northwind, url });

/** Runs `call`, returning how long it took to settle. */
async function timed<T>(call: Promise<T>): Promise<number> {
  const started = performance.now();
  await call;
  return performance.now() - started;
}

describe('slow servers', () => {
  it('gives up on a server that never sends its headers (stall timeout): 422 on url', async () => {
    server.route('/silent.png', () => undefined); // accepts the request, never answers
    const elapsed = await timed(expectErrors(uploadUrl(server.url('/silent.png')), { url: [STALLED] }));
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(5000);
    await waitFor(() => server.closedResponses === 1, 2000);
    await expectNothingKept(world);
  });

  it('gives up on a body that stops halfway (stall timeout), removing what was staged', async () => {
    let staged = 0;
    server.route('/half.png', (_req, res) => {
      res.writeHead(200, { 'content-length': '100000' });
      res.write(pngBytes());
      // While the server is stuck, the file is being staged: it exists, then must go.
      setTimeout(() => {
        staged = world.stagingEntries().length;
      }, 100);
    });
    await expectErrors(uploadUrl(server.url('/half.png')), { url: [STALLED] });
    expect(staged).toBe(1);
    await expectNothingKept(world);
  });

  it('gives up on a body that trickles past the overall deadline although it never stalls', async () => {
    const service = world.serviceWith({
      downloader: new UrlDownloader({ allow: ['127.0.0.1'], timeoutMs: 800, stallTimeoutMs: 5000 }),
    });
    server.route('/trickle.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(pngBytes());
      const drip = setInterval(() => res.write(Buffer.alloc(64)), 50);
      res.on('close', () => clearInterval(drip));
    });
    let errors: Record<string, string[]> = {};
    const elapsed = await timed(
      expectValidation(uploadUrl(server.url('/trickle.png'), service)).then((e) => {
        errors = e;
      }),
    );
    expect(errors).toEqual({
      url: [expect.stringMatching(/^The url did not deliver the file within [\d.]+ seconds?\.$/)],
    });
    expect(elapsed).toBeGreaterThanOrEqual(700);
    expect(elapsed).toBeLessThan(5000);
    await waitFor(() => server.closedResponses === 1, 2000);
    await expectNothingKept(world);
  });

  it('applies the deadline to the headers too', async () => {
    const service = world.serviceWith({
      downloader: new UrlDownloader({ allow: ['127.0.0.1'], timeoutMs: 400, stallTimeoutMs: 10_000 }),
    });
    server.route('/silent.png', () => undefined);
    const errors = await expectValidation(uploadUrl(server.url('/silent.png'), service));
    expect(errors.url![0]).toMatch(/did not deliver the file within/);
  });
});

describe('the 100 MB limit on the bytes actually read, whatever the server says', () => {
  it('refuses 104,857,601 bytes sent chunked (no length) while reading, and stops the transfer', async () => {
    server.route('/big.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      void streamBody(res, pngBytes(), MEDIA_LIMIT_BYTES + 1);
    });
    await expectErrors(uploadUrl(server.url('/big.png')), { media: [TOO_LARGE_MESSAGE] });
    await expectNothingKept(world);
  });

  it('accepts exactly 104,857,600 bytes sent chunked', async () => {
    server.route('/limit.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      void streamBody(res, pngBytes(), MEDIA_LIMIT_BYTES);
    });
    expect(await uploadUrl(server.url('/limit.png'))).toMatchObject({
      type: 'image/png',
      size: MEDIA_LIMIT_BYTES,
    });
    expect(world.stagingEntries()).toEqual([]);
  });

  it('refuses 104,857,601 bytes sent without any length until the connection closes', async () => {
    const raw = await startRawServer(async (socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nConnection: close\r\n\r\n');
      await streamRaw(socket, pdfBytes(), MEDIA_LIMIT_BYTES + 1);
    });
    cleanups.push(raw.close);
    await expectErrors(uploadUrl(raw.url('/big.pdf')), { media: [TOO_LARGE_MESSAGE] });
    await expectNothingKept(world);
  });

  it('refuses 104,857,601 bytes announced honestly by Content-Length', async () => {
    server.route('/honest.png', (_req, res) => {
      res.writeHead(200, { 'content-length': String(MEDIA_LIMIT_BYTES + 1) });
      void streamBody(res, pngBytes(), MEDIA_LIMIT_BYTES + 1);
    });
    await expectErrors(uploadUrl(server.url('/honest.png')), { media: [TOO_LARGE_MESSAGE] });
    await expectNothingKept(world);
  });

  it('does not take an announced length as the size: a body cut short of it is not stored', async () => {
    // Announces 10 GB, sends a small valid PNG, closes: an incomplete transfer, never a stored file.
    const raw = await startRawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10737418240\r\n\r\n');
      socket.end(pngBytes(5));
    });
    cleanups.push(raw.close);
    const errors = await expectValidation(uploadUrl(raw.url('/short.png')));
    expect(Object.keys(errors)).toEqual(['url']);
    await expectNothingKept(world);
  });

  it('refuses a body the server drops midway (422 on url), keeping nothing, without an uncaught exception', async () => {
    const raw = await startRawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10000000\r\n\r\n');
      socket.write(Buffer.concat([pngBytes(7), Buffer.alloc(4096)]));
      setImmediate(() => socket.destroy());
    });
    cleanups.push(raw.close);
    const uncaught = await uncaughtDuring(async () => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const errors = await expectValidation(uploadUrl(raw.url('/dropped.png')));
        expect(Object.keys(errors)).toEqual(['url']);
      }
    });
    expect(uncaught).toEqual([]);
    await expectNothingKept(world);
  });

  it('stores a small file whatever length is announced, when the server sends it all (close-delimited)', async () => {
    const png = pngBytes(6);
    const raw = await startRawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\nConnection: close\r\n\r\n');
      socket.end(png);
    });
    cleanups.push(raw.close);
    expect(await uploadUrl(raw.url('/clip.mp4'))).toMatchObject({ type: 'image/png', size: png.length });
  });
});
