/**
 * upload_media with `url`, downloaded from a real HTTP server on 127.0.0.1 (allowed by configuration):
 * every type, the bytes deciding the type, server errors, redirects (limited, each hop re-checked),
 * private addresses and other schemes refused before any connection, and deduplication across sources.
 * No test ever sends traffic anywhere but 127.0.0.1: private targets are refused before connecting.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UrlDownloader } from '../../src/media/url-download.js';
import {
  jpegBytes,
  MediaFiles,
  movBytes,
  mp4Bytes,
  pdfBytes,
  pngBytes,
  textBytes,
} from '../contract/media-files.js';
import { BRAND, expectErrors, expectValidation } from '../contract/support.js';
import {
  expectNothingKept,
  type LoopbackServer,
  type MediaWorld,
  openMediaWorld,
  serveBytes,
  startLoopbackServer,
  TYPE_MESSAGE,
} from './support.js';

const PRIVATE = /private or local network address/;

let world: MediaWorld;
let server: LoopbackServer;
beforeEach(async () => {
  world = await openMediaWorld();
  server = await startLoopbackServer();
});
afterEach(async () => {
  await server.close();
  await world.close();
});

const uploadUrl = (url: string, service = world.service) =>
  service.uploadMedia({ brandId: BRAND.northwind, url });

/** /hop/<n> redirects to /hop/<n-1> (status `status`), /hop/0 serves a PNG. */
function redirectChain(status = 302) {
  const png = pngBytes(21);
  for (let n = 0; n <= 8; n++) {
    server.route(`/hop/${n}`, (_req, res) => {
      if (n === 0) return serveBytes(png)(_req, res);
      res.writeHead(status, { location: `/hop/${n - 1}` }).end();
    });
  }
  return png;
}

describe('upload_media from a url', () => {
  it.each([
    ['png', pngBytes, 'image/png'],
    ['jpg', jpegBytes, 'image/jpeg'],
    ['mp4', mp4Bytes, 'video/mp4'],
    ['mov', movBytes, 'video/quicktime'],
    ['pdf', pdfBytes, 'application/pdf'],
  ])('downloads a %s and stores it as %s with its size', async (ext, bytes, type) => {
    server.route(`/files/item.${ext}`, serveBytes(bytes(), { 'content-type': 'application/octet-stream' }));
    const media = await uploadUrl(server.url(`/files/item.${ext}`));
    expect(media).toEqual({ id: expect.any(String), type, size: bytes().length });
    expect(world.mediaRows()).toBe(1);
    expect(world.storedFiles()).toEqual([`${BRAND.northwind}/${media.id}`]);
    expect(world.stagingEntries()).toEqual([]);
  });

  it('decides the type from the bytes, not the URL’s extension nor the Content-Type', async () => {
    server.route('/photo.PNG', serveBytes(pdfBytes(), { 'content-type': 'image/png' }));
    server.route('/download', serveBytes(jpegBytes(), { 'content-type': 'text/html' }));
    expect((await uploadUrl(server.url('/photo.PNG'))).type).toBe('application/pdf');
    expect((await uploadUrl(server.url('/download?id=7&format=raw'))).type).toBe('image/jpeg');
  });

  it('refuses text served as image/png from a .png URL with the type message, keeping nothing', async () => {
    server.route('/fake.png', serveBytes(textBytes(), { 'content-type': 'image/png' }));
    await expectErrors(uploadUrl(server.url('/fake.png')), { media: [TYPE_MESSAGE] });
    await expectNothingKept(world);
  });

  it.each([404, 403, 500])('answers 422 on url when the server answers %i', async (status) => {
    server.route('/gone.png', (_req, res) => res.writeHead(status).end('no'));
    await expectErrors(uploadUrl(server.url('/gone.png')), {
      url: [`The url answered ${status}: the file could not be downloaded from it.`],
    });
    await expectNothingKept(world);
  });

  it('answers 422 on url when nothing listens on the port', async () => {
    const port = server.port;
    await server.close();
    const errors = await expectValidation(uploadUrl(`http://127.0.0.1:${port}/a.png`));
    expect(Object.keys(errors)).toEqual(['url']);
    await expectNothingKept(world);
  });

  it('refuses a url when the server has no downloader', async () => {
    await expectErrors(uploadUrl(server.url('/a.png'), world.serviceWith({})), {
      url: ['This server does not download media from URLs.'],
    });
    expect(server.requests).toEqual([]);
  });
});

