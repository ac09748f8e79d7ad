/**
 * The MCP Inspector CLI against the built stdio server, as a developer would point it at us:
 * `npx -y @modelcontextprotocol/inspector --cli <node> dist/main.js --method ...`. The Inspector needs
 * Node >= 22.19, so npx runs with the Node 22 binary first on PATH; our server runs on this Node, with a
 * fresh data dir passed by the Inspector's `-e`. The version is pinned so that a new Inspector release
 * cannot break CI unannounced; npx downloads it once into its cache (docs/conformance.md).
 */
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cleanup, MAIN_JS, PROJECT_ROOT, requireBuild, tempDir } from '../mcp/cli-harness.js';
import { node22 } from '../support/node22.js';
import { run } from './harness.js';

const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
/** The first run downloads the Inspector (about 15 s here); later ones start from npx's cache. */
const NPX_TIMEOUT_MS = 90_000;

const TOOLS = [
  'get_profile',
  'list_brands',
  'list_channels',
  'get_channel',
  'list_collections',
  'upload_media',
  'create_post',
  'list_posts',
  'get_post',
  'update_post',
  'delete_post',
  'publish_post',
  'get_queue',
  'connect_channel',
];

afterEach(cleanup);

/** Runs the Inspector CLI on the stdio server over `dataDir`; resolves with its parsed JSON output. */
async function inspect(dataDir: string, ...method: string[]): Promise<unknown> {
  requireBuild();
  const nodeBin = dirname(node22());
  const result = await run(
    'npx',
    [
      '-y',
      INSPECTOR,
      '--cli',
      '-e',
      `SOCIAL_PUBLISHER_DATA_DIR=${dataDir}`,
      process.execPath,
      MAIN_JS,
      ...method,
    ],
    {
      timeoutMs: NPX_TIMEOUT_MS,
      cwd: PROJECT_ROOT,
      env: { PATH: `${nodeBin}${delimiter}${process.env.PATH ?? ''}`, npm_config_yes: 'true' },
    },
  );
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout);
}

it(
  'tools/list through the Inspector CLI lists the 14 tools with their schemas',
  async () => {
    const dataDir = tempDir('spm-inspector-');
    const listed = (await inspect(dataDir, '--method', 'tools/list')) as {
      tools: Array<{ name: string; description: string; inputSchema: { type: string } }>;
    };
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of listed.tools) {
      expect(tool.description, tool.name).not.toBe('');
      expect(tool.inputSchema.type, tool.name).toBe('object');
    }
    // The server ran on the data dir given with -e (a fresh one, seeded with the demo workspace).
    expect(existsSync(join(dataDir, 'social-publisher.sqlite'))).toBe(true);
  },
  NPX_TIMEOUT_MS + 10_000,
);

it(
  'tools/call list_brands through the Inspector CLI returns the demo brands',
  async () => {
    const dataDir = tempDir('spm-inspector-');
    const called = (await inspect(dataDir, '--method', 'tools/call', '--tool-name', 'list_brands')) as {
      isError?: boolean;
      content: Array<{ type: string; text: string }>;
      structuredContent: { status: string; data: Array<{ id: number; title: string }> };
    };
    expect(called.isError).toBeFalsy();
    expect(called.structuredContent.status).toBe('success');
    expect(called.structuredContent.data.map((brand) => [brand.id, brand.title])).toEqual([
      [1, 'Northwind Coffee'],
      [2, 'Kite & Key Studio'],
    ]);
    expect(called.content[0]?.text).toContain('Northwind Coffee');
    expect(existsSync(join(dataDir, 'social-publisher.sqlite'))).toBe(true);
  },
  NPX_TIMEOUT_MS + 10_000,
);
