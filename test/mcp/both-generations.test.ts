/**
 * Both protocol generations on one `/mcp` (a real loopback listener): the SDK v2 client pinned to MCP
 * 2026-07-28 (no initialize, no session, a `_meta` envelope on each request) and the v1 client speaking
 * 2025-11-25 (initialize, mcp-session-id), side by side. The same tools in the same order with the same
 * results; server/discover and the cache hints of 2026-07-28; the confirmation before publishing as an
 * input_required form whose answer only counts for the question asked; and publishing events as resource
 * updates: subscriptions/listen for 2026-07-28, resources/subscribe for 2025-11-25.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Post } from '../../src/domain/post-schemas.js';
import type { RunningServer } from '../../src/http/serve.js';
import { PublishingEventFeed } from '../../src/mcp/logging.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { KEY_A, KEY_B, serveOnLoopback, twoUsers } from '../support/two-users.js';

const MODERN = '2026-07-28';

let rt: TestRuntime;
let server: RunningServer;
let feed: PublishingEventFeed;
/** Every JSON-RPC exchange of the v2 clients: what they sent, and the answer's body (JSON or SSE). */
let exchanges: Array<{ sent: { method?: string; params?: Record<string, unknown> }; answer: string }>;
const closing: Array<{ close(): Promise<void> }> = [];

beforeEach(async () => {
  rt = await openTestRuntime();
  await rt.importWorkspace(twoUsers());
  feed = new PublishingEventFeed();
  exchanges = [];
  ({ server } = await serveOnLoopback(rt, { events: feed }));
});

afterEach(async () => {
  for (const each of closing.splice(0)) await each.close().catch(() => undefined);
  await server.close();
  await rt.close();
});

/** Records each exchange; the answer is read from a copy, so the client reads the stream as it comes. */
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const sent = typeof init?.body === 'string' ? JSON.parse(init.body) : {};
  const [mine, theirs] = response.body ? response.body.tee() : [null, null];
  const exchange = { sent, answer: '' };
  exchanges.push(exchange);
  if (mine) {
    new Response(mine).text().then(
      (text) => (exchange.answer = text),
      () => undefined, // a stream the client closed (a listen stream ended)
    );
  }
  return new Response(theirs, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};

async function modernClient(
  apiKey: string,
  answer?: (message: string) => { action: 'accept' | 'decline'; content?: Record<string, boolean> },
) {
  const client = new ClientV2(
    { name: 'modern-test', version: '1' },
    {
      versionNegotiation: { mode: { pin: MODERN } },
      capabilities: answer ? { elicitation: { form: {} } } : {},
    },
  );
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return answer(request.params.message);
    });
  }
  await client.connect(
    new HttpV2(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      fetch: recordingFetch,
    }),
  );
  closing.push(client);
  return { client, asked };
}

async function legacyClient(apiKey: string): Promise<ClientV1> {
  const client = new ClientV1({ name: 'legacy-test', version: '1' });
  await client.connect(
    new HttpV1(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    }),
  );
  closing.push(client);
  return client;
}

/** The result objects of a recorded answer (a JSON body, or each `data:` line of an SSE stream). */
function resultsIn(answer: string): Array<Record<string, unknown>> {
  const bodies = answer.trimStart().startsWith('{')
    ? [answer]
    : answer
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .filter(Boolean);
  return bodies
    .map((body) => JSON.parse(body) as { result?: Record<string, unknown> })
    .flatMap((message) => (message.result ? [message.result] : []));
}

async function draftPost(client: ClientV2 | ClientV1, caption: string): Promise<Post> {
  const created = await client.callTool({
    name: 'create_post',
    arguments: { brandId: 1, collectionId: 1, caption, publishMode: 'DRAFT' },
  });
  expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
  const { id } = (created.structuredContent as { data: { id: number } }).data;
  return rt.service.getPost({ brandId: 1, postId: id });
}

