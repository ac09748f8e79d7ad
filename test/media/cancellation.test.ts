/**
 * Cancelling an upload, by the real SDK client (notifications/cancelled) or with an AbortSignal given to
 * the service: reading or downloading stops at once (the loopback server sees its client go away long
 * before any timeout), nothing is kept, the session goes on, and the process never gets an uncaught
 * exception from the file being written.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MediaFiles, pngBytes } from '../contract/media-files.js';
import { BRAND, rejectionOf } from '../contract/support.js';
import { connectMcp, type MediaMcp } from './mcp-client.js';
import {
  expectNothingKept,
  type LoopbackServer,
  type MediaWorld,
  MiB,
  openMediaWorld,
  startLoopbackServer,
  uncaughtDuring,
  waitFor,
} from './support.js';

const HEAD = pngBytes(31);

let world: MediaWorld;
let server: LoopbackServer;
let files: MediaFiles;
let mcp: MediaMcp;
beforeEach(async () => {
  // Long stall and overall timeouts: only cancellation may end the stalled downloads below.
  world = await openMediaWorld({ stallTimeoutMs: 30_000, timeoutMs: 60_000 });
  server = await startLoopbackServer();
  files = new MediaFiles();
  mcp = await connectMcp(world);
  // Sends the headers and the first bytes of a PNG, then nothing more, never ending.
  server.route('/stalled.png', (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(20 * MiB) });
    res.write(HEAD);
  });
  server.route('/silent.png', () => undefined);
});
afterEach(async () => {
  await mcp.close();
  await server.close();
  files.remove();
  await world.close();
});

/** Until the stalled download's first bytes are on disk in staging. */
const headStaged = () => waitFor(() => world.stagingBytes() === HEAD.length, 5000);

describe('cancellation by the MCP client', () => {
  it('stops a url download under way, keeps nothing, and the session goes on', async () => {
    const controller = new AbortController();
    const call = mcp.client.callTool(
      { name: 'upload_media', arguments: { brandId: BRAND.northwind, url: server.url('/stalled.png') } },
      undefined,
      { signal: controller.signal },
    );
    const settled = call.then(
      () => 'resolved',
      () => 'rejected',
    );
    await headStaged();
    const abortedAt = performance.now();
    controller.abort('The user cancelled the upload.');
    expect(await settled).toBe('rejected');
    // The server's call ends, and the download itself stopped: the loopback server saw its client go.
    await mcp.serverCallsSettled();
    await waitFor(() => server.closedResponses === 1, 2000);
    expect(performance.now() - abortedAt).toBeLessThan(3000);
    await expectNothingKept(world);
    // No late result or progress for the cancelled request reached the client.
    expect(mcp.received.filter((message) => 'result' in message || 'error' in message)).toEqual([]);
    const brands = (await mcp.client.callTool({ name: 'list_brands', arguments: {} })) as CallToolResult;
    expect(brands.isError).toBeFalsy();
  });

  it('stops a download whose server has not answered yet, keeping nothing', async () => {
    const controller = new AbortController();
    const call = mcp.client.callTool(
      { name: 'upload_media', arguments: { brandId: BRAND.northwind, url: server.url('/silent.png') } },
      undefined,
      { signal: controller.signal },
    );
    await waitFor(() => server.requests.length === 1, 5000);
    controller.abort('The user cancelled the upload.');
    await expect(call).rejects.toThrow();
    await mcp.serverCallsSettled();
    await waitFor(() => server.closedResponses === 1, 2000);
    await expectNothingKept(world);
  });
});

describe('cancellation with an AbortSignal given to the service', () => {
  it('rejects a url upload with the signal’s reason, stops the download and keeps nothing', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const outcome = rejectionOf(
      world.service.uploadMedia(
        { brandId: BRAND.northwind, url: server.url('/stalled.png') },
        { signal: controller.signal },
      ),
    );
    await headStaged();
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    await waitFor(() => server.closedResponses === 1, 2000);
    await expectNothingKept(world);
  });

  it('stops reading a large path at once and keeps nothing', async () => {
    const path = files.sized('big.png', pngBytes(35), 100 * MiB);
    const controller = new AbortController();
    const reason = new Error('stop');
    let readWhenAborted = 0;
    let readAfterwards = 0;
    const outcome = rejectionOf(
      world.service.uploadMedia(
        { brandId: BRAND.northwind, path },
        {
          signal: controller.signal,
          onProgress: (bytes) => {
            if (readWhenAborted === 0 && bytes >= 5 * MiB) {
              readWhenAborted = bytes;
              controller.abort(reason);
            } else if (readWhenAborted > 0) readAfterwards = bytes;
          },
        },
      ),
    );
    // The reason itself, or the file stream's AbortError caused by it.
    const error = (await outcome) as Error;
    expect(error === reason || error.cause === reason).toBe(true);
    expect(readWhenAborted).toBeGreaterThan(0);
    expect(readAfterwards).toBe(0);
    await expectNothingKept(world);
  });

  it('does not start with a signal already aborted', async () => {
    server.route('/a.png', (_req, res) => res.end(pngBytes()));
    const reason = new Error('too late');
    const outcome = await rejectionOf(
      world.service.uploadMedia(
        { brandId: BRAND.northwind, url: server.url('/a.png') },
        { signal: AbortSignal.abort(reason) },
      ),
    );
    expect(outcome).toBe(reason);
    expect(server.requests).toEqual([]);
    await expectNothingKept(world);
  });

  it('while bytes are flowing never raises an uncaught exception (that would end the server process)', async () => {
    // A fast body in small pieces: a write to the staging file is under way when the upload is cancelled.
    server.route('/flowing.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(pngBytes(36));
      const piece = Buffer.alloc(4096);
      const pump = () => {
        if (res.destroyed) return;
        res.write(piece);
        setImmediate(pump);
      };
      pump();
    });
    const uncaught = await uncaughtDuring(async () => {
      for (let attempt = 0; attempt < 10; attempt++) {
        const controller = new AbortController();
        const reason = new Error(`stop ${attempt}`);
        let last = 0;
        const outcome = await rejectionOf(
          world.service.uploadMedia(
            { brandId: BRAND.northwind, url: server.url('/flowing.png') },
            {
              signal: controller.signal,
              onProgress: (bytes) => {
                // After a piece smaller than the stream's buffer, whose write is still going on (or
                // after 8 MiB in any case).
                if ((bytes > 256 * 1024 && bytes - last < 16 * 1024) || bytes > 8 * MiB)
                  controller.abort(reason);
                last = bytes;
              },
            },
          ),
        );
        expect(outcome).toBe(reason);
      }
    });
    expect(uncaught).toEqual([]);
    await expectNothingKept(world);
  });
});
