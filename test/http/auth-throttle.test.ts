/**
 * Failed API keys throttled per client address, on a real loopback listener, for /v1 and /mcp together.
 * Clients bind their sockets to different loopback addresses (127.0.0.2, 127.0.0.3), so the server sees
 * different client addresses. 20 wrong keys within 60 s are answered 401; the 21st request is 429 with
 * Retry-After and the spec-shaped body, while another address is unaffected. While blocked, a key is
 * not even looked up, unless it already succeeded from that address; the window passes and the address
 * is answered again.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, request, fetch as undiciFetch } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuthThrottleOptions } from '../../src/http/auth-throttle.js';
import type { RunningServer } from '../../src/http/serve.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { serveOnLoopback } from '../support/two-users.js';

const KEY = 'throttle-user-key-0123456789';
const WRONG = 'this-key-matches-nobody-0000';
const UNAUTHENTICATED =
  '{"status":"error","message":"Unauthenticated.","errors":{"authorization":"A valid API key is required."}}';
const tooManyAttempts = (seconds: number) =>
  JSON.stringify({
    status: 'error',
    message: 'Too Many Attempts.',
    errors: {
      authorization: `Too many failed API key attempts from this address; try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
    },
  });

let rt: TestRuntime;
let server: RunningServer;
const agents = new Map<string, Agent>();
const clients: Client[] = [];

async function start(authThrottle?: AuthThrottleOptions) {
  ({ server } = await serveOnLoopback(rt, authThrottle ? { authThrottle } : {}));
}

/** An HTTP client whose connections come from `localAddress`. */
function from(localAddress: string): Agent {
  let agent = agents.get(localAddress);
  if (!agent) {
    agent = new Agent({ localAddress });
    agents.set(localAddress, agent);
  }
  return agent;
}

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/** GET /v1/me (or a POST to /mcp) from `localAddress` with `key` (null: no Authorization header). */
async function ask(
  localAddress: string,
  key: string | null,
  path: '/v1/me' | '/mcp' = '/v1/me',
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const mcp = path === '/mcp';
  const response = await request(`${server.url}${path}`, {
    dispatcher: from(localAddress),
    method: mcp ? 'POST' : 'GET',
    headers: mcp
      ? { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
      : headers,
    ...(mcp ? { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) } : {}),
  });
  const retryAfter = response.headers['retry-after'];
  return {
    status: response.statusCode,
    retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
    body: await response.body.text(),
  };
}

async function failTimes(localAddress: string, times: number, path: '/v1/me' | '/mcp' = '/v1/me') {
  for (let i = 0; i < times; i++) {
    const answer = await ask(localAddress, WRONG, path);
    expect({ attempt: i + 1, status: answer.status, body: answer.body }).toEqual({
      attempt: i + 1,
      status: 401,
      body: UNAUTHENTICATED,
    });
  }
}

/** The answer is the 429 of a blocked address, with a Retry-After of 1..`windowSeconds`. */
function expectBlocked(answer: Answer, windowSeconds = 60): number {
  expect(answer.status).toBe(429);
  const seconds = Number(answer.retryAfter);
  expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= windowSeconds, answer.retryAfter).toBe(true);
  expect(answer.body).toBe(tooManyAttempts(seconds));
  return seconds;
}

beforeEach(async () => {
  rt = await openTestRuntime();
  await rt.importWorkspace({
    brands: [],
    users: [{ name: 'Ada', timezone: 'UTC', apiKey: KEY, brands: ['Northwind Coffee'] }],
  });
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const agent of agents.values()) await agent.close();
  agents.clear();
  await server?.close();
  await rt.close();
});

describe('failed API keys, per client address', () => {
  it('answers 20 wrong keys with 401, the 21st request with 429 and Retry-After; another address is unaffected', async () => {
    await start();
    await failTimes('127.0.0.2', 20);
    const seconds = expectBlocked(await ask('127.0.0.2', WRONG));
    expect(seconds).toBeGreaterThanOrEqual(59);
    // Blocked: a valid key that never succeeded from this address is not even looked up.
    expectBlocked(await ask('127.0.0.2', KEY));
    expectBlocked(await ask('127.0.0.2', null));
    expectBlocked(await ask('127.0.0.2', KEY, '/mcp'));

    const other = await ask('127.0.0.3', WRONG);
    expect({ status: other.status, body: other.body }).toEqual({ status: 401, body: UNAUTHENTICATED });
    expect((await ask('127.0.0.3', KEY)).status).toBe(200);
  });

  it('counts /v1 and /mcp together, and answers /mcp with the same 429', async () => {
    await start();
    await failTimes('127.0.0.2', 10, '/v1/me');
    await failTimes('127.0.0.2', 10, '/mcp');
    expectBlocked(await ask('127.0.0.2', WRONG, '/mcp'));
    expectBlocked(await ask('127.0.0.2', WRONG, '/v1/me'));
  });

  it('lets a key that already succeeded from the address through while it is blocked; its MCP session goes on', async () => {
    await start();
    const agent = from('127.0.0.2');
    const client = new Client({ name: 'throttle-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${KEY}` } },
        fetch: (url, init) =>
          undiciFetch(url, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>,
      }),
    );
    clients.push(client);
    await failTimes('127.0.0.2', 20);
    expectBlocked(await ask('127.0.0.2', WRONG));
    expect((await ask('127.0.0.2', KEY)).status).toBe(200);
    const profile = await client.callTool({ name: 'get_profile', arguments: {} });
    expect((profile.structuredContent as { data: { name: string } }).data.name).toBe('Ada');
    // Still blocked for every other key.
    expectBlocked(await ask('127.0.0.2', `${KEY}x`));
  });

  it('does not reset the count on a success', async () => {
    await start();
    await failTimes('127.0.0.2', 10);
    expect((await ask('127.0.0.2', KEY)).status).toBe(200);
    await failTimes('127.0.0.2', 10);
    expectBlocked(await ask('127.0.0.2', WRONG));
  });

  it('does not count requests that send no key (no key is looked up for them)', async () => {
    await start();
    for (let i = 0; i < 30; i++) {
      const answer = await ask('127.0.0.2', null);
      expect(answer.status).toBe(401);
    }
    await failTimes('127.0.0.2', 20);
    expectBlocked(await ask('127.0.0.2', WRONG));
  });

  it('answers the address again once the window has passed', async () => {
    await start({ windowMs: 1000 });
    await failTimes('127.0.0.2', 20);
    expectBlocked(await ask('127.0.0.2', KEY), 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await ask('127.0.0.2', WRONG)).status).toBe(401);
    expect((await ask('127.0.0.2', KEY)).status).toBe(200);
  });
});
