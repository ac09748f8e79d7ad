/**
 * MCP logging over Streamable HTTP on a real loopback listener: each session hears the publishing
 * events of its own user's brands only, at the level that session set.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp, listen, type RunningServer } from '../../src/http/serve.js';
import { PublishingEventFeed } from '../../src/mcp/logging.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import type { ImportedIds } from '../../src/service/workspace.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

const KEY_A = 'user-a-key-0123456789';
const KEY_B = 'user-b-key-0123456789';

type Message = LoggingMessageNotification['params'];

let rt: TestRuntime;
let ids: ImportedIds;
let feed: PublishingEventFeed;
let server: RunningServer;
let scheduler: Scheduler;
const clients: Client[] = [];

async function connect(apiKey: string): Promise<{ client: Client; messages: Message[] }> {
  const client = new Client({ name: 'test', version: '1' });
  const messages: Message[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    messages.push(notification.params);
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    }),
  );
  clients.push(client);
  return { client, messages };
}

const texts = (messages: Message[]) => messages.map((message) => message.data as string);

async function waitFor(messages: Message[], data: string, emit?: () => void): Promise<void> {
  for (let i = 0; i < 300 && !texts(messages).includes(data); i++) {
    emit?.();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(texts(messages)).toContain(data);
}

beforeEach(async () => {
  rt = await openTestRuntime();
  ids = await rt.importWorkspace({
    brands: [
      {
        title: 'Harbor Bakery',
        timezone: 'Europe/Paris',
        channels: [
          { name: 'Harbor on X', type: 'X/Twitter' },
          { name: 'Harbor on Pinterest', type: 'Pinterest', status: 'INACTIVE' },
        ],
        collections: [{ title: 'All', channels: ['Harbor on X', 'Harbor on Pinterest'] }],
      },
    ],
    users: [
      { name: 'Ada', timezone: 'UTC', apiKey: KEY_A, brands: ['Northwind Coffee', 'Kite & Key Studio'] },
      { name: 'Bo', timezone: 'UTC', apiKey: KEY_B, brands: ['Harbor Bakery'] },
    ],
  });
  feed = new PublishingEventFeed();
  const http = createHttpApp({
    runtime: rt.runtime,
    events: feed,
    version: 'test',
    loopbackOnly: true,
    log: (message, error) => {
      throw new Error(`unexpected server error: ${message}: ${String(error)}`);
    },
  });
  server = await listen(http, { host: '127.0.0.1', port: 0 });
  scheduler = new Scheduler({
    store: rt.runtime.store,
    clock: rt.clock,
    publisher: new SandboxPublisher(rt.runtime.store.sandbox, rt.clock),
    events: feed.emit,
  });
});

afterEach(async () => {
  await scheduler.stop();
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await server.close();
  await rt.close();
});

describe('MCP logging over Streamable HTTP', () => {
  it("sends each user's sessions their own brands' events only, at each session's level", async () => {
    const harbor = ids.brands[0]!;
    const [a, b] = await Promise.all([connect(KEY_A), connect(KEY_B)]);
    await a.client.setLoggingLevel('info');
    await b.client.setLoggingLevel('warning');
    // Events go out on each session's event stream, which the client opens on its own after
    // initializing: tell each brand until its session hears, then start afresh.
    const probe = (brandId: number) => () =>
      feed.emit({ level: 'warning', message: 'probe', brandId, postId: 0 });
    await waitFor(a.messages, 'probe', probe(1));
    await waitFor(b.messages, 'probe', probe(harbor.id));
    expect(feed.size).toBe(2);
    a.messages.length = 0;
    b.messages.length = 0;

    const post = async (apiKey: string, args: Record<string, unknown>) =>
      (await (await rt.serviceFor(apiKey)).createPost({ caption: 'Hello', publishMode: 'SCHEDULE', ...args }))
        .id!;
    const bo1 = await post(KEY_B, {
      brandId: harbor.id,
      collectionId: harbor.collections[0]!.id,
      scheduledAt: '2026-11-21 13:30:00', // Paris: 12:30Z
    });
    const ada = await post(KEY_A, { brandId: 1, collectionId: 3, scheduledAt: '2026-11-21 07:45:00' }); // 12:45Z
    const bo2 = await post(KEY_B, {
      brandId: harbor.id,
      collectionId: harbor.collections[0]!.id,
      scheduledAt: '2026-11-21 14:00:00', // Paris: 13:00Z
    });
    for (const at of ['2026-11-21T12:30:00Z', '2026-11-21T12:45:00Z', '2026-11-21T13:00:00Z']) {
      rt.clock.set(Date.parse(at));
      expect(await scheduler.runOnce()).toMatchObject({ started: 1 });
    }

    // Each session's stream is in order: once its last event is in, any earlier one would be too.
    await waitFor(a.messages, `post ${ada}: published`);
    expect(texts(a.messages)).toEqual([
      `post ${ada}: publishing to 6 of 6 channels`,
      `post ${ada}: published`,
    ]);

    await waitFor(b.messages, `post ${bo2}: partially published`);
    const pinterest =
      'to Harbor on Pinterest failed: The channel "Harbor on Pinterest" is INACTIVE (disconnected or needs re-authorization): reconnect it, then publish again.';
    expect(b.messages).toEqual(
      [bo1, bo2].flatMap((id) => [
        { level: 'warning', logger: 'publishing', data: `post ${id} ${pinterest}` },
        { level: 'warning', logger: 'publishing', data: `post ${id}: partially published` },
      ]),
    );
  });
});