describe('redirects', () => {
  it.each([301, 302, 303, 307, 308])('follows a chain of 5 (the default limit) of %i', async (status) => {
    const png = redirectChain(status);
    const media = await uploadUrl(server.url('/hop/5'));
    expect(media).toMatchObject({ type: 'image/png', size: png.length });
    expect(server.requests).toEqual(['/hop/5', '/hop/4', '/hop/3', '/hop/2', '/hop/1', '/hop/0']);
  });

  it('refuses a sixth redirect with 422 on url and does not follow it', async () => {
    redirectChain();
    await expectErrors(uploadUrl(server.url('/hop/6')), { url: ['The url redirected more than 5 times.'] });
    expect(server.requests).not.toContain('/hop/0');
    await expectNothingKept(world);
  });

  it('honours a configured limit', async () => {
    redirectChain();
    const service = world.serviceWith({
      downloader: new UrlDownloader({ allow: ['127.0.0.1'], maxRedirects: 2 }),
    });
    expect((await uploadUrl(server.url('/hop/2'), service)).type).toBe('image/png');
    await expectErrors(uploadUrl(server.url('/hop/3'), service), {
      url: ['The url redirected more than 2 times.'],
    });
  });

  it('refuses a redirect without a Location', async () => {
    server.route('/nowhere', (_req, res) => res.writeHead(302).end());
    await expectErrors(uploadUrl(server.url('/nowhere')), {
      url: ['The url redirected without saying where to.'],
    });
  });

  it.each([
    'http://10.0.0.5/x',
    'http://169.254.169.254/latest/meta-data/',
    'http://192.168.1.10/a.png',
    'http://172.16.0.1/a.png',
    'http://100.64.0.1/a.png',
    'http://0.0.0.0/a.png',
    'http://[::1]/a.png',
    'http://[fd00::1]/a.png',
    'http://[fe80::1]/a.png',
    'http://[::ffff:10.0.0.5]/a.png',
    'http://0x0a000005/a.png', // 10.0.0.5 in hex
    'http://012.0.0.5/a.png', // 10.0.0.5 in octal
  ])('refuses a redirect to the private address of %s, before connecting', async (target) => {
    server.route('/start.png', (_req, res) => res.writeHead(302, { location: target }).end());
    const errors = await expectValidation(uploadUrl(server.url('/start.png')));
    expect(errors).toEqual({ url: [expect.stringMatching(PRIVATE)] });
    expect(server.requests).toEqual(['/start.png']);
    await expectNothingKept(world);
  });

  it('refuses a redirect to a loopback address that is not allowed, and never contacts it', async () => {
    // A real server on ::1 (loopback, but only 127.0.0.1 is allowed): it must never be asked.
    const v6 = await startLoopbackServer('::1');
    try {
      v6.route('/a.png', serveBytes(pngBytes()));
      server.route('/start.png', (_req, res) => res.writeHead(307, { location: v6.url('/a.png') }).end());
      const errors = await expectValidation(uploadUrl(server.url('/start.png')));
      expect(errors).toEqual({ url: [expect.stringMatching(PRIVATE)] });
      expect(v6.requests).toEqual([]);
      // Directly too.
      await expectValidation(uploadUrl(v6.url('/a.png')));
      expect(v6.requests).toEqual([]);
    } finally {
      await v6.close();
    }
  });

  it.each([
    'ftp://127.0.0.1/a.png',
    'file:///etc/passwd',
    'gopher://127.0.0.1:70/',
    'data:image/png;base64,AAAA',
  ])('refuses a redirect to %s (not http or https)', async (target) => {
    server.route('/start.png', (_req, res) => res.writeHead(301, { location: target }).end());
    await expectErrors(uploadUrl(server.url('/start.png')), { url: ['The url must use http or https.'] });
    expect(server.requests).toEqual(['/start.png']);
    await expectNothingKept(world);
  });
});

