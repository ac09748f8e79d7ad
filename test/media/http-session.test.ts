/**
 * upload_media over MCP Streamable HTTP (createHttpApp on a real loopback listener, the SDK's own client
 * transport): the server is not on the caller's machine, so a path is refused with a clear error on
 * path (even for a file that exists where the server runs) and keeps nothing, while url and base64 work,
 * with progress notifications over the HTTP stream.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp, listen, type RunningServer } from '../../src/http/serve.js';
import { UrlDownloader } from '../../src/media/url-download.js';
import { MediaFiles, pngBytes } from '../contract/media-files.js';
import { BRAND } from '../contract/support.js';
import {
  expectNothingKept,
  type LoopbackServer,
  type MediaWorld,
  MiB,
  openMediaWorld,
  startLoopbackServer,
  streamBody,
} from './support.js';

const API_KEY = 'media-http-key-0123456789';
const PATH_REFUSED =
  'A path cannot be read here: this server does not run on your machine. Send the file as url or base64 (with filename) instead.';

let world: MediaWorld;
let files: MediaFiles;
let origin: LoopbackServer;
let http: RunningServer;
let client: Client;
let downloader: UrlDownloader;
const logged: unknown[] = [];

beforeEach(async () => {
  world = await openMediaWorld();
  files = new MediaFiles();
  origin = await startLoopbackServer();
  await world.rt.importWorkspace({
    brands: [],
    users: [{ name: 'Ada', timezone: 'UTC', apiKey: API_KEY, brands: ['Northwind Coffee'] }],
  });
  downloader = new UrlDownloader({ allow: ['127.0.0.1'] });
  const app = createHttpApp({
    runtime: { ...world.rt.runtime, downloader },
    version: 'test',
    loopbackOnly: true,
    log: (message, error) => logged.push({ message, error }),
  });
  http = await listen(app, { host: '127.0.0.1', port: 0 });
  client = new Client({ name: 'media-http-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${API_KEY}` } },
    }),
  );
  logged.length = 0;
});
afterEach(async () => {
  await client.close().catch(() => undefined);
  await http.close();
  await origin.close();
  await downloader.close();
  files.remove();
  await world.close();
});

const upload = async (args: Record<string, unknown>, onprogress?: (progress: Progress) => void) =>
  (await client.callTool(
    { name: 'upload_media', arguments: { brandId: BRAND.northwind, ...args } },
    undefined,
    onprogress ? { onprogress } : undefined,
  )) as CallToolResult;

describe('upload_media over MCP Streamable HTTP', () => {
  it('refuses a path with a clear error on path, although the file exists on the server, and keeps nothing', async () => {
    const path = files.write('photo.png', pngBytes());
    const result = await upload({ path });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      status: 'error',
      message: 'The given data was invalid.',
      errors: { path: [PATH_REFUSED] },
    });
    const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
    expect(text).toContain(PATH_REFUSED);
    await expectNothingKept(world);
    expect(logged).toEqual([]);
  });

  it('refuses a path to a file that does not exist with the same message (nothing about the server’s disk)', async () => {
    const result = await upload({ path: files.path('missing.png') });
    expect(result.structuredContent).toMatchObject({ errors: { path: [PATH_REFUSED] } });
  });

  it('accepts base64 with filename', async () => {
    const bytes = pngBytes(40);
    const result = await upload({ base64: bytes.toString('base64'), filename: 'photo.PNG' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      status: 'success',
      data: { id: expect.any(String), type: 'image/png', size: bytes.length },
    });
  });

  it('downloads a url, with progress notifications over the HTTP stream', async () => {
    const size = 8 * MiB;
    origin.route('/photo', (_req, res) => {
      res.writeHead(200, { 'content-length': String(size) });
      void streamBody(res, pngBytes(41), size);
    });
    const updates: Progress[] = [];
    const result = await upload({ url: origin.url('/photo') }, (progress) => updates.push(progress));
    expect(result.structuredContent).toMatchObject({ status: 'success', data: { type: 'image/png', size } });
    expect(updates.length).toBeGreaterThanOrEqual(5);
    expect(updates.at(-1)).toMatchObject({ progress: size, total: size });
    expect(world.mediaRows()).toBe(1);
    expect(world.stagingEntries()).toEqual([]);
  });
});
