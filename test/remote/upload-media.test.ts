/**
 * uploadMedia in remote mode: the local file checked as local mode checks it, then streamed to a real
 * server as multipart/form-data with the one field `media`, never read whole into memory.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/domain/errors.js';
import { RemotePublishingService } from '../../src/remote/remote-service.js';
import { pngBytes } from '../contract/media-files.js';
import { growthDuring } from '../support/memory-growth.js';
import { API_KEY, ok, type ScriptedServer, startScriptedServer } from './scripted-server.js';

let dir: string;
let server: ScriptedServer | undefined;
let client: RemotePublishingService | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spm-remote-upload-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

const MEDIA = { id: 'med_abc', type: 'image/png', size: 70 };

/** The parts of a multipart/form-data body: headers text and bytes of each. */
function multipartParts(contentType: string, body: Buffer): Array<{ headers: string; bytes: Buffer }> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  expect(boundary).not.toBeNull();
  const delimiter = Buffer.from(`--${boundary![1] ?? boundary![2]}`);
  const parts: Array<{ headers: string; bytes: Buffer }> = [];
  let at = body.indexOf(delimiter);
  expect(at).toBe(0);
  for (;;) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    expect(next).toBeGreaterThan(start);
    const part = body.subarray(start + 2, next - 2); // after CRLF, before the CRLF that ends the part
    const split = part.indexOf('\r\n\r\n');
    parts.push({ headers: part.subarray(0, split).toString('utf8'), bytes: part.subarray(split + 4) });
    at = next;
  }
  return parts;
}

describe('RemotePublishingService.uploadMedia', () => {
  it('sends the file as the one multipart field media, with its name and exact bytes', async () => {
    const bytes = pngBytes(7);
    const path = join(dir, 'Shop Front.PNG');
    writeFileSync(path, bytes);
    server = await startScriptedServer(() => ok({ ...MEDIA, size: bytes.length, sha: 'x' }, 201));
    client = new RemotePublishingService({ baseUrl: server.baseUrl, apiKey: API_KEY });

    expect(await client.uploadMedia({ brandId: '2', path })).toEqual({ ...MEDIA, size: bytes.length });
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/brands/2/media', query: {} });
    expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(Number(request!.headers['content-length'])).toBe(request!.body.length);
    const parts = multipartParts(request!.headers['content-type']!, request!.body);
    expect(parts).toHaveLength(1);
    expect(parts[0]!.headers).toContain(
      'Content-Disposition: form-data; name="media"; filename="Shop Front.PNG"',
    );
    expect(parts[0]!.bytes.equals(bytes)).toBe(true);
  });

  it('refuses a bad path with the sentences of local mode, sending nothing', async () => {
    server = await startScriptedServer(() => ok(MEDIA, 201));
    client = new RemotePublishingService({ baseUrl: server.baseUrl, apiKey: API_KEY });
    const errorsOf = async (request: unknown) => {
      const error = await client!.uploadMedia(request).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).errors;
    };
    const missing = join(dir, 'missing.png');
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    const empty = join(dir, 'empty.png');
    writeFileSync(empty, '');

    expect(await errorsOf({ brandId: 1, path: 'photos/a.png' })).toEqual({
      path: ['The path must be absolute (it is read on the machine running the server): photos/a.png'],
    });
    expect(await errorsOf({ brandId: 1, path: missing })).toEqual({
      path: [`The file ${missing} does not exist.`],
    });
    expect(await errorsOf({ brandId: 1, path: folder })).toEqual({
      path: [`The path ${folder} is a directory, not a file.`],
    });
    expect(await errorsOf({ brandId: 1, path: empty })).toEqual({ media: ['The media field is required.'] });
    expect(await errorsOf({ brandId: 'one', path: empty })).toEqual({
      brandId: ['The brand id must be an integer.'],
    });
    expect(await errorsOf({ brandId: 1 })).toEqual({ media: ['The media field is required.'] });
    expect(server.requests).toHaveLength(0);
  });

  it("turns the server's 422 on the media into the ValidationError", async () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'plain text');
    const errors = { media: ['The media must be a file of type: png, jpg, jpeg, mp4, mov, pdf.'] };
    server = await startScriptedServer(() => ({
      status: 422,
      body: { status: 'error', message: 'The given data was invalid.', errors },
    }));
    client = new RemotePublishingService({ baseUrl: server.baseUrl, apiKey: API_KEY });
    const error = await client.uploadMedia({ brandId: 1, path }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors).toEqual(errors);
  });
});

