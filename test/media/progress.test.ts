/**
 * Progress notifications of upload_media with the real SDK client: sent only when the client gave a
 * progress token (the SDK does when callTool has `onprogress`), increasing, at most one per percent,
 * with the file's size as total when it is known, all before the result.
 */
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MediaFiles, pngBytes } from '../contract/media-files.js';
import { BRAND } from '../contract/support.js';
import { connectMcp, type MediaMcp } from './mcp-client.js';
import {
  type LoopbackServer,
  type MediaWorld,
  MiB,
  openMediaWorld,
  startLoopbackServer,
  streamBody,
} from './support.js';

const FILE_SIZE = 20 * MiB;

let world: MediaWorld;
let server: LoopbackServer;
let files: MediaFiles;
let mcp: MediaMcp;
beforeEach(async () => {
  world = await openMediaWorld();
  server = await startLoopbackServer();
  files = new MediaFiles();
  mcp = await connectMcp(world);
});
afterEach(async () => {
  await mcp.close();
  await server.close();
  files.remove();
  await world.close();
});

async function uploadWithProgress(
  args: Record<string, unknown>,
): Promise<{ result: CallToolResult; updates: Progress[] }> {
  const updates: Progress[] = [];
  const result = (await mcp.client.callTool(
    { name: 'upload_media', arguments: { brandId: BRAND.northwind, ...args } },
    undefined,
    {
      onprogress: (progress) => updates.push(progress),
    },
  )) as CallToolResult;
  return { result, updates };
}

function expectProgressUpTo(updates: Progress[], total: number | undefined, last: number): void {
  expect(updates.length).toBeGreaterThanOrEqual(5);
  for (let i = 1; i < updates.length; i++)
    expect(updates[i]!.progress).toBeGreaterThan(updates[i - 1]!.progress);
  for (const update of updates) expect(update.total).toBe(total);
  expect(updates.at(-1)!.progress).toBe(last);
}

describe('progress notifications of upload_media', () => {
  it('are sent while a 20 MB file is read, when the client sent a progress token', async () => {
    const path = files.sized('big.png', pngBytes(30), FILE_SIZE);
    const { result, updates } = await uploadWithProgress({ path });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      status: 'success',
      data: { type: 'image/png', size: FILE_SIZE },
    });
    expectProgressUpTo(updates, FILE_SIZE, FILE_SIZE);
    // At most one per percent: not one per 64 KiB read.
    expect(updates.length).toBeLessThanOrEqual(101);
    expect(updates[0]!.message).toBe('Reading the file');
    // All of them reached the client before the result.
    const resultIndex = mcp.received.findIndex((message) => 'result' in message);
    expect(mcp.progressMessages()).toHaveLength(updates.length);
    expect(mcp.received.indexOf(mcp.progressMessages().at(-1)!)).toBeLessThan(resultIndex);
    expect(mcp.clientErrors).toEqual([]);
  });

  it('are not sent when the client did not ask for them', async () => {
    const path = files.sized('big.png', pngBytes(32), FILE_SIZE);
    const result = (await mcp.client.callTool({
      name: 'upload_media',
      arguments: { brandId: BRAND.northwind, path },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(mcp.received.some((message) => 'result' in message)).toBe(true);
    expect(mcp.progressMessages()).toEqual([]);
    expect(mcp.clientErrors).toEqual([]);
  });

  it('follow a url download, with the announced length as total', async () => {
    server.route('/big.png', (_req, res) => {
      res.writeHead(200, { 'content-length': String(FILE_SIZE) });
      void streamBody(res, pngBytes(33), FILE_SIZE);
    });
    const { result, updates } = await uploadWithProgress({ url: server.url('/big.png') });
    expect(result.isError).toBeFalsy();
    expectProgressUpTo(updates, FILE_SIZE, FILE_SIZE);
  });

  it('follow a download of unknown length without a total, about one per MiB', async () => {
    server.route('/chunked.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      void streamBody(res, pngBytes(34), FILE_SIZE);
    });
    const { result, updates } = await uploadWithProgress({ url: server.url('/chunked.png') });
    expect(result.isError).toBeFalsy();
    expect(updates.length).toBeGreaterThanOrEqual(15);
    expect(updates.length).toBeLessThanOrEqual(22);
    expectProgressUpTo(updates, undefined, updates.at(-1)!.progress);
    expect(updates.at(-1)!.progress).toBeGreaterThan(FILE_SIZE - MiB);
  });

  it('end with the error result when the file turns out to be refused', async () => {
    const path = files.sized('zeros.png', Buffer.alloc(16), 5 * MiB);
    const { result, updates } = await uploadWithProgress({ path });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      errors: { media: ['The media must be a file of type: png, jpg, jpeg, mp4, mov, pdf.'] },
    });
    expectProgressUpTo(updates, 5 * MiB, 5 * MiB);
    expect(world.stagingEntries()).toEqual([]);
  });
});
