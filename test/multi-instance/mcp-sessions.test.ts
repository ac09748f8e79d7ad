/**
 * MCP over HTTP with several instances. A session lives in the memory of the instance that answered its
 * initialize, so a load balancer must keep a session's requests on that instance (sticky on the
 * `Mcp-Session-Id` header; REST needs nothing). What happens otherwise, on the built program:
 *
 * - a request of a session that lands on another instance is answered 404 with the JSON-RPC error
 *   "Session not found" (what the MCP specification tells a client to answer by initializing again);
 * - the SDK's client (1.32) does not initialize again by itself: the call fails with that 404, and the
 *   application connects a new client, which works at once, on whichever instance it lands;
 * - behind a balancer that is sticky on the header, every call of every session reaches its instance,
 *   while new sessions are spread over the instances; when a session's instance stops, the balancer
 *   sends its next request elsewhere, it gets the 404, and a new session carries on;
 * - a session hears the publishing events (MCP logging) of its brands' posts whichever instance
 *   published them, once each.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, it } from 'vitest';
import { cleanup } from '../mcp/cli-harness.js';
import { startBalancer } from './balancer.js';
import { createPost, sleep, startCluster, usePostgresServer } from './cluster.js';

const postgres = usePostgresServer();
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  await cleanup();
});

async function connect(url: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'multi-instance-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    }),
  );
  clients.push(client);
  return client;
}

const brands = async (client: Client) =>
  ((await client.callTool({ name: 'list_brands', arguments: {} })) as CallToolResult).structuredContent;

it('answers a session that lands on another instance 404 "Session not found"; a new session works there', async () => {
  const cluster = await startCluster(postgres(), { instances: 2 });
  const [a, b] = [cluster.instances[0]!, cluster.instances[1]!];
  const onA = await connect(a.url, cluster.apiKey);
  expect(await brands(onA)).toMatchObject({ status: 'success', data: [{ title: 'Acme' }] });
  const transport = (onA as unknown as { transport: StreamableHTTPClientTransport }).transport;
  const sessionId = transport.sessionId!;

  // The same session's next request, on B, as a balancer without stickiness would send it.
  const response = await fetch(`${b.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${cluster.apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'list_brands', arguments: {} },
    }),
  });
  expect(response.status).toBe(404);
  expect(await response.json()).toEqual({
    jsonrpc: '2.0',
    error: { code: -32001, message: 'Session not found' },
    id: null,
  });
  // A new session on B works at once: sessions hold nothing the store does not.
  expect(await brands(await connect(b.url, cluster.apiKey))).toMatchObject({ data: [{ title: 'Acme' }] });
  await cluster.stopAll();
}, 60_000);

it('keeps each session on its instance behind a balancer sticky on Mcp-Session-Id; a client whose instance stopped starts a new session', async () => {
  const cluster = await startCluster(postgres(), { instances: 2 });
  const balancer = await startBalancer(() => cluster.instances.filter((i) => i.running).map((i) => i.url), {
    sticky: true,
  });
  try {
    const sessions = [];
    for (let i = 0; i < 4; i++) sessions.push(await connect(balancer.url, cluster.apiKey));
    // New sessions are spread over both instances; every call of each reaches its own.
    expect(new Set(balancer.sessions.values()).size).toBe(2);
    for (let round = 0; round < 5; round++) {
      for (const client of sessions) expect(await brands(client)).toMatchObject({ status: 'success' });
    }

    // The instance of the first session stops: the balancer sends that session elsewhere.
    const first = sessions[0]!;
    const transport = (first as unknown as { transport: StreamableHTTPClientTransport }).transport;
    const home = balancer.sessions.get(transport.sessionId!)!;
    const stopping = cluster.instances.find((each) => each.url === home)!;
    await stopping.stop();
    await sleep(500);
    const failure = await brands(first).catch((error: unknown) => error);
    // The SDK client reports the 404 and does not initialize again by itself.
    expect(failure).toBeInstanceOf(StreamableHTTPError);
    expect((failure as StreamableHTTPError).code).toBe(404);
    expect(String((failure as Error).message)).toContain('Session not found');
    // The application connects again, through the same balancer, and carries on.
    const again = await connect(balancer.url, cluster.apiKey);
    expect(await brands(again)).toMatchObject({ status: 'success', data: [{ title: 'Acme' }] });
  } finally {
    await balancer.close();
    await cluster.stopAll();
  }
}, 60_000);

it('tells a session on one instance what happened to posts another instance published, once each', async () => {
  const cluster = await startCluster(postgres(), { instances: 2 });
  const [a, b] = [cluster.instances[0]!, cluster.instances[1]!];
  try {
    const onA = await connect(a.url, cluster.apiKey);
    const heard: string[] = [];
    onA.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      heard.push(String(notification.params.data));
    });
    await onA.setLoggingLevel('info');
    // Created on B, which wakes at once (A only when told); both instances send, and whichever records
    // a post's last delivery settles it. Rounds of six go on until B has settled some (under load, A may
    // take a whole round), so that events relayed from B are among those heard.
    const ids: number[] = [];
    const published = (id: number) => heard.filter((line) => line === `post ${id}: published`).length;
    const settledByB = () => ids.filter((id) => b.log().includes(`] post ${id}: published\n`));
    for (let round = 0; round < 5 && settledByB().length === 0; round++) {
      for (let i = 0; i < 6; i++) {
        const caption = `Roast ${round}.${i}`;
        ids.push(
          await createPost(b.url, cluster.apiKey, { publishMode: 'IMMEDIATE', caption }, `e${round}.${i}`),
        );
      }
      const deadline = Date.now() + 20_000;
      while (ids.some((id) => published(id) === 0) && Date.now() < deadline) await sleep(50);
    }
    await sleep(300);
    expect(ids.map(published)).toEqual(ids.map(() => 1));
    // Not vacuous: B settled some of them (its operator's log says so), so those events came from B.
    expect(settledByB().length).toBeGreaterThan(0);
  } finally {
    await cluster.stopAll();
  }
}, 60_000);
