/**
 * The per-user cap on open MCP sessions (default 100), on a real loopback listener with the SDK's own
 * client: at the cap a new `initialize` gets 429 with a JSON-RPC error that says how many sessions the
 * user has, the limit, and how sessions end; other users are not affected; every way a session ends
 * (DELETE, which closes its transport; the idle sweep; an initialize that failed) frees its place.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HttpApp, RunningServer } from '../../src/http/serve.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { serveOnLoopback } from '../support/two-users.js';

const KEY_A = 'cap-user-a-key-0123456789';
const KEY_B = 'cap-user-b-key-0123456789';

let rt: TestRuntime;
let http: HttpApp;
let server: RunningServer;
const clients: Client[] = [];

async function start(options: { maxMcpSessionsPerUser?: number; idleTimeoutMs?: number } = {}) {
  ({ http, server } = await serveOnLoopback(rt, options));
}

async function connect(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'cap-test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A bare `initialize` POST: the status, the body, and the session id when one was opened. */
async function initialize(apiKey: string, accept = 'application/json, text/event-stream') {
  const response = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  const text = await response.text();
  return { status: response.status, text, sessionId: response.headers.get('mcp-session-id') };
}

const capMessage = (open: number, limit: number, idle: string) =>
  `Too many MCP sessions: this user has ${open} open MCP sessions, and the limit is ${limit} per user. ` +
  `Idle sessions close after ${idle}; to end one now, send DELETE /mcp with its mcp-session-id header.`;

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeEach(async () => {
  rt = await openTestRuntime();
  await rt.importWorkspace({
    brands: [],
    users: [
      { name: 'Ada', timezone: 'UTC', apiKey: KEY_A, brands: ['Northwind Coffee'] },
      { name: 'Bo', timezone: 'UTC', apiKey: KEY_B, brands: ['Kite & Key Studio'] },
    ],
  });
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await server?.close();
  await rt.close();
});

describe('open MCP sessions per user', () => {
  it('refuses a new initialize at the cap with 429 and a message saying why and what to do', async () => {
    await start({ maxMcpSessionsPerUser: 2 });
    const [first, second] = [await connect(KEY_A), await connect(KEY_A)];

    const refused = await initialize(KEY_A);
    expect(refused.status).toBe(429);
    expect(refused.sessionId).toBeNull();
    expect(JSON.parse(refused.text)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: capMessage(2, 2, '30 minutes') },
      id: null,
    });
    // The SDK's client reports it with the message.
    await expect(connect(KEY_A)).rejects.toThrow(/this user has 2 open MCP sessions, and the limit is 2/);

    // Another user has places of their own; the sessions already open go on working.
    await connect(KEY_B);
    expect((await first.callTool({ name: 'get_profile', arguments: {} })).isError).toBeFalsy();
    expect((await second.callTool({ name: 'get_profile', arguments: {} })).isError).toBeFalsy();
    expect(http.sessions.size).toBe(3);
  });

  it('frees a place when the client ends its session with DELETE /mcp', async () => {
    await start({ maxMcpSessionsPerUser: 1 });
    const client = await connect(KEY_A);
    expect((await initialize(KEY_A)).status).toBe(429);
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await client.close();
    const again = await connect(KEY_A);
    expect((await again.callTool({ name: 'list_brands', arguments: {} })).isError).toBeFalsy();
  });

  it('frees the places of sessions the idle sweep closed, and names that timeout', async () => {
    await start({ maxMcpSessionsPerUser: 1, idleTimeoutMs: 300 });
    await connect(KEY_A);
    expect(JSON.parse((await initialize(KEY_A)).text).error.message).toBe(capMessage(1, 1, '300 ms'));
    await waitFor(() => http.sessions.size === 0);
    expect((await initialize(KEY_A)).status).toBe(200);
  });

  it('does not count an initialize the transport refused (no session was opened)', async () => {
    await start({ maxMcpSessionsPerUser: 1 });
    for (let i = 0; i < 3; i++) {
      const refused = await initialize(KEY_A, 'text/plain'); // must accept JSON and SSE: 406
      expect(refused.status).toBe(406);
      expect(refused.sessionId).toBeNull();
    }
    await connect(KEY_A);
  });

  it('allows 100 sessions per user by default, not 101', async () => {
    await start();
    const opened = await Promise.all(Array.from({ length: 100 }, () => initialize(KEY_A)));
    expect(opened.map((answer) => answer.status)).toEqual(Array(100).fill(200));
    expect(new Set(opened.map((answer) => answer.sessionId)).size).toBe(100);
    const refused = await initialize(KEY_A);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.text).error.message).toBe(capMessage(100, 100, '30 minutes'));
    expect((await initialize(KEY_B)).status).toBe(200);
  });
});
