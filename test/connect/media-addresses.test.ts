/**
 * Signed media addresses (issue 28): `serve` behind SOCIAL_PUBLISHER_PUBLIC_URL serves an uploaded file
 * at `<public URL>/media/<token>` to a platform that fetches media by URL, and nothing else: a token
 * changed in any part, another brand's or another file's, a path, or one past its time is refused
 * before anything is read. Also the address signing itself (the token's parts, its expiry), and the
 * public URL's host answered by a server bound to loopback (a reverse proxy's Host).
 */
import { request as httpRequest } from 'node:http';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MediaAddresses } from '../../src/media/public-addresses.js';
import { pngBytes } from '../contract/media-files.js';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import { freePort, programEnv, type Serve, startServe } from '../support/connected-program.js';

let serve: Serve | undefined;
beforeAll(() => requireBuild());
afterEach(async () => {
  await serve?.stop();
  serve = undefined;
  await cleanup();
});

describe('MediaAddresses', () => {
  const key = Buffer.alloc(32, 7);
  const addresses = new MediaAddresses(key, 'https://publisher.example.com');

  it('signs one file of one brand until a time, and refuses any change to it', () => {
    const url = addresses.address(3, 'med_abc-1', 2_000_000_000_000);
    expect(url).toMatch(/^https:\/\/publisher\.example\.com\/media\/3\.med_abc-1\.2000000000\.[\w-]{43}$/);
    const token = url.split('/').at(-1)!;
    expect(addresses.check(token, 1_999_999_999_000)).toEqual({
      ok: true,
      media: { brandId: 3, mediaId: 'med_abc-1', expiresAtMs: 2_000_000_000_000 },
    });
    expect(addresses.check(token, 2_000_000_000_000)).toEqual({ ok: false, reason: 'expired' });
    const [brand, media, expires, signature] = token.split('.');
    for (const forged of [
      `4.${media}.${expires}.${signature}`,
      `${brand}.med_other.${expires}.${signature}`,
      `${brand}.${media}.2100000000.${signature}`,
      `${brand}.${media}.${expires}.${signature!.slice(1)}A`,
      `${brand}.${media}.${expires}`,
      '../../secret.key',
    ]) {
      expect(addresses.check(forged, 0), forged).toEqual({ ok: false, reason: 'invalid' });
    }
    // Another key (another server, a changed secret key) makes other tokens.
    expect(new MediaAddresses(Buffer.alloc(32, 8), 'https://x').check(token, 0)).toEqual({
      ok: false,
      reason: 'invalid',
    });
    expect(() => addresses.address(1, '../etc/passwd', 1)).toThrow('No public address');
  });
});

describe('serve: /media/<token>', () => {
  it('serves the uploaded file at its signed address, and nothing else through it', async () => {
    const dataDir = tempDir('spm-media-addresses-');
    const secretKey = 'a'.repeat(64);
    const port = await freePort();
    serve = await startServe(
      programEnv(dataDir, {
        SOCIAL_PUBLISHER_PUBLIC_URL: `http://127.0.0.1:${port}`,
        SOCIAL_PUBLISHER_SECRET_KEY: secretKey,
      }),
      undefined,
      port,
    );
    const bytes = pngBytes(42);
    const form = new FormData();
    form.append('media', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'roast.png');
    const uploaded = await fetch(`${serve.url}/v1/brands/1/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.key}` },
      body: form,
    });
    const media = ((await uploaded.json()) as { data: { id: string } }).data;
    // The address the engine hands a connector: signed with the key derived from the secret key.
    const { SecretBox } = await import('../../src/store/secret-box.js');
    const key = new SecretBox({ secretKey, dataDir }).derive('media addresses');
    const addresses = new MediaAddresses(key, serve.url);
    const url = addresses.address(1, String(media.id), Date.now() + 60_000);
    const answer = await fetch(url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/png');
    expect(answer.headers.get('content-length')).toBe(String(bytes.length));
    expect(Buffer.from(await answer.arrayBuffer())).toEqual(bytes);
    expect((await fetch(url, { method: 'HEAD' })).status).toBe(200);
    // Past its time, another brand, a made-up file, a path: refused.
    expect((await fetch(addresses.address(1, String(media.id), Date.now() - 1_000))).status).toBe(410);
    expect((await fetch(addresses.address(2, String(media.id), Date.now() + 60_000))).status).toBe(404);
    expect((await fetch(addresses.address(1, 'med_missing', Date.now() + 60_000))).status).toBe(404);
    expect((await fetch(`${serve.url}/media/..%2F..%2Fsecret.key`)).status).toBe(404);
    // Signed by another key: refused.
    const other = new MediaAddresses(Buffer.alloc(32, 1), serve.url);
    expect((await fetch(other.address(1, String(media.id), Date.now() + 60_000))).status).toBe(404);
  });

  it('answers the public URL’s host on a server bound to loopback (behind a reverse proxy), and no other', async () => {
    const port = await freePort();
    serve = await startServe(
      programEnv(tempDir('spm-media-addresses-'), {
        SOCIAL_PUBLISHER_PUBLIC_URL: 'https://publisher.example.com',
      }),
      undefined,
      port,
    );
    const statusWithHost = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          { host: '127.0.0.1', port, path: '/health', headers: { host } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end();
      });
    expect(await statusWithHost('publisher.example.com')).toBe(200);
    expect(await statusWithHost('evil.example.com')).toBe(403);
  });

  it('without a public URL, serves no media addresses', async () => {
    serve = await startServe(programEnv(tempDir('spm-media-addresses-')));
    const addresses = new MediaAddresses(Buffer.alloc(32, 1), serve.url);
    expect((await fetch(addresses.address(1, 'med_x', Date.now() + 60_000))).status).toBe(404);
  });
});
