/**
 * The stdio handshake (src/mcp/handshake.ts) answers `initialize` before the server is loaded. Shown
 * here: its answer is the SDK server's own, for every protocol version and both modes; the built
 * program sends exactly one reply to `initialize`, whatever arrives with it or around it; the server
 * still learns the client's capabilities (it asks an elicitation-capable client to confirm); anything
 * other than a plain `initialize` first is left to the server.
 */
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  ElicitRequestSchema,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  initializeResult,
  LATEST_PROTOCOL_VERSION as OUR_LATEST,
  SUPPORTED_PROTOCOL_VERSIONS as OURS,
  SERVER_NAME,
} from '../../src/mcp/handshake.js';
import { PublishingEventFeed } from '../../src/mcp/logging.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { openTestRuntime } from '../support/local.js';
import {
  CHILD_TIMEOUT_MS,
  childEnv,
  cleanup,
  MAIN_JS,
  requireBuild,
  spawnMain,
  tempDir,
} from './cli-harness.js';

const VERSION = '9.9.9-test';

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

/** The SDK server's reply to `message`, sent over an in-memory transport. */
async function sdkReply(message: JSONRPCMessage, logging: boolean): Promise<JSONRPCMessage> {
  const rt = openTestRuntime();
  const server = createMcpServer(rt.service, {
    name: SERVER_NAME,
    version: VERSION,
    log: () => {},
    ...(logging ? { publishingLog: { feed: new PublishingEventFeed(), canSeeBrand: () => true } } : {}),
  });
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  const reply = new Promise<JSONRPCMessage>((resolve) => {
    ours.onmessage = resolve;
  });
  await server.connect(theirs);
  await ours.start();
  await ours.send(message);
  try {
    return await reply;
  } finally {
    await server.close();
    rt.close();
  }
}

describe('the handshake answers as the SDK server does', () => {
  it('knows the SDK’s protocol versions', () => {
    expect(OURS).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
    expect(OUR_LATEST).toBe(LATEST_PROTOCOL_VERSION);
  });

  for (const logging of [true, false]) {
    it(`gives the server's initialize result for each version (${logging ? 'local, with logging' : 'remote, no logging'})`, async () => {
      for (const version of [...SUPPORTED_PROTOCOL_VERSIONS, '2099-01-01', '']) {
        const reply = await sdkReply(initialize(7, version), logging);
        expect(reply).toEqual({
          jsonrpc: '2.0',
          id: 7,
          result: initializeResult(version, { version: VERSION, logging, tools: { readOnly: false } }),
        });
      }
    });
  }
});

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
        result: initializeResult('2025-06-18', {
          version: expect.any(String) as never,
          logging: true,
          tools: { readOnly: false },
        }),
      },
    ]);
    expect(out.lines[0]?.id).toBe(1);
    expect((byId(out.lines, 2)[0]!.result as { tools: unknown[] }).tools.length).toBe(13);
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

  it('leaves a first message other than a plain initialize to the server, which answers it once', async () => {
    const { child, out } = start();
    // A ping first; then an initialize whose capabilities the handshake does not judge (sampling: 5).
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

  it('reports a start-up failure found while loading on stderr, and exits 1, after answering initialize', async () => {
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
    expect(out.lines.map((l) => l.id)).toEqual([1]);
    expect(stderr).toContain('SOCIAL_PUBLISHER_API_KEY matches no user of this store');
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