describe('addresses and schemes refused before connecting', () => {
  it.each([
    'ftp://127.0.0.1/a.png',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'not a url',
    '//127.0.0.1/a',
  ])('refuses %s as a url format error', async (url) => {
    await expectErrors(uploadUrl(url), { url: ['The url format is invalid.'] });
    expect(server.requests).toEqual([]);
  });

  // One address in each range of the IANA IPv4 and IPv6 Special-Purpose Address Registries.
  it.each([
    'http://0.1.2.3/a.png', // 0.0.0.0/8
    'http://10.1.2.3/a.png', // 10.0.0.0/8
    'http://100.127.255.254/a.png', // 100.64.0.0/10
    'http://127.0.0.2/a.png', // 127.0.0.0/8
    'https://169.254.169.254/latest', // 169.254.0.0/16
    'http://172.31.255.1/a.png', // 172.16.0.0/12
    'http://192.0.0.9/a.png', // 192.0.0.0/24
    'http://192.0.2.1/a.png', // 192.0.2.0/24
    'http://192.31.196.1/a.png', // 192.31.196.0/24
    'http://192.52.193.1/a.png', // 192.52.193.0/24
    'http://192.88.99.1/a.png', // 192.88.99.0/24
    'http://192.168.1.10/a.png', // 192.168.0.0/16
    'http://192.175.48.1/a.png', // 192.175.48.0/24
    'http://198.19.255.1/a.png', // 198.18.0.0/15
    'http://198.51.100.7/a.png', // 198.51.100.0/24
    'http://203.0.113.7/a.png', // 203.0.113.0/24
    'http://239.255.255.250/a.png', // 224.0.0.0/4
    'http://240.0.0.1/a.png', // 240.0.0.0/4
    'http://255.255.255.255/a.png', // 255.255.255.255/32
    'http://[::]/a.png', // ::/128
    'http://[::1]/a.png', // ::1/128
    'http://[::ffff:8.8.8.8]/a.png', // ::ffff:0:0/96, whatever IPv4 address it carries
    'http://[::8.8.8.8]/a.png', // ::/96
    'http://[64:ff9b::808:808]/a.png', // 64:ff9b::/96 (NAT64 of 8.8.8.8)
    'http://[64:ff9b:1::1]/a.png', // 64:ff9b:1::/48
    'http://[100::1]/a.png', // 100::/64
    'http://[100:0:0:1::1]/a.png', // 100:0:0:1::/64
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/a.png', // 2001::/23 (Teredo, 2001::/32)
    'http://[2001:2::1]/a.png', // 2001::/23 (benchmarking, 2001:2::/48)
    'http://[2001:20::1]/a.png', // 2001::/23 (ORCHIDv2, 2001:20::/28)
    'http://[2001:1ff:ffff::1]/a.png', // 2001::/23, its last /32
    'http://[2001:db8::1]/a.png', // 2001:db8::/32
    'http://[2002:808:808::1]/a.png', // 2002::/16 (6to4 of 8.8.8.8)
    'http://[2620:4f:8000::1]/a.png', // 2620:4f:8000::/48
    'http://[3fff:fff::1]/a.png', // 3fff::/20
    'http://[5f00::1]/a.png', // 5f00::/16
    'http://[fc00::5]/a.png', // fc00::/7
    'http://[fdff::1]/a.png', // fc00::/7
    'http://[fe80::1]/a.png', // fe80::/10
    'http://[fec0::1]/a.png', // fec0::/10
    'http://[ff02::1]/a.png', // ff00::/8
  ])('refuses the literal special-purpose address of %s', async (url) => {
    const errors = await expectValidation(uploadUrl(url));
    expect(errors).toEqual({ url: [expect.stringMatching(PRIVATE)] });
    await expectNothingKept(world);
  });

  it('refuses loopback by default, however it is spelled, and never connects', async () => {
    server.route('/a.png', serveBytes(pngBytes()));
    const strict = world.serviceWith({ downloader: new UrlDownloader({ stallTimeoutMs: 2000 }) });
    for (const url of [
      server.url('/a.png'),
      `http://localhost:${server.port}/a.png`,
      `http://127.1:${server.port}/a.png`,
      `http://2130706433:${server.port}/a.png`,
      `http://0x7f000001:${server.port}/a.png`,
      `http://[::ffff:127.0.0.1]:${server.port}/a.png`,
      `http://[::1]:${server.port}/a.png`,
    ]) {
      const errors = await expectValidation(uploadUrl(url, strict));
      expect(errors).toEqual({ url: [expect.stringMatching(PRIVATE)] });
    }
    expect(server.requests).toEqual([]);
    await expectNothingKept(world);
  });

  it('the same allowed server is reached by name once 127.0.0.1 is allowed', async () => {
    server.route('/a.png', serveBytes(pngBytes(3)));
    expect((await uploadUrl(`http://localhost:${server.port}/a.png`)).type).toBe('image/png');
  });
});

describe('the same file twice', () => {
  let files: MediaFiles;
  beforeEach(() => {
    files = new MediaFiles();
  });
  afterEach(() => files.remove());

  it('via url twice, and via path and url, is stored once and returns the same id', async () => {
    const bytes = pngBytes(77);
    server.route('/one.png', serveBytes(bytes));
    server.route('/same-bytes-other-name.jpg', serveBytes(bytes));
    const first = await uploadUrl(server.url('/one.png'));
    expect(await uploadUrl(server.url('/one.png'))).toEqual(first);
    expect(await uploadUrl(server.url('/same-bytes-other-name.jpg'))).toEqual(first);
    const viaPath = await world.service.uploadMedia({
      brandId: BRAND.northwind,
      path: files.write('x.PNG', bytes),
    });
    expect(viaPath).toEqual(first);
    expect(world.mediaRows()).toBe(1);
    expect(world.storedFiles()).toEqual([`${BRAND.northwind}/${first.id}`]);
    expect(world.stagingEntries()).toEqual([]);
  });
});
