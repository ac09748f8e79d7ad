/**
 * Request bodies at /mcp are bounded before they are read (4 MiB): a declared Content-Length over it is
 * refused at once, without waiting for the body; a chunked body without a length is read only until it
 * passes the limit. Either way the answer is 413 with a JSON-RPC error naming the limit. A real loopback
 * listener, raw node:http requests (a client that streams without holding the body) and the SDK's client
 * for a normal session. The server's memory during such a body: mcp-body-memory.test.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/serve.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { serveOnLoopback } from '../support/two-users.js';
import { INITIALIZE, MiB, postToMcp, type StreamedPost } from './streamed-post.js';

const KEY = 'body-limit-key-0123456789';
const LIMIT = 4 * MiB;
const TOO_LARGE = {
  jsonrpc: '2.0',
  error: {
    code: -32000,
    message: 'Payload Too Large: the request body may not be greater than 4 MiB (4194304 bytes).',
  },
  id: null,
};

let rt: TestRuntime;
let server: RunningServer;
const clients: Client[] = [];

beforeEach(async () => {
  rt = await openTestRuntime();
  await rt.importWorkspace({
    brands: [],
    users: [{ name: 'Ada', timezone: 'UTC', apiKey: KEY, brands: ['Northwind Coffee'] }],
  });
  ({ server } = await serveOnLoopback(rt));
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await server.close();
  await rt.close();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'body-limit-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${KEY}` } },
    }),
  );
  clients.push(client);
  return client;
}

const post = (options: StreamedPost) => postToMcp(server.url, KEY, options);

describe('request bodies at /mcp', () => {
  it('refuses a declared Content-Length over 4 MiB at once, without waiting for the body', async () => {
    const started = performance.now();
    const answer = await post({ head: '{', size: 200 * MiB, contentLength: 200 * MiB, stall: true });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(answer.status).toBe(413);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(answer.body)).toEqual(TOO_LARGE);
  });

  it('refuses a body sent chunked, without a length, once it passes 4 MiB: it is not read to its end', async () => {
    const json = JSON.stringify(INITIALIZE);
    const answer = await post({ head: json.slice(0, -1), size: 50 * MiB, tail: '}' });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual(TOO_LARGE);
    // The server stopped reading soon after the limit: the client got its answer long before 50 MB.
    expect(answer.sentBeforeAnswer).toBeLessThan(20 * MiB);
  });

  it('takes an initialize padded to exactly 4 MiB, and refuses one byte more', async () => {
    const json = JSON.stringify(INITIALIZE);
    const exact = await post({ head: json, size: LIMIT - json.length });
    expect(exact.status).toBe(200);
    expect(exact.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
    const over = await post({ head: json, size: LIMIT - json.length + 1 });
    expect(over.status).toBe(413);
    expect(JSON.parse(over.body)).toEqual(TOO_LARGE);
    const declared = await post({ head: json, size: LIMIT - json.length + 1, contentLength: LIMIT + 1 });
    expect(declared.status).toBe(413);
  });

  it('bounds the bodies of a session too, and the session goes on working', async () => {
    const client = await connect();
    const transport = client.transport as StreamableHTTPClientTransport;
    const answer = await post({
      head: '{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"x":"',
      size: 10 * MiB,
      headers: { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual(TOO_LARGE);
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain('list_brands');
  });

  it('still opens a normal session and answers its calls', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'list_brands', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { data: Array<{ title: string }> }).data[0]?.title).toBe(
      'Northwind Coffee',
    );
  });
});
