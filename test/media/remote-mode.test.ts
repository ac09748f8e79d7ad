/**
 * upload_media in remote mode: the client side (RemotePublishingService) reads the path, downloads the
 * url (same safety rules) or decodes the base64 into a temporary spool file, then uploads it to a real
 * server (createHttpApp on a loopback listener) as multipart. Rejections and cancellations leave no
 * spool file behind and nothing on the server.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp, listen, type RunningServer } from '../../src/http/serve.js';
import { UrlDownloader } from '../../src/media/url-download.js';
import { RemotePublishingService } from '../../src/remote/remote-service.js';
import { MEDIA_LIMIT_BYTES, MediaFiles, pdfBytes, pngBytes, textBytes } from '../contract/media-files.js';
import { BRAND, expectErrors, expectValidation, rejectionOf } from '../contract/support.js';
import {
  expectNothingKept,
  type LoopbackServer,
  type MediaWorld,
  openMediaWorld,
  serveBytes,
  startLoopbackServer,
  startRawServer,
  streamBody,
  TOO_LARGE_MESSAGE,
  TYPE_MESSAGE,
  uncaughtDuring,
  waitFor,
} from './support.js';

const API_KEY = 'media-remote-key-0123456789';

// Spool files go to os.tmpdir(): a directory of this file's own, so that it can be checked empty.
const savedTmp = process.env.TMPDIR;
let spoolDir: string;
beforeAll(() => {
  spoolDir = mkdtempSync(join(tmpdir(), 'spm-media-spool-'));
  process.env.TMPDIR = spoolDir;
});
afterAll(() => {
  process.env.TMPDIR = savedTmp;
  if (savedTmp === undefined) delete process.env.TMPDIR;
  rmSync(spoolDir, { recursive: true, force: true });
});

let world: MediaWorld;
let http: RunningServer;
let origin: LoopbackServer;
let files: MediaFiles;
let remote: RemotePublishingService;
let downloader: UrlDownloader;
beforeEach(async () => {
  world = await openMediaWorld();
  await world.rt.importWorkspace({
    brands: [],
    users: [{ name: 'Ada', timezone: 'UTC', apiKey: API_KEY, brands: ['Northwind Coffee'] }],
  });
  const app = createHttpApp({
    runtime: world.rt.runtime,
    version: 'test',
    loopbackOnly: true,
    log: (message, error) => {
      throw new Error(`unexpected server error: ${message}: ${String(error)}`);
    },
  });
  http = await listen(app, { host: '127.0.0.1', port: 0 });
  origin = await startLoopbackServer();
  files = new MediaFiles();
  downloader = new UrlDownloader({ allow: ['127.0.0.1'], stallTimeoutMs: 30_000 });
  remote = new RemotePublishingService({
    baseUrl: `${http.url}/v1`,
    apiKey: API_KEY,
    maxRetries: 0,
    downloader,
  });
});
afterEach(async () => {
  await remote.close();
  await downloader.close();
  await http.close();
  await origin.close();
  files.remove();
  await world.close();
});

const spoolFiles = () => readdirSync(spoolDir).filter((name) => name.startsWith('social-publisher-upload-'));
const upload = (fields: Record<string, unknown>, transfer = {}) =>
  remote.uploadMedia({ brandId: BRAND.northwind, ...fields }, transfer);

async function expectNothingAnywhere(): Promise<void> {
  expect(spoolFiles()).toEqual([]);
  await expectNothingKept(world);
}

describe('remote mode', () => {
  it('uploads a url, base64 and a path; the same bytes are one media on the server', async () => {
    const bytes = pdfBytes();
    origin.route('/deck', serveBytes(bytes, { 'content-type': 'text/plain' }));
    const viaUrl = await upload({ url: origin.url('/deck') });
    expect(viaUrl).toEqual({ id: expect.any(String), type: 'application/pdf', size: bytes.length });
    expect(await upload({ base64: bytes.toString('base64'), filename: 'DECK.PDF' })).toEqual(viaUrl);
    expect(await upload({ path: files.write('deck.pdf', bytes) })).toEqual(viaUrl);
    expect(world.mediaRows()).toBe(1);
    expect(spoolFiles()).toEqual([]);
  });

  it('passes on the server’s type message, removing the spool file', async () => {
    origin.route('/fake.png', serveBytes(textBytes(), { 'content-type': 'image/png' }));
    await expectErrors(upload({ url: origin.url('/fake.png') }), { media: [TYPE_MESSAGE] });
    await expectNothingAnywhere();
  });

  it('refuses 104,857,601 downloaded bytes as too large before sending anything', async () => {
    origin.route('/big.png', (_req, res) => {
      res.writeHead(200);
      void streamBody(res, pngBytes(), MEDIA_LIMIT_BYTES + 1);
    });
    await expectErrors(upload({ url: origin.url('/big.png') }), { media: [TOO_LARGE_MESSAGE] });
    await expectNothingAnywhere();
  });

  it('applies the same url rules: a redirect to a private address is refused', async () => {
    origin.route('/start.png', (_req, res) =>
      res.writeHead(302, { location: 'http://10.0.0.5/x.png' }).end(),
    );
    const errors = await expectValidation(upload({ url: origin.url('/start.png') }));
    expect(errors).toEqual({ url: [expect.stringMatching(/private or local network address/)] });
    await expectNothingAnywhere();
  });

  it('removes the spool file when the upload is cancelled during the download', async () => {
    origin.route('/stalled.png', (_req, res) => {
      res.writeHead(200, { 'content-length': '1000000' });
      res.write(pngBytes(3));
    });
    const controller = new AbortController();
    const reason = new Error('stop');
    const outcome = rejectionOf(upload({ url: origin.url('/stalled.png') }, { signal: controller.signal }));
    // The first bytes are written (no write under way) when the user gives up.
    const head = pngBytes(3).length;
    await waitFor(() => spoolFiles().some((name) => statSync(join(spoolDir, name)).size === head), 5000);
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    await waitFor(() => origin.closedResponses === 1, 2000);
    await expectNothingAnywhere();
  });

  it('refuses a download the server drops midway (422 on url) without an uncaught exception', async () => {
    const raw = await startRawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10000000\r\n\r\n');
      socket.write(Buffer.concat([pngBytes(8), Buffer.alloc(4096)]));
      setImmediate(() => socket.destroy());
    });
    try {
      const uncaught = await uncaughtDuring(async () => {
        for (let attempt = 0; attempt < 5; attempt++) {
          const errors = await expectValidation(upload({ url: raw.url('/dropped.png') }));
          expect(Object.keys(errors)).toEqual(['url']);
        }
      });
      expect(uncaught).toEqual([]);
      await expectNothingAnywhere();
    } finally {
      await raw.close();
    }
  });
});
