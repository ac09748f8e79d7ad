/**
 * The supported Node versions other than the one running the tests (engines: 20.19+; CI runs the suite
 * on 20): the built program on Node 22 and 24, on a fresh data directory, over stdio as an MCP host starts
 * it. There the store must run on the built-in node:sqlite, so the program runs from a copy of dist/
 * whose node_modules lack @photostructure/sqlite (Node 20's driver): it could start on nothing else.
 * The Node binaries come from the npm registry (scripts/node-version.mjs; .ci/run installs them first).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script, without types.
import { nodeBinary as findNode } from '../../scripts/node-version.mjs';
import { sqliteDriver } from '../../src/store/sqlite/driver.js';
import {
  brandTitles,
  CHILD_TIMEOUT_MS,
  childEnv,
  cleanup,
  PROJECT_ROOT,
  requireBuild,
  STACK_FRAME,
  tempDir,
} from '../mcp/cli-harness.js';

const nodeBinary: (major: number) => string = findNode;

/** Where a program without @photostructure/sqlite sits: dist/, package.json, the other packages linked. */
let withoutPackage: string;

beforeAll(() => {
  requireBuild();
  withoutPackage = tempDir('spm-node-versions-');
  cpSync(join(PROJECT_ROOT, 'dist'), join(withoutPackage, 'dist'), { recursive: true });
  cpSync(join(PROJECT_ROOT, 'package.json'), join(withoutPackage, 'package.json'));
  const modules = join(withoutPackage, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(PROJECT_ROOT, 'node_modules'))) {
    if (name === '@photostructure' || name.startsWith('.')) continue;
    symlinkSync(join(PROJECT_ROOT, 'node_modules', name), join(modules, name));
  }
});

afterAll(async () => {
  await cleanup();
});

async function session(node: string, dataDir: string) {
  const transport = new StdioClientTransport({
    command: node,
    args: [join(withoutPackage, 'dist', 'main.js')],
    env: childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir }),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'node-versions-test', version: '1.0.0' });
  try {
    await client.connect(transport, { timeout: CHILD_TIMEOUT_MS });
  } catch (error) {
    throw new Error(`connecting failed: ${(error as Error).message}; server stderr: ${stderr}`);
  }
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args }, undefined, {
      timeout: CHILD_TIMEOUT_MS,
    })) as CallToolResult;
  return { client, call, stderr: () => stderr };
}

describe.each([22, 24])('Node %i', (major) => {
  let node: string;

  beforeAll(() => {
    node = nodeBinary(major); // Installed on first use: up to a minute.
  }, 180_000);

  it('is that version', () => {
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    expect(version).toMatch(new RegExp(`^v${major}\\.`));
  });

  it('runs the program on node:sqlite: initialize, list_brands, a DRAFT create_post', async () => {
    const { client, call, stderr } = await session(node, tempDir());
    try {
      expect(client.getServerVersion()?.name).toBe('social-publisher-mcp');
      const brands = await call('list_brands', {});
      expect(brands.isError ?? false, JSON.stringify(brands.content)).toBe(false);
      expect(brandTitles(brands)).toContain('Northwind Coffee');
      const created = await call('create_post', {
        brandId: 1,
        collectionId: 1,
        publishMode: 'DRAFT',
        caption: `Drafted on Node ${major}`,
      });
      expect(created.isError ?? false, JSON.stringify(created.content)).toBe(false);
      const id = (created.structuredContent as { data: { id: number } }).data.id;
      const post = await call('get_post', { brandId: 1, postId: id });
      expect(post.structuredContent).toMatchObject({ data: { id, status: 'draft' } });
      expect(JSON.stringify(post.structuredContent)).toContain(`Drafted on Node ${major}`);
    } finally {
      await client.close();
    }
    expect(stderr()).not.toMatch(STACK_FRAME);
    expect(stderr()).not.toMatch(/ExperimentalWarning|SQLite is an experimental/i);
  });
});

describe.runIf(sqliteDriver().name !== 'node:sqlite')('a Node without node:sqlite (Node 20)', () => {
  it('without @photostructure/sqlite, refuses to start and says what to do', () => {
    const run = spawnSync(
      process.execPath,
      [join(withoutPackage, 'dist', 'main.js'), 'import', join(PROJECT_ROOT, 'examples', 'workspace.json')],
      {
        env: childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir() }),
        encoding: 'utf8',
        timeout: CHILD_TIMEOUT_MS,
      },
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      `This Node (${process.version}) has no built-in node:sqlite, and its replacement, the optional dependency @photostructure/sqlite, is unavailable: it is not installed. Use Node >= 22.13`,
    );
  });
});