describe('one endpoint, two protocol generations', () => {
  it('serves a 2026-07-28 client and a 2025-11-25 client the same tools, in the same order, with the same results', async () => {
    const { client: modern } = await modernClient(KEY_A);
    const legacy = await legacyClient(KEY_A);
    expect(modern.getProtocolEra()).toBe('modern');
    expect(modern.getNegotiatedProtocolVersion?.() ?? MODERN).toBe(MODERN);
    // No session on the modern side: the legacy client has one.
    expect(exchanges.every((exchange) => !('mcp-session-id' in (exchange.sent as object)))).toBe(true);

    const [modernTools, legacyTools] = await Promise.all([modern.listTools(), legacy.listTools()]);
    expect(modernTools.tools.map((tool) => tool.name)).toEqual(legacyTools.tools.map((tool) => tool.name));
    expect(modernTools.tools.map((tool) => tool.name)).toHaveLength(14);
    expect(modernTools.tools.map((tool) => tool.inputSchema)).toEqual(
      legacyTools.tools.map((tool) => tool.inputSchema),
    );
    const again = await modern.listTools();
    expect(again.tools.map((tool) => tool.name)).toEqual(modernTools.tools.map((tool) => tool.name));

    const [modernBrands, legacyBrands] = await Promise.all([
      modern.callTool({ name: 'list_brands', arguments: {} }),
      legacy.callTool({ name: 'list_brands', arguments: {} }),
    ]);
    expect(modernBrands.structuredContent).toEqual(legacyBrands.structuredContent);
    expect(modernBrands.content).toEqual(legacyBrands.content);

    // Each request acts as the key's user: Bo's modern client sees only his brand.
    const { client: bo } = await modernClient(KEY_B);
    const boBrands = await bo.callTool({ name: 'list_brands', arguments: {} });
    expect(
      (boBrands.structuredContent as { data: Array<{ title: string }> }).data.map((b) => b.title),
    ).toEqual(['Harbor Bakery']);
  });

  it('says what it offers in server/discover, and how long clients may keep its lists', async () => {
    const { client } = await modernClient(KEY_A);
    await client.listTools();
    await client.readResource({ uri: 'social-publisher://brands/1/calendar' });
    const answerTo = (method: string) => {
      const exchange = exchanges.find((each) => each.sent.method === method);
      expect(exchange, method).toBeDefined();
      return resultsIn(exchange!.answer).at(-1)!;
    };
    await expect.poll(() => exchanges.every((each) => each.answer !== '')).toBe(true);
    const discover = answerTo('server/discover') as {
      capabilities: Record<string, Record<string, unknown>>;
      _meta: Record<string, { name: string }>;
    };
    expect(discover.capabilities.tools).toEqual({ listChanged: false });
    expect(discover.capabilities.resources).toEqual({ listChanged: false, subscribe: true });
    expect(discover.capabilities.logging).toBeUndefined();
    expect(discover._meta['io.modelcontextprotocol/serverInfo']!.name).toBe('social-publisher-mcp');
    expect(answerTo('tools/list')).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'private' });
    expect(answerTo('resources/read')).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });
});

