/**
 * The 100 MB limit over a real loopback connection: the body is streamed from a generator (never
 * built in memory), the server streams it to disk, the process's memory stays flat, and a body that
 * declares more than the limit is refused from its headers alone.
 */

import { readdirSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/serve.js';
import { MEDIA_LIMIT_BYTES, pngBytes } from '../contract/media-files.js';
import {
  expectTimestamps,
  invalidBody,
  KEY_A,
  listenOnLoopback,
  openRestWorld,
  type RestWorld,
} from './support.js';

let world: RestWorld;
let server: RunningServer;
beforeEach(async () => {
  world = await openRestWorld();
  server = await listenOnLoopback(world);
});
afterEach(async () => {
  await server.close();
  expect(world.logged).toEqual([]);
  expect(world.stagingEntries()).toEqual([]);
  await world.close();
});

const TOO_LARGE = invalidBody({ media: ['The media file may not be greater than 100 megabytes.'] });
const BOUNDARY = '----rest-big-upload-boundary';
const MiB = 1024 * 1024;
/** Growth of the process's resident memory that an upload of 100 MB may cause, at most. */
const RSS_BOUND = 50 * MiB;

/** The multipart body of one PNG-headed file of exactly `size` bytes, produced chunk by chunk. */
async function* bigUpload(size: number): AsyncGenerator<Buffer> {
  const head = pngBytes(42);
  yield Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="media"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  yield head;
  const zeros = Buffer.alloc(MiB);
  let left = size - head.length;
  while (left > 0) {
    const n = Math.min(left, zeros.length);
    yield n === zeros.length ? zeros : zeros.subarray(0, n);
    left -= n;
  }
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
}

interface Answer {
  status: number;
  text: string;
}

function readAnswer(response: IncomingMessage): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () =>
      resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
    );
    response.on('error', reject);
  });
}

/** Streams `body` (chunked, with backpressure) to `path`; `onChunk` runs after each chunk is written. */
async function send(
  path: string,
  body: AsyncIterable<Buffer>,
  onChunk: () => void = () => {},
): Promise<Answer> {
  const request = httpRequest(new URL(path, server.url), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${KEY_A}`,
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    },
  });
  const answered = new Promise<Answer>((resolve, reject) => {
    request.on('response', (response) => readAnswer(response).then(resolve, reject));
    request.on('error', reject);
  });
  let answer: Answer | undefined;
  answered.then(
    (a) => {
      answer = a;
    },
    () => undefined,
  );
  for await (const chunk of body) {
    if (answer || request.destroyed) break;
    if (!request.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          request.off('drain', done);
          request.off('close', done);
          resolve();
        };
        request.on('drain', done);
        request.on('close', done);
      });
    }
    onChunk();
  }
  request.end();
  return answered;
}

/**
 * Uploads `body` to brand 1 and measures the peak growth of the process RSS (client and server share
 * the process) over the RSS before the request, sampled at every chunk.
 */
async function measuredUpload(body: AsyncIterable<Buffer>): Promise<Answer & { rssGrowth: number }> {
  // Warm up first, on brand 2, with 32 MiB: the type sniffer and the multipart parser load on first
  // use and V8 grows its young generation once under streaming churn (about 40 MB, whatever the file
  // size). Only what the 100 MB upload itself adds is measured; a server that buffered the file would
  // still add over 100 MB.
  const warmUp = await send('/v1/brands/2/media', bigUpload(32 * MiB));
  expect(warmUp.status).toBe(201);
  const before = process.memoryUsage.rss();
  let peak = before;
  const answer = await send('/v1/brands/1/media', body, () => {
    peak = Math.max(peak, process.memoryUsage.rss());
  });
  peak = Math.max(peak, process.memoryUsage.rss());
  return { ...answer, rssGrowth: peak - before };
}

function committedFiles(brandId: number): string[] {
  try {
    return readdirSync(join(world.rt.dataDir, 'media', String(brandId)));
  } catch {
    return [];
  }
}

describe('the 100 MB limit, streamed', () => {
  it('refuses a file of 104,857,601 bytes with the spec message, without holding it in memory', async () => {
    const result = await measuredUpload(bigUpload(MEDIA_LIMIT_BYTES + 1));
    expect({ status: result.status, text: result.text }).toEqual({ status: 422, text: TOO_LARGE });
    expect(result.rssGrowth).toBeLessThan(RSS_BOUND);
    expect(committedFiles(1)).toEqual([]);
  });

  it('accepts a file of exactly 104,857,600 bytes, also streamed to disk', async () => {
    const result = await measuredUpload(bigUpload(MEDIA_LIMIT_BYTES));
    expect(result.status).toBe(201);
    const body = JSON.parse(result.text);
    expect(body).toEqual({
      status: 'success',
      data: { id: expect.any(String), type: 'image/png', size: MEDIA_LIMIT_BYTES },
    });
    expect(result.rssGrowth).toBeLessThan(RSS_BOUND);
    expect(committedFiles(1)).toEqual([body.data.id]);
    expectTimestamps(body);
  });
});

describe('a declared Content-Length over the limit', () => {
  it('is refused from the headers, before any of the body is sent', async () => {
    const url = new URL('/v1/brands/1/media', server.url);
    const request = httpRequest(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${KEY_A}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': String(MEDIA_LIMIT_BYTES + 10 * MiB),
      },
    });
    const answered = new Promise<Answer>((resolve, reject) => {
      request.on('response', (response) => readAnswer(response).then(resolve, reject));
      request.on('error', reject);
    });
    // Only the headers go out: a server that waited for the body would never answer.
    request.flushHeaders();
    const answer = await answered;
    request.destroy();
    expect(answer).toEqual({ status: 422, text: TOO_LARGE });
    expect(committedFiles(1)).toEqual([]);
  });

  it('still answers 401 first when the key is missing', async () => {
    const url = new URL('/v1/brands/1/media', server.url);
    const request = httpRequest(url, {
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': String(MEDIA_LIMIT_BYTES + 10 * MiB),
      },
    });
    const answered = new Promise<Answer>((resolve, reject) => {
      request.on('response', (response) => readAnswer(response).then(resolve, reject));
      request.on('error', reject);
    });
    request.flushHeaders();
    const answer = await answered;
    request.destroy();
    expect(answer.status).toBe(401);
  });
});
