/**
 * The built program's handshake over stdio: loaded, then connected (no answer before the server is
 * loaded). Shown here: one reply per request, whatever arrives with `initialize` or around it; the
 * client's capabilities reach the server (it asks an elicitation-capable client to confirm); a start-up
 * failure answers `initialize` with its reason instead of a result, as an SDK client sees it.
 */
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INSTRUCTIONS, SERVER_NAME, SERVER_TITLE } from '../../src/mcp/handshake.js';
import { SERVER_ICONS } from '../../src/mcp/icons.js';
import { STARTUP_FAILED } from '../../src/mcp/startup-failure.js';
import {
  CHILD_TIMEOUT_MS,
  childEnv,
  cleanup,
  MAIN_JS,
  requireBuild,
  spawnMain,
  tempDir,
} from './cli-harness.js';

function initialize(id: number | string, protocolVersion: string, extra: Record<string, unknown> = {}) {
  return {
    jsonrpc: '2.0' as const,
    id,
    method: 'initialize',
    params: {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'handshake-test', version: '1' },
      ...extra,
    },
  };
}

/** Every line the child wrote to stdout, parsed, once `count` have arrived. */
function collectLines(child: ChildProcess) {
  const lines: Array<Record<string, unknown>> = [];
  let buffered = '';
  const waiters: Array<() => void> = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      lines.push(JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
    }
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    lines,
    async until(predicate: () => boolean): Promise<void> {
      const deadline = Date.now() + CHILD_TIMEOUT_MS;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out; stdout so far: ${JSON.stringify(lines)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
  };
}

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const byId = (lines: Array<Record<string, unknown>>, id: unknown) => lines.filter((l) => l.id === id);

describe('the built program over stdio', () => {
  beforeAll(requireBuild);
  afterEach(cleanup);

  function start() {
    const child = spawnMain([], childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir() }));
    return { child, out: collectLines(child) };
  }

  it('answers initialize once, and serves what was sent with it after loading', async () => {
    const { child, out } = start();
    // initialize, initialized and two requests in one write, as a pipelining client may send them.
    child.stdin!.write(
      line(initialize(1, '2025-06-18')) +
        line({ jsonrpc: '2.0', method: 'notifications/initialized' }) +
        line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) +
        line({ jsonrpc: '2.0', id: 3, method: 'ping' }),
    );
    await out.until(() => byId(out.lines, 3).length > 0 && byId(out.lines, 2).length > 0);
    child.stdin!.write(line({ jsonrpc: '2.0', id: 4, method: 'ping' }));
    await out.until(() => byId(out.lines, 4).length > 0);
    expect(byId(out.lines, 1)).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: {
            logging: {},
            completions: {},
            prompts: { listChanged: false },
            resources: { listChanged: false, subscribe: true },
            tools: { listChanged: false },
          },
          serverInfo: {
            name: SERVER_NAME,
            version: expect.any(String),
            title: SERVER_TITLE,
            icons: SERVER_ICONS,
          },
          instructions: INSTRUCTIONS,
        },
      },
    ]);
    expect(out.lines[0]?.id).toBe(1);
    expect((byId(out.lines, 2)[0]!.result as { tools: unknown[] }).tools.length).toBe(14);
    expect(byId(out.lines, 3)).toEqual([{ jsonrpc: '2.0', id: 3, result: {} }]);
    expect(out.lines.length).toBe(4);
  });

  it('reads an initialize split across writes', async () => {
    const { child, out } = start();
    const text = line(initialize('first', '2024-11-05'));
    child.stdin!.write(text.slice(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 20));
    child.stdin!.write(text.slice(20) + line({ jsonrpc: '2.0', id: 'second', method: 'ping' }));
    await out.until(() => byId(out.lines, 'second').length > 0);
    expect(byId(out.lines, 'first')).toHaveLength(1);
    expect((byId(out.lines, 'first')[0]!.result as { protocolVersion: string }).protocolVersion).toBe(
      '2024-11-05',
    );
  });

  it('answers a request sent before initialize, then initialize, once each', async () => {
    const { child, out } = start();
    child.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    await out.until(() => byId(out.lines, 1).length > 0);
    child.stdin!.write(line(initialize(2, '2025-06-18', { capabilities: { sampling: 5 } })));
    await out.until(() => byId(out.lines, 2).length > 0);
    child.stdin!.write(line({ jsonrpc: '2.0', id: 3, method: 'ping' }));
    await out.until(() => byId(out.lines, 3).length > 0);
    expect(byId(out.lines, 1)).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    expect(byId(out.lines, 2)).toHaveLength(1);
    expect(byId(out.lines, 2)[0]).toHaveProperty('error');
  });

  it('ignores a first line that is not JSON, and still serves the session', async () => {
    const { child, out } = start();
    child.stdin!.write('this is not json\n');
    child.stdin!.write(line(initialize(1, '2025-06-18')));
    await out.until(() => byId(out.lines, 1).length > 0);
    expect((byId(out.lines, 1)[0]!.result as { serverInfo: { name: string } }).serverInfo.name).toBe(
      SERVER_NAME,
    );
    expect(child.exitCode).toBeNull();
  });

  it('answers initialize with the reason a start failed, instead of a result; says it on stderr; exits 1', async () => {
    const child = spawnMain(
      [],
      childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir(), SOCIAL_PUBLISHER_API_KEY: 'not-a-key-of-this-store' }),
    );
    const out = collectLines(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin!.on('error', () => {});
    child.stdin!.write(line(initialize(1, '2025-06-18')));
    expect(await exited).toBe(1);
    expect(out.lines).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: STARTUP_FAILED,
          message: expect.stringMatching(
            /^social-publisher-mcp could not start: SOCIAL_PUBLISHER_API_KEY matches no user of this store/,
          ),
        },
      },
    ]);
    expect(stderr).toContain('SOCIAL_PUBLISHER_API_KEY matches no user of this store');
  });

  it('a start-up failure reaches an SDK client as the error of its connect, with the reason', async () => {
    const client = new Client({ name: 'handshake-test', version: '1' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN_JS],
      env: childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir(), SOCIAL_PUBLISHER_TOOLSETS: 'postings' }),
      stderr: 'ignore',
    });
    await expect(client.connect(transport, { timeout: CHILD_TIMEOUT_MS })).rejects.toThrow(
      'social-publisher-mcp could not start: SOCIAL_PUBLISHER_TOOLSETS: unknown toolset "postings"; the toolsets are workspace, media, posting, lifecycle, connections (or all).',
    );
    await client.close().catch(() => undefined);
  });

  it('exits when stdin closes before a whole line arrived', async () => {
    const { child } = start();
    child.stdin!.end('{"jsonrpc":"2.0"');
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
  });

  it('passes the client’s capabilities to the server: an elicitation-capable client is asked to confirm', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN_JS],
      env: childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir() }),
      stderr: 'ignore',
    });
    const client = new Client(
      { name: 'handshake-test', version: '1' },
      { capabilities: { elicitation: {} } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(transport, { timeout: CHILD_TIMEOUT_MS });
    try {
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args }, undefined, {
          timeout: CHILD_TIMEOUT_MS,
        })) as CallToolResult;
      const draft = await call('create_post', {
        brandId: 1,
        collectionId: 1,
        publishMode: 'DRAFT',
        caption: 'Handshake draft',
      });
      const { id } = (draft.structuredContent as { data: { id: number } }).data;
      const deleted = await call('delete_post', { brandId: 1, postId: id });
      expect(deleted.isError, JSON.stringify(deleted)).toBeFalsy();
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain(`Delete draft ${id}`);
    } finally {
      await client.close();
    }
  });
});
