/**
 * Several processes starting at the same moment on one fresh data directory, as several MCP clients
 * (or a client and a `serve`) do: each must wait for the others' schema and demo workspace, not make
 * its own or fail. Six stdio servers, each driven by the real SDK client, all answer; the store ends
 * with one demo user and two brands. Two `serve` at once: one key is printed, and it works on both.
 *
 * A stdio server opens the store as it starts: the six are spawned in one tick, so that their starts
 * overlap, and their clients connect once all are up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import {
  brandTitles,
  CHILD_TIMEOUT_MS,
  childEnv,
  cleanup,
  MAIN_JS,
  requireBuild,
  tempDir,
} from '../mcp/cli-harness.js';

const children: ChildProcess[] = [];
const clients: Client[] = [];

beforeAll(() => requireBuild());

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await cleanup();
});

/** A stdio server spawned now; `connect` sends its client's `initialize`. */
async function spawnStdio(env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN_JS],
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  await transport.start();
  // Started already: the client's connect must only send `initialize`.
  transport.start = async () => undefined;
  const client = new Client({ name: 'concurrent-start-test', version: '1.0.0' });
  clients.push(client);
  return {
    stderr: () => stderr,
    connect: () => client.connect(transport, { timeout: CHILD_TIMEOUT_MS }),
    listTools: () => client.listTools(undefined, { timeout: CHILD_TIMEOUT_MS }),
    call: async (name: string) =>
      (await client.callTool({ name, arguments: {} }, undefined, {
        timeout: CHILD_TIMEOUT_MS,
      })) as CallToolResult,
  };
}

/** Users and brands in the store, read after every process let go of it. */
function workspaceIn(dataDir: string): { users: string[]; brands: string[]; keys: number } {
  const db = openDatabase(join(dataDir, DATABASE_FILE));
  try {
    const users = db.prepare('SELECT name FROM users').all() as Array<{ name: string }>;
    const keys = db.prepare('SELECT COUNT(*) AS n FROM api_keys').get() as { n: number };
    const brands = db.prepare('SELECT title FROM brands ORDER BY id').all() as Array<{ title: string }>;
    return {
      users: users.map((user) => user.name),
      brands: brands.map((brand) => brand.title),
      keys: Number(keys.n),
    };
  } finally {
    db.close();
  }
}

describe('six stdio servers started at once on a fresh data directory', () => {
  it('all answer tools/list and list_brands; the store has one demo user and two brands', async () => {
    const dataDir = tempDir();
    const env = childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir });
    const servers = await Promise.all(Array.from({ length: 6 }, () => spawnStdio(env)));
    await sleep(1000); // every process has started (and opened the store) by now
    const outcomes = await Promise.allSettled(
      servers.map(async (server) => {
        await server.connect();
        const tools = (await server.listTools()).tools.map((tool) => tool.name);
        return { tools, brands: brandTitles(await server.call('list_brands')) };
      }),
    );
    for (const [index, outcome] of outcomes.entries()) {
      expect(outcome, servers[index]!.stderr()).toEqual({
        status: 'fulfilled',
        value: {
          tools: expect.arrayContaining(['list_brands', 'create_post']),
          brands: ['Northwind Coffee', 'Kite & Key Studio'],
        },
      });
      expect(servers[index]!.stderr()).toBe('');
    }
    await Promise.all(clients.splice(0).map((client) => client.close()));
    expect(workspaceIn(dataDir)).toEqual({
      users: ['Demo User'],
      brands: ['Northwind Coffee', 'Kite & Key Studio'],
      keys: 0,
    });
  }, 60_000);
});

/** Starts `serve` on an ephemeral port; resolves with its URL and whatever it wrote to stderr. */
function startServe(dataDir: string): Promise<{ url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [MAIN_JS, 'serve', '--port', '0'], {
    env: childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), CHILD_TIMEOUT_MS);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const url = /listening on (http:\/\/\S+):/.exec(stderr)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ url, stderr: () => stderr });
      }
    });
  });
}

describe('two serve started at once on a fresh data directory', () => {
  it('print one key between them, and that key works on both', async () => {
    const dataDir = tempDir();
    const servers = await Promise.all([startServe(dataDir), startServe(dataDir)]);
    const keys = servers.flatMap((server) => server.stderr().match(/spk_[\w-]+/g) ?? []);
    expect(keys).toHaveLength(1);
    for (const server of servers) {
      const response = await fetch(`${server.url}/v1/brands`, {
        headers: { authorization: `Bearer ${keys[0]}` },
      });
      expect(response.status).toBe(200);
    }
    expect(workspaceIn(dataDir)).toMatchObject({ users: ['Demo User'], keys: 1 });
  });
});
