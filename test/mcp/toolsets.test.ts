/**
 * Tool selection as a user sets it: SOCIAL_PUBLISHER_READ_ONLY and SOCIAL_PUBLISHER_TOOLSETS on the built
 * program over stdio (as a bundle's settings pass them), and on `serve`'s /mcp, where REST is unaffected.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/serve.js';
import { TOOLS } from '../../src/mcp/registry.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { serveOnLoopback } from '../support/two-users.js';
import { childEnv, cleanup, connectStdio, requireBuild, runMain, tempDir } from './cli-harness.js';

const ALL = TOOLS.map((tool) => tool.name);
const READ_ONLY = TOOLS.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name);

beforeAll(() => requireBuild());

let rt: TestRuntime | undefined;
let server: RunningServer | undefined;

afterEach(async () => {
  await cleanup();
  await server?.close();
  server = undefined;
  rt?.close();
  rt = undefined;
});

async function stdioWith(settings: Record<string, string>) {
  const session = await connectStdio(childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir(), ...settings }));
  const { tools } = await session.client.listTools();
  return { session, names: tools.map((tool) => tool.name) };
}

describe('tool selection over stdio', () => {
  it('offers every tool by default, and with the unset settings of a bundle host ("false", "" or the placeholder)', async () => {
    expect((await stdioWith({})).names).toEqual(ALL);
    const unset = { SOCIAL_PUBLISHER_READ_ONLY: 'false', SOCIAL_PUBLISHER_TOOLSETS: '' };
    expect((await stdioWith(unset)).names).toEqual(ALL);
    // A host that does not expand an unset setting passes its placeholder through.
    const placeholders = {
      SOCIAL_PUBLISHER_READ_ONLY: ['$', '{user_config.read_only}'].join(''),
      SOCIAL_PUBLISHER_TOOLSETS: ['$', '{user_config.toolsets}'].join(''),
    };
    expect((await stdioWith(placeholders)).names).toEqual(ALL);
  });

  it('read-only: lists only the tools whose readOnlyHint is true, refuses the others by name, and says so', async () => {
    const { session, names } = await stdioWith({ SOCIAL_PUBLISHER_READ_ONLY: '1' });
    expect(READ_ONLY).toEqual(
      expect.arrayContaining(['list_brands', 'list_posts', 'get_post', 'get_queue', 'get_channel']),
    );
    expect(names).toEqual(READ_ONLY);
    expect(names).not.toContain('create_post');

    const brands = await session.call('list_brands');
    expect(brands.isError ?? false).toBe(false);
    await expect(
      session.call('create_post', { brandId: 1, collectionId: 1, publishMode: 'DRAFT', caption: 'x' }),
    ).rejects.toThrow(
      /create_post is not available: this server is read-only \(SOCIAL_PUBLISHER_READ_ONLY=1\)/,
    );
    // Nothing was created by the refused call.
    const posts = await session.call('list_posts', { brandId: 1 });
    expect((posts.structuredContent as { pagination: { total: number } }).pagination.total).toBe(0);

    expect(session.client.getInstructions()).toMatch(/read-only/);
    // The prompts end in create_post: none are offered.
    expect((await session.client.listPrompts()).prompts).toEqual([]);
  });

  it('toolsets: lists only the tools of the chosen toolsets, and names the toolset of a refused one', async () => {
    const { session, names } = await stdioWith({ SOCIAL_PUBLISHER_TOOLSETS: 'workspace, lifecycle' });
    const chosen = TOOLS.filter((tool) => tool.toolset === 'workspace' || tool.toolset === 'lifecycle');
    expect(names).toEqual(chosen.map((tool) => tool.name));
    expect(names).toEqual(expect.arrayContaining(['list_brands', 'get_channel', 'update_post', 'get_queue']));
    expect(names).not.toContain('upload_media');
    expect(names).not.toContain('create_post');
    await expect(
      session.call('upload_media', { brandId: 1, url: 'https://example.com/a.png' }),
    ).rejects.toThrow(
      /upload_media is not available: it belongs to the media toolset, and this server offers workspace, lifecycle \(SOCIAL_PUBLISHER_TOOLSETS\)/,
    );
    expect(session.client.getInstructions()).toMatch(/only the workspace, lifecycle toolsets/);
  });

  it('read-only and toolsets together: only the read-only tools of those toolsets', async () => {
    const { names } = await stdioWith({
      SOCIAL_PUBLISHER_READ_ONLY: 'true',
      SOCIAL_PUBLISHER_TOOLSETS: 'lifecycle',
    });
    expect(names).toEqual(['list_posts', 'get_post', 'get_queue']);
  });

  it('posting alone still offers the prompts, which end in create_post', async () => {
    const { session, names } = await stdioWith({ SOCIAL_PUBLISHER_TOOLSETS: 'posting' });
    expect(names).toEqual(['create_post']);
    expect((await session.client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(
      expect.arrayContaining(['draft_post']),
    );
  });

  it('refuses an unknown toolset or read-only value at start, naming the valid ones', async () => {
    const env = childEnv({
      SOCIAL_PUBLISHER_DATA_DIR: tempDir(),
      SOCIAL_PUBLISHER_TOOLSETS: 'workspace,postng',
    });
    const bad = await runMain([], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain(
      'SOCIAL_PUBLISHER_TOOLSETS: unknown toolset "postng"; the toolsets are workspace, media, posting, lifecycle, connections (or all).',
    );
    const readOnly = await runMain([], {
      ...env,
      SOCIAL_PUBLISHER_TOOLSETS: '',
      SOCIAL_PUBLISHER_READ_ONLY: 'maybe',
    });
    expect(readOnly.code).not.toBe(0);
    expect(readOnly.stderr).toContain(
      'SOCIAL_PUBLISHER_READ_ONLY must be 1 or 0 (or true or false), not "maybe".',
    );
  });
});

describe('tool selection on serve', () => {
  it("limits /mcp's tools and leaves the REST API whole", async () => {
    rt = await openTestRuntime();
    await rt.importWorkspace({
      users: [{ name: 'Ada', timezone: 'UTC', apiKey: 'ada-key-0123456789', brands: ['Northwind Coffee'] }],
    });
    ({ server } = await serveOnLoopback(rt, { tools: { readOnly: true } }));
    const headers = { authorization: 'Bearer ada-key-0123456789' };
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(READ_ONLY);
    } finally {
      await client.close();
    }
    const getJson = async (path: string) =>
      (await (await fetch(`${server!.url}/v1${path}`, { headers })).json()) as {
        data: Array<{ id: number }>;
      };
    const brandId = (await getJson('/brands')).data[0]!.id;
    const collectionId = (await getJson(`/brands/${brandId}/collections`)).data[0]!.id;
    const created = await fetch(`${server.url}/v1/brands/${brandId}/collections/${collectionId}/posts`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ publishMode: 'DRAFT', caption: 'Through REST' }),
    });
    expect(created.status).toBe(201);
  });
});