describe('asking the user before publishing, on 2026-07-28', () => {
  it('answers input_required with the question, and publishes once the user confirms', async () => {
    const { client, asked } = await modernClient(KEY_A, () => ({
      action: 'accept',
      content: { confirm: true },
    }));
    const post = await draftPost(client, 'Holiday blend is back');
    const result = await client.callTool({
      name: 'publish_post',
      arguments: { brandId: 1, postId: post.id },
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`Publish post ${post.id} now`);
    expect(asked[0]).toContain('Caption: "Holiday blend is back"');
    const calls = exchanges.filter((each) => each.sent.params?.name === 'publish_post');
    // The call, then the call that brings the answer, with the state the server signed.
    expect(calls).toHaveLength(2);
    expect(calls[1]!.sent.params!.requestState).toEqual(expect.any(String));
    expect((await rt.service.getPost({ brandId: 1, postId: post.id })).status).not.toBe('draft');
  });

  it('asks once before create_post publishes now, and creates one post', async () => {
    const { client, asked } = await modernClient(KEY_A, () => ({
      action: 'accept',
      content: { confirm: true },
    }));
    const before = (await rt.service.listPosts({ brandId: 1, per_page: 100 })).pagination.total;
    const result = await client.callTool({
      name: 'create_post',
      arguments: { brandId: 1, collectionId: 1, caption: 'Out now', publishMode: 'IMMEDIATE' },
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('Publish this post now?');
    expect((await rt.service.listPosts({ brandId: 1, per_page: 100 })).pagination.total).toBe(before + 1);
  });

  it('changes nothing when the user declines', async () => {
    const { client, asked } = await modernClient(KEY_A, () => ({ action: 'decline' }));
    const post = await draftPost(client, 'Not this one');
    const result = await client.callTool({ name: 'delete_post', arguments: { brandId: 1, postId: post.id } });
    expect(asked).toHaveLength(1);
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { errors: Record<string, string> }).errors.confirmation).toContain(
      'Not deleted',
    );
    expect((await rt.service.getPost({ brandId: 1, postId: post.id })).status).toBe('draft');
  });

  it('does not ask a client that cannot answer', async () => {
    const { client } = await modernClient(KEY_A);
    const post = await draftPost(client, 'No questions');
    const result = await client.callTool({
      name: 'publish_post',
      arguments: { brandId: 1, postId: post.id },
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(exchanges.filter((each) => each.sent.params?.name === 'publish_post')).toHaveLength(1);
  });

  it('takes no answer it did not ask for, and no state that was changed', async () => {
    const { client } = await modernClient(KEY_A, () => ({ action: 'accept', content: { confirm: true } }));
    const post = await draftPost(client, 'Guarded');
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    };
    const raw = async (params: Record<string, unknown>) => {
      const response = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEY_A}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'publish_post',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: {
            name: 'publish_post',
            arguments: { brandId: 1, postId: post.id },
            _meta: envelope,
            ...params,
          },
        }),
      });
      return (await response.json()) as { result?: Record<string, unknown>; error?: { code: number } };
    };
    const yes = { confirm: { action: 'accept', content: { confirm: true } } };
    // An answer without the state of a question: asked again, nothing published.
    const unasked = await raw({ inputResponses: yes });
    expect(unasked.result).toMatchObject({ resultType: 'input_required' });
    const state = unasked.result!.requestState as string;
    // The state with one character changed: refused.
    const flipped = `${state.slice(0, -2)}${state.at(-2) === 'A' ? 'B' : 'A'}${state.at(-1)}`;
    const tampered = await raw({ inputResponses: yes, requestState: flipped });
    expect(tampered.error?.code).toBe(-32602);
    expect((await rt.service.getPost({ brandId: 1, postId: post.id })).status).toBe('draft');
    // The state as signed, with the answer: published.
    const answered = await raw({ inputResponses: yes, requestState: state });
    expect(answered.result).toMatchObject({ resultType: 'complete' });
    expect((await rt.service.getPost({ brandId: 1, postId: post.id })).status).not.toBe('draft');
  });
});

describe('publishing events as resource updates', () => {
  it('2026-07-28: a listen stream hears of the posts of its user, and of no one else', async () => {
    const { client } = await modernClient(KEY_A);
    const post = await draftPost(client, 'Listened to');
    const heard: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      heard.push(notification.params.uri);
    });
    const postUri = `social-publisher://brands/1/posts/${post.id}`;
    const subscription = await client.listen({
      resourceSubscriptions: [postUri, 'social-publisher://brands/3/calendar'],
    });
    expect(feed.size).toBe(1);
    // Harbor Bakery (brand 3) is Bo's: its event is not passed on, even to a stream that names it.
    feed.emit({ level: 'info', message: 'post 99: published', brandId: 3, postId: 99 });
    feed.emit({ level: 'info', message: `post ${post.id}: published`, brandId: 1, postId: post.id });
    await expect.poll(() => heard).toEqual([postUri]);
    await subscription.close?.();
    await expect.poll(() => feed.size).toBe(0);
  });

  it('2025-11-25: resources/subscribe, the updates of what was subscribed to, and unsubscribe', async () => {
    const client = await legacyClient(KEY_A);
    const post = await draftPost(client, 'Subscribed to');
    const heard: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      heard.push(notification.params.uri);
    });
    const postUri = `social-publisher://brands/1/posts/${post.id}`;
    const calendarUri = 'social-publisher://brands/1/calendar';
    await client.subscribeResource({ uri: postUri });
    feed.emit({ level: 'info', message: 'published', brandId: 1, postId: post.id });
    await expect.poll(() => heard).toEqual([postUri]);
    await client.unsubscribeResource({ uri: postUri });
    await client.subscribeResource({ uri: calendarUri });
    feed.emit({ level: 'info', message: 'published', brandId: 1, postId: post.id });
    await expect.poll(() => heard).toEqual([postUri, calendarUri]);
    // Another user's brand is not found, as if it did not exist.
    const refused = await client
      .subscribeResource({ uri: 'social-publisher://brands/3/calendar' })
      .catch((e) => e);
    expect(refused).toMatchObject({ code: -32602, data: { uri: 'social-publisher://brands/3/calendar' } });
  });
});
