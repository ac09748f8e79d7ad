/**
 * Smoke test of the built program over stdio, started the way Claude Desktop starts it: a fresh data
 * directory, the demo workspace, real time, and nothing but JSON-RPC on stdout.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  brandTitles,
  CHILD_TIMEOUT_MS,
  childEnv,
  cleanup,
  connectStdio,
  PROJECT_ROOT,
  requireBuild,
  runMain,
  STACK_FRAME,
  spawnMain,
  tempDir,
} from '../mcp/cli-harness.js';

/** Whether a stdout line is the answer to request `id` (lines that are not JSON are judged later). */
function answers(line: string, id: number): boolean {
  try {
    return (JSON.parse(line) as { id?: unknown }).id === id;
  } catch {
    return false;
  }
}

const VERSION = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

beforeAll(() => {
  requireBuild();
});

afterEach(async () => {
  await cleanup();
});

describe('stdio server (node dist/main.js)', () => {
  it('initializes, shows the demo workspace and creates a scheduled post', async () => {
    const session = await connectStdio(childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir() }));
    expect(session.client.getServerVersion()).toMatchObject({
      name: 'social-publisher-mcp',
      version: VERSION,
    });
    expect(session.client.getServerCapabilities()?.tools).toBeDefined();

    const tools = (await session.client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(
      expect.arrayContaining([
        'get_profile',
        'list_brands',
        'list_channels',
        'list_collections',
        'upload_media',
        'create_post',
      ]),
    );

    const profile = await session.call('get_profile');
    expect(profile.structuredContent).toMatchObject({ status: 'success', data: { name: 'Demo User' } });

    const brands = await session.call('list_brands');
    expect(brands.isError ?? false).toBe(false);
    expect(brandTitles(brands)).toEqual(['Northwind Coffee', 'Kite & Key Studio']);

    const collections = await session.call('list_collections', { brandId: 1 });
    expect(collections.isError ?? false).toBe(false);
    const titles = (collections.structuredContent as { data: Array<{ title: string }> }).data.map(
      (c) => c.title,
    );
    expect(titles).toEqual(['Everywhere', 'Visual', 'Conversation', 'Newsletter']);

    // A date in the future of the real clock: mid-June next year, New York summer time (UTC-4).
    const year = new Date().getUTCFullYear() + 1;
    const created = await session.call('create_post', {
      brandId: 1,
      collectionId: 1,
      publishMode: 'SCHEDULE',
      caption: 'Summer blend pre-orders open',
      scheduledAt: `${year}-06-15 10:30:00`,
    });
    expect(created.isError ?? false, JSON.stringify(created.structuredContent)).toBe(false);
    expect(created.structuredContent).toMatchObject({ status: 'success', data: { id: expect.any(Number) } });
    const text = created.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
    expect(text).toContain(`${year}-06-15T14:30:00.000000Z`);

    const failed = await session.call('create_post', { brandId: 1, collectionId: 1, publishMode: 'DRAFT' });
    expect(failed.isError).toBe(true);

    await session.close();
    expect(session.stderr()).not.toMatch(STACK_FRAME);
  });

  it('writes nothing but JSON-RPC 2.0 messages on stdout and exits 0 when stdin closes', async () => {
    const child = spawnMain([], childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir() }));
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const lines: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const lastAnswered = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer to id 5; stderr: ${stderr}`)),
        CHILD_TIMEOUT_MS,
      );
      createInterface({ input: child.stdout! }).on('line', (line) => {
        lines.push(line);
        if (answers(line, 5)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });

    const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_brands', arguments: {} } });
    send({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'create_post', arguments: { brandId: 99, collectionId: 1, publishMode: 'NOW' } },
    });
    send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    await lastAnswered;
    child.stdin!.end();
    expect(await exited).toBe(0);

    const messages = lines.map((line) => {
      let parsed: unknown;
      expect(() => {
        parsed = JSON.parse(line);
      }, `stdout line is not JSON: ${line}`).not.toThrow();
      return parsed as { jsonrpc: string; id?: number; result?: Record<string, unknown>; error?: unknown };
    });
    for (const message of messages) expect(message.jsonrpc).toBe('2.0');
    const byId = new Map(messages.map((m) => [m.id, m]));
    expect([...byId.keys()].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(byId.get(1)?.result).toMatchObject({ serverInfo: { name: 'social-publisher-mcp' } });
    expect(JSON.stringify(byId.get(3)?.result)).toContain('Kite & Key Studio');
    expect(byId.get(4)?.result).toMatchObject({
      isError: true,
      structuredContent: {
        status: 'error',
        message: 'Brand not found.',
        errors: { brand: 'Brand not found.' },
      },
    });
    expect(byId.get(5)?.error).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
    expect(stderr).not.toMatch(STACK_FRAME);
  });

  it('with SOCIAL_PUBLISHER_DEMO=0 on a fresh directory exits non-zero and says to import', async () => {
    const run = await runMain(
      [],
      childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir(), SOCIAL_PUBLISHER_DEMO: '0' }),
    );
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/import/);
    expect(run.stderr).not.toMatch(STACK_FRAME);
  });

  it('keeps its data: a second start sees the same workspace and continues the post ids', async () => {
    const dataDir = tempDir();
    const first = await connectStdio(childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir }));
    const year = new Date().getUTCFullYear() + 1;
    const created = await first.call('create_post', {
      brandId: 2,
      collectionId: 5,
      publishMode: 'SCHEDULE',
      caption: 'Hello Tokyo',
      scheduledAt: `${year}-01-10 09:00:00`,
    });
    expect(created.isError ?? false).toBe(false);
    const firstId = (created.structuredContent as { data: { id: number } }).data.id;
    await first.close();

    const second = await connectStdio(childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir }));
    expect(brandTitles(await second.call('list_brands'))).toEqual(['Northwind Coffee', 'Kite & Key Studio']);
    const again = await second.call('create_post', {
      brandId: 2,
      collectionId: 5,
      publishMode: 'DRAFT',
      caption: 'Second session',
    });
    expect((again.structuredContent as { data: { id: number } }).data.id).toBeGreaterThan(firstId);
    await second.close();
  });
});
