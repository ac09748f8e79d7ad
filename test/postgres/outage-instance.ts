/**
 * One `serve` instance on a PostgreSQL database of a test's own server, for tests of an outage (the
 * server shut down or frozen, harness.ts): the HTTP app (`app.request`, no port), an MCP client on the
 * service of the same user, what the app's adapters logged, and what the process wrote to stderr (the
 * store's own log lines). A brand in UTC with one collection, and a user with an API key.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { vi } from 'vitest';
import { createHttpApp, listen, type RunningServer } from '../../src/http/serve.js';
import { openLocalRuntime } from '../../src/local-runtime.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { Clock } from '../../src/ports.js';
import type { Workspace } from '../../src/publish/connectors/schemas.js';
import { authenticate } from '../../src/service/acting-user.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { importWorkspace } from '../../src/service/workspace.js';
import type { Json } from '../rest/support.js';
import { makeTempDir } from '../support/temp-dirs.js';

export const KEY = 'outage-user-key-0000000001';

const WORKSPACE: Workspace = {
  brands: [
    {
      title: 'Outage Brand',
      timezone: 'UTC',
      channels: [{ name: 'Outage on Bluesky', type: 'Bluesky', status: 'ACTIVE' }],
      collections: [{ title: 'Everything', channels: ['Outage on Bluesky'] }],
    },
  ],
  users: [{ name: 'Outage User', timezone: 'UTC', apiKey: KEY, brands: ['Outage Brand'] }],
};

/** A REST answer: its status, headers and parsed JSON body (test/rest/support.ts `Json`). */
export interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

export interface OutageInstance {
  brandId: number;
  collectionId: number;
  service: LocalPublishingService;
  /** A REST request as the user, through `app.request`. */
  request(method: string, path: string, json?: unknown): Promise<Answer>;
  /** Starts a loopback listener for the app; its base URL (`http://127.0.0.1:port`). */
  listen(): Promise<string>;
  /** A tool call over MCP as the user. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** What the REST and MCP adapters logged. */
  logged: string[];
  /** The lines the process wrote to stderr since the instance opened (the store logs there). */
  stderr: string[];
  close(): Promise<void>;
}

/** `2026-11-21 12:00:05`: a time as the brand (UTC) reads it, to the second. */
export function utcText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

export async function openOutageInstance(
  url: string,
  options: { timeoutMs?: number; clock?: Clock } = {},
): Promise<OutageInstance> {
  const stderr: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array) => {
    const text = String(chunk);
    if (!text.startsWith('[social-publisher-mcp]')) return write(chunk);
    stderr.push(...text.trimEnd().split('\n'));
    return true;
  }) as typeof process.stderr.write);
  const database = { url, poolSize: 4, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) };
  const runtime = await openLocalRuntime(
    { dataDir: makeTempDir('spm-outage-'), demo: false, database },
    options.clock ? { clock: options.clock } : {},
  );
  const ids = await importWorkspace(runtime.store, runtime.clock, WORKSPACE);
  const logged: string[] = [];
  const log = (message: string, error: unknown) => logged.push(`${message}: ${String(error)}`);
  const http = createHttpApp({ runtime, version: 'test', loopbackOnly: true, log });
  const service = new LocalPublishingService(runtime, await authenticate(runtime.store, KEY));
  const server = createMcpServer(service, { name: 'social-publisher-mcp', version: 'test', log });
  const client = new Client({ name: 'outage-test', version: '1.0.0' });
  const listeners: RunningServer[] = [];
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    brandId: ids.brands[0]!.id,
    collectionId: ids.brands[0]!.collections[0]!.id,
    service,
    async request(method, path, json) {
      const response = await http.app.request(`http://localhost${path}`, {
        method,
        headers: {
          host: 'localhost',
          authorization: `Bearer ${KEY}`,
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
      return { status: response.status, headers: response.headers, body: await response.json() };
    },
    async listen() {
      const running = await listen(http, { host: '127.0.0.1', port: 0 });
      listeners.push(running);
      return running.url;
    },
    call: (name, args = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    logged,
    stderr,
    async close() {
      try {
        await client.close();
        await Promise.all(listeners.map((running) => running.close()));
        await http.sessions.closeAll();
        await runtime.close();
      } finally {
        spy.mockRestore();
      }
    },
  };
}

/** What `work` gave, and how long it took; `undefined` if it had not settled within `limitMs`. */
export async function timed<T>(
  work: Promise<T>,
  limitMs: number,
): Promise<{ value: T | undefined; ms: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), limitMs);
  });
  try {
    const value = await Promise.race([work, late]);
    return { value, ms: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}