describe('RemotePublishingService.uploadMedia of a large file', () => {
  const SIZE = 64 * 1024 * 1024;

  /** A sparse file with distinct bytes at its start, middle and end; returns its SHA-256. */
  async function writeLargeFile(path: string): Promise<string> {
    const fd = openSync(path, 'w');
    writeSync(fd, Buffer.from('first bytes of a large upload'), 0, undefined, 0);
    writeSync(fd, createHash('sha512').update('middle').digest(), 0, undefined, SIZE / 2);
    const tail = Buffer.from('last bytes');
    writeSync(fd, tail, 0, undefined, SIZE - tail.length);
    closeSync(fd);
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    return hash.digest('hex');
  }

  /**
   * A server that reads the multipart body as it arrives, keeping only its headers and a hash of the
   * file part: the file bytes are everything between the part's headers and the closing delimiter.
   */
  async function startStreamingServer() {
    const seen: Array<{ headers: string; size: number; sha256: string; trailerOk: boolean }> = [];
    const http = createServer((req: IncomingMessage, res) => {
      const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(req.headers['content-type'] ?? '');
      const trailer = Buffer.from(`\r\n--${boundary?.[1] ?? boundary?.[2]}--\r\n`);
      const hash = createHash('sha256');
      let head = Buffer.alloc(0);
      let headers: string | undefined;
      let held = Buffer.alloc(0);
      let size = 0;
      const take = (bytes: Buffer) => {
        // Hold back the last bytes: they may be the closing delimiter, not file bytes.
        const all = Buffer.concat([held, bytes]);
        const keep = Math.min(all.length, trailer.length);
        const out = all.subarray(0, all.length - keep);
        hash.update(out);
        size += out.length;
        held = Buffer.from(all.subarray(all.length - keep));
      };
      req.on('data', (chunk: Buffer) => {
        if (headers !== undefined) return take(chunk);
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        headers = head.subarray(0, end).toString('utf8');
        take(head.subarray(end + 4));
      });
      req.on('end', () => {
        seen.push({
          headers: headers ?? '',
          size,
          sha256: hash.digest('hex'),
          trailerOk: held.equals(trailer),
        });
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'success', data: { id: 'med_big', type: 'video/mp4', size } }));
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as AddressInfo;
    return {
      baseUrl: `http://127.0.0.1:${port}/v1`,
      seen,
      close: () => new Promise<void>((resolve) => http.close(() => resolve())),
    };
  }

  it('streams a 64 MB file with memory growth far below its size', async () => {
    const path = join(dir, 'large.mp4');
    const expectedSha = await writeLargeFile(path);
    const receiver = await startStreamingServer();
    const remote = new RemotePublishingService({ baseUrl: receiver.baseUrl, apiKey: API_KEY });
    try {
      // Measured with collections between samples (memory-growth.ts): what the upload holds, not the
      // garbage of the chunks already sent, which a loaded machine may leave uncollected for a while.
      let media: Awaited<ReturnType<typeof remote.uploadMedia>> | undefined;
      const growth = await growthDuring(async () => {
        media = await remote.uploadMedia({ brandId: 1, path });
      });

      expect(media).toEqual({ id: 'med_big', type: 'video/mp4', size: SIZE });
      expect(receiver.seen).toHaveLength(1);
      const [upload] = receiver.seen;
      expect(upload!.headers).toContain('name="media"; filename="large.mp4"');
      expect(upload!.size).toBe(SIZE);
      expect(upload!.sha256).toBe(expectedSha);
      expect(upload!.trailerOk).toBe(true);
      expect(growth.rss).toBeLessThan(SIZE / 2);
    } finally {
      await remote.close();
      await receiver.close();
    }
  });
});
