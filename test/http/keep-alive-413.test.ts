/**
 * A body too large for the REST API or /mcp is answered 413 with `Connection: close`, so that a
 * keep-alive client opens a new connection for its next request. Before, the answer said keep-alive and
 * the server closed the socket half a second later without answering the next request: the client's
 * next call failed with "other side closed". A real keep-alive client (an undici Pool of one
 * connection) against a real loopback listener.
 */
import { Pool } from 'undici';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/serve.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { serveOnLoopback } from '../support/two-users.js';

const KEY = 'keep-alive-key-0123456789';

let rt: TestRuntime;
let server: RunningServer;
let pool: Pool;

beforeEach(async () => {
  rt = await openTestRuntime();
  await rt.importWorkspace({
    brands: [],
    users: [{ name: 'Ada', timezone: 'UTC', apiKey: KEY, brands: ['Northwind Coffee'] }],
  });
  ({ server } = await serveOnLoopback(rt));
  // One connection, kept alive: every request goes on it unless the server says to close it.
  pool = new Pool(server.url, { connections: 1, pipelining: 1 });
});

afterEach(async () => {
  await pool.close();
  await server.close();
  await rt.close();
});

const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

async function send(method: 'GET' | 'POST', path: string, body?: string) {
  const response = await pool.request({ method, path, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.body.text();
  return { status: response.statusCode, connection: response.headers.connection, text };
}

/** Valid JSON over the limit, so that only the size is wrong. */
const oversized = (bytes: number) => JSON.stringify({ caption: 'x'.repeat(bytes) });

it.each([
  ['the REST API', '/v1/brands/1/collections/1/posts', oversized(2 * 1024 * 1024)],
  ['/mcp', '/mcp', oversized(5 * 1024 * 1024)],
])(
  'answers 413 on %s with Connection: close, and the next request on the client succeeds',
  async (_, path, body) => {
    const first = await send('GET', '/v1/me');
    expect(first.status).toBe(200);
    expect(first.connection).toBe('keep-alive');

    const refused = await send('POST', path, body);
    expect(refused.status).toBe(413);
    expect(refused.connection).toBe('close');
    // At once, as a client with more to send does: before, this went on the socket the server was closing.

    for (let i = 0; i < 3; i++) {
      const next = await send('GET', '/v1/me');
      expect(next.status).toBe(200);
    }
  },
);
