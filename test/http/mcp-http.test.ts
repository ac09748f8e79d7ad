/**
 * MCP over Streamable HTTP on a real loopback listener, with the SDK's own client transport: sessions
 * per user, keys checked on every request, sessions closed when idle, Host checks, graceful close.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/serve.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { KEY_A, KEY_B, serveOnLoopback, twoUsers } from '../support/two-users.js';

let rt: TestRuntime;
let server: RunningServer;
let sessionsSize: () => number;
const clients: Client[] = [];

async function start(options: { idleTimeoutMs?: number } = {}) {
  const started = await serveOnLoopback(rt, options);
  sessionsSize = () => started.http.sessions.size;
  server = started.server;
}

async function connect(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function brandTitles(result: Awaited<ReturnType<Client['callTool']>>): string[] {
  return (result.structuredContent as { data: Array<{ title: string }> }).data.map((brand) => brand.title);
}

beforeEach(async () => {
  rt = await openTestRuntime();
  await rt.importWorkspace(twoUsers());
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await server?.close();
  await rt.close();
});

describe('MCP over Streamable HTTP', () => {
  it('serves two users at once, each in their own session, each seeing only their brands', async () => {
    await start();
    const [a, b] = await Promise.all([connect(KEY_A), connect(KEY_B)]);
    const [brandsA, brandsB, profileA, profileB] = await Promise.all([
      a.callTool({ name: 'list_brands', arguments: {} }),
      b.callTool({ name: 'list_brands', arguments: {} }),
      a.callTool({ name: 'get_profile', arguments: {} }),
      b.callTool({ name: 'get_profile', arguments: {} }),
    ]);
    expect(brandTitles(brandsA)).toEqual(['Northwind Coffee', 'Kite & Key Studio']);
    expect(brandTitles(brandsB)).toEqual(['Harbor Bakery']);
    expect((profileA.structuredContent as { data: { name: string } }).data.name).toBe('Ada');
    expect((profileB.structuredContent as { data: { name: string } }).data.name).toBe('Bo');
    expect(sessionsSize()).toBe(2);

    const created = await b.callTool({
      name: 'create_post',
      arguments: { brandId: 1, collectionId: 1, publishMode: 'DRAFT', caption: 'Not my brand' },
    });
    expect(created.isError).toBe(true);
    expect(created.structuredContent).toEqual({
      status: 'error',
      message: 'Brand not found.',
      errors: { brand: 'Brand not found.' },
    });
  });

  it('refuses a request without a valid key with the 401 body', async () => {
    await start();
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(response.status).toBe(401);
    expect(await response.text()).toBe(
      '{"status":"error","message":"Unauthenticated.","errors":{"authorization":"A valid API key is required."}}',
    );
    await expect(connect('not-a-key-0123456789')).rejects.toThrow();
  });

  it("does not let one user's key use another user's session", async () => {
    await start();
    const a = await connect(KEY_A);
    const sessionId = (a.transport as StreamableHTTPClientTransport).sessionId!;
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${KEY_B}`,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'list_brands', arguments: {} },
      }),
    });
    expect(response.status).toBe(404);
    expect(JSON.stringify(await response.json())).not.toContain('Northwind');
  });

  it('closes sessions that stay idle', async () => {
    await start({ idleTimeoutMs: 200 });
    await connect(KEY_A);
    expect(sessionsSize()).toBe(1);
    for (let i = 0; i < 50 && sessionsSize() > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sessionsSize()).toBe(0);
  });

  it('refuses a Host or Origin that is not loopback (DNS rebinding)', async () => {
    await start();
    const { port } = new URL(server.url);
    const { request } = await import('node:http');
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method: 'POST',
            headers: { authorization: `Bearer ${KEY_A}`, ...headers },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
    expect(await status({ host: 'evil.example' })).toBe(403);
    expect(await status({ host: `127.0.0.1:${port}`, origin: 'http://evil.example' })).toBe(403);
    expect(await status({ host: `localhost:${port}`, origin: `http://localhost:${port}` })).not.toBe(403);
  });

  it('finishes a call under way when it is closed', async () => {
    await start();
    const a = await connect(KEY_A);
    // Closed once the call has reached the store: a fixed wait could close before it even connects.
    const store = rt.runtime.store;
    const listCollections = store.listCollections.bind(store);
    const reached = new Promise<void>((resolve) => {
      store.listCollections = (...args) => {
        resolve();
        return listCollections(...args);
      };
    });
    const call = a.callTool({ name: 'list_collections', arguments: { brandId: 1, per_page: 100 } });
    await reached;
    const closing = server.close();
    const result = await call;
    expect((result.structuredContent as { data: unknown[] }).data).toHaveLength(4);
    await closing;
  });
});
