/**
 * Closing `serve` gracefully waits for the MCP tool calls under way. A real loopback listener, the SDK's
 * client, and an `upload_media` from a url whose server (also on loopback, allowed by the downloader's
 * allow-list) sends the first bytes of a PNG and then holds the rest back: the call is under way for as
 * long as the test likes. close() is called in the middle of it: close() must not resolve while the
 * download is held, and once it is released the call's success must still reach the client.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createHttpApp, listen, type RunningServer } from '../../src/http/serve.js';
import { UrlDownloader } from '../../src/media/url-download.js';
import { pngBytes } from '../contract/media-files.js';
import { BRAND } from '../contract/support.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

const KEY = 'graceful-close-key-0123456789';
const PNG = pngBytes(42);

let rt: TestRuntime;
let downloader: UrlDownloader;
let origin: Server;
let held: { res: ServerResponse; rest: Buffer } | undefined;
let server: RunningServer | undefined;
let client: Client;

beforeEach(async () => {
  rt = await openTestRuntime();
  await rt.importWorkspace({
    brands: [],
    users: [{ name: 'Ada', timezone: 'UTC', apiKey: KEY, brands: ['Northwind Coffee'] }],
  });
  // Sends the announced length and the first half of the file, then waits for the test to release it.
  origin = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) });
    const half = Math.floor(PNG.length / 2);
    res.write(PNG.subarray(0, half));
    held = { res, rest: PNG.subarray(half) };
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  downloader = new UrlDownloader({ allow: ['127.0.0.1'] });
  const http = createHttpApp({
    runtime: { ...rt.runtime, downloader },
    version: 'test',
    loopbackOnly: true,
    log: (message, error) => {
      throw new Error(`unexpected server error: ${message}: ${String(error)}`);
    },
  });
  server = await listen(http, { host: '127.0.0.1', port: 0 });
  client = new Client({ name: 'graceful-close-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${KEY}` } },
    }),
  );
});

afterEach(async () => {
  held?.res.destroy();
  held = undefined;
  await client.close().catch(() => undefined);
  await server?.close();
  await new Promise<void>((resolve) => origin.close(() => resolve()));
  await downloader.close();
  await rt.close();
});

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

it('waits for an upload_media under way: its result reaches the client, then close() resolves', async () => {
  const { port } = origin.address() as AddressInfo;
  const events: string[] = [];
  const call = client
    .callTool(
      {
        name: 'upload_media',
        arguments: { brandId: BRAND.northwind, url: `http://127.0.0.1:${port}/slow.png` },
      },
      undefined,
      { timeout: 15_000 },
    )
    .then(
      (result) => {
        events.push('result');
        return result as CallToolResult;
      },
      (error: unknown) => {
        events.push(`call failed: ${String(error)}`);
        throw error;
      },
    );
  await until(() => held !== undefined); // the download has begun: the call is under way

  const closing = server!.close().then(() => events.push('closed'));
  server = undefined;
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(events).toEqual([]); // close() is still waiting for the call

  events.push('released');
  held!.res.end(held!.rest);
  const result = await call;
  await closing;
  // The result reached the client, and close() resolved only once the call had its bytes and finished.
  // (Which of the two the client notices first is a matter of ticks.)
  expect([...events].sort()).toEqual(['closed', 'released', 'result']);
  expect(events[0]).toBe('released');
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toEqual({
    status: 'success',
    data: { id: expect.stringMatching(/^med_/), type: 'image/png', size: PNG.length },
  });
});
