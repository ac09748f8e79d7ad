/**
 * Every numeric and date field the service stores or reads a stored row with, at its limits and past
 * them (the largest safe integer, 10^13, an unsafe integer, negative, fractional, infinite; the first
 * and last dates the format can write), through REST and through MCP (the real SDK client, which checks
 * every result against the tool's output schema). No answer is a 500, and whatever was accepted reads
 * back: each post alone, the brand's lists and queue, before and after it is published. A value the
 * service cannot represent is refused with a 422 that names the limit.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMMENT_DELAY_MAX_SECONDS } from '../../src/domain/post-schemas.js';
import { createHttpApp } from '../../src/http/serve.js';
import { openLocalRuntime } from '../../src/local-runtime.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { runSqlElsewhere } from '../support/local.js';
import { beforeJobTable } from '../support/older-schema.js';
import { expectTimestamps, invalidBody, KEY_A, openRestWorld, type RestWorld, readJson } from './support.js';

const HUGE = [Number.MAX_SAFE_INTEGER, 1e13, 2 ** 53 + 2, 1e300, -1, -Number.MAX_SAFE_INTEGER, 0.5, 2.000001];

let world: RestWorld;
let mcp: Client;
const serverLog: unknown[] = [];

beforeEach(async () => {
  world = await openRestWorld();
  serverLog.length = 0;
  const server = createMcpServer(world.rt.service, {
    name: 'social-publisher-mcp',
    version: '0.0.0-test',
    log: (message, error) => serverLog.push({ message, error }),
  });
  mcp = new Client({ name: 'limits-test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await mcp.connect(clientSide);
  await mcp.listTools(); // arms the client's output-schema validators
});

afterEach(async () => {
  expect(world.logged).toEqual([]);
  expect(serverLog).toEqual([]);
  await mcp.close();
  await world.close();
});

const callTool = async (name: string, args: Record<string, unknown>) =>
  (await mcp.callTool({ name, arguments: args })) as CallToolResult;

/** A JSON body as text, so that numbers JSON.stringify cannot write (1e400) can be sent too. */
function rawPost(path: string, body: string, method = 'POST') {
  return world.request(method, path, { body, headers: { 'content-type': 'application/json' } });
}

/** Every post of brand 1, each alone and in every list, over REST and MCP, before and after publishing. */
async function expectEverythingReadable(): Promise<void> {
  const list = await readJson(await world.request('GET', '/v1/brands/1/posts?per_page=100'));
  expect(list.status, JSON.stringify(list.body)).toBe(200);
  expectTimestamps(list.body.data);
  for (const order of ['newest', 'calendar']) {
    const listed = await callTool('list_posts', { brandId: 1, per_page: 100, order });
    expect(listed.isError ?? false, JSON.stringify(listed.content)).toBe(false);
  }
  for (const post of list.body.data as Array<{ id: number }>) {
    const one = await readJson(await world.request('GET', `/v1/brands/1/posts/${post.id}`));
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expectTimestamps(one.body.data);
    const got = await callTool('get_post', { brandId: 1, postId: post.id });
    expect(got.isError ?? false, JSON.stringify(got.content)).toBe(false);
  }
  const queue = await readJson(await world.request('GET', '/v1/brands/1/queue'));
  expect(queue.status, JSON.stringify(queue.body)).toBe(200);
  expectTimestamps(queue.body.data);
  const viaMcp = await callTool('get_queue', { brandId: 1 });
  expect(viaMcp.isError ?? false, JSON.stringify(viaMcp.content)).toBe(false);
}

async function publishEverythingDue(): Promise<void> {
  const { store, clock } = world.rt.runtime;
  await new Scheduler({ store, clock, publisher: new SandboxPublisher(store.sandbox, clock) }).runOnce();
}

const POSTS = '/v1/brands/1/collections/1/posts';

describe('comment.delay', () => {
  it('is refused past its limit with a 422 that says the limit, over REST and MCP, in every mode', async () => {
    const tooLong = `The comment.delay may not be greater than ${COMMENT_DELAY_MAX_SECONDS}.`;
    for (const delay of [COMMENT_DELAY_MAX_SECONDS + 1, Number.MAX_SAFE_INTEGER, 1e13, 1e300]) {
      for (const publishMode of ['DRAFT', 'QUEUE', 'IMMEDIATE']) {
        const payload = { publishMode, caption: 'c', comment: { comment: 'first!', delay } };
        const rest = await world.request('POST', POSTS, { json: payload });
        expect({ status: rest.status, body: await rest.text() }).toEqual({
          status: 422,
          body: invalidBody({ 'comment.delay': [tooLong] }),
        });
        const tool = await callTool('create_post', { brandId: 1, collectionId: 1, ...payload });
        expect(tool.isError).toBe(true);
        expect(tool.structuredContent).toEqual(JSON.parse(invalidBody({ 'comment.delay': [tooLong] })));
      }
    }
    const negative = await readJson(
      await world.request('POST', POSTS, {
        json: { publishMode: 'DRAFT', caption: 'c', comment: { comment: 'x', delay: -1 } },
      }),
    );
    expect(negative.body.errors).toEqual({ 'comment.delay': ['The comment.delay must be at least 0.'] });
    // 1e400 is Infinity to JSON.parse: not an integer.
    const infinite = await readJson(
      await rawPost(POSTS, '{"publishMode":"DRAFT","caption":"c","comment":{"comment":"x","delay":1e400}}'),
    );
    expect(infinite.status).toBe(422);
    expect(Object.keys(infinite.body.errors)).toEqual(['comment.delay']);
    expect((await readJson(await world.request('GET', '/v1/brands/1/posts'))).body.pagination.total).toBe(0);
  });

  it('at its limit is stored, published, and reads back with the comment due that far after', async () => {
    const payload = {
      publishMode: 'IMMEDIATE',
      caption: 'The longest wait',
      comment: { comment: 'a year later', delay: COMMENT_DELAY_MAX_SECONDS },
    };
    const rest = await readJson(await world.request('POST', POSTS, { json: payload }));
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    const tool = await callTool('create_post', { brandId: 1, collectionId: 1, ...payload });
    expect(tool.isError ?? false).toBe(false);
    await publishEverythingDue();
    await expectEverythingReadable();
    const post = await readJson(await world.request('GET', `/v1/brands/1/posts/${rest.body.data.id}`));
    const sent = post.body.data.deliveries.find((d: { status: string }) => d.status === 'sent');
    const dueMs = Date.parse(sent.comment.dueAt);
    expect(dueMs - Date.parse(sent.sentAt)).toBe(COMMENT_DELAY_MAX_SECONDS * 1000);
  });
});

describe('a stored row the service cannot present', () => {
  it('is repaired when an older store is opened, and neither the post nor its brand becomes unreadable', async () => {
    const created = await readJson(
      await world.request('POST', POSTS, {
        json: { publishMode: 'IMMEDIATE', caption: 'Old', comment: { comment: 'x', delay: 60 } },
      }),
    );
    await publishEverythingDue();
    // What a store written before the limit holds: a comment due in the year 316,889 (10^13 s after),
    // at the schema version before the repair (SQLite's 8th migration, PostgreSQL's 4th; the later ones
    // undone too).
    const postId = created.body.data.id;
    const dialect = world.rt.databaseUrl ? 'postgres' : 'sqlite';
    const poison = `${beforeJobTable(dialect, false)}
      UPDATE deliveries SET comment_status = 'pending', comment_due_at_ms = 10000000000000000 WHERE post_id = ${postId};`;
    await runSqlElsewhere(
      world.rt,
      world.rt.databaseUrl
        ? `${poison} DELETE FROM social_publisher_migrations WHERE version >= 4`
        : `${poison} PRAGMA user_version = 7`,
    );

    const upgraded = await openLocalRuntime(
      { ...world.rt.storeConfig, demo: false },
      { clock: world.rt.clock },
    );
    try {
      const http = createHttpApp({
        runtime: upgraded,
        version: 'test',
        loopbackOnly: true,
        log: (message, error) => world.logged.push({ message, error }),
      });
      const get = async (path: string) =>
        readJson(
          await http.app.request(`http://localhost${path}`, {
            headers: { host: 'localhost', authorization: `Bearer ${KEY_A}` },
          }),
        );
      const list = await get('/v1/brands/1/posts');
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      const post = await get(`/v1/brands/1/posts/${postId}`);
      expect(post.status, JSON.stringify(post.body)).toBe(200);
      expectTimestamps(post.body.data);
      const dues = post.body.data.deliveries.map(
        (d: { comment: { dueAt: string | null } }) => d.comment.dueAt,
      );
      expect(dues).toContain('9999-12-31T23:59:59.999000Z');
      await http.sessions.closeAll();
    } finally {
      await upgraded.close();
    }
    await expectEverythingReadable();
  });
});

/** `base` with `value` at the dotted `path` (numeric parts index arrays). */
function withValue(base: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(base);
  const parts = path.split('.');
  let at: Record<string, unknown> = copy;
  for (const part of parts.slice(0, -1)) at = at[part] as Record<string, unknown>;
  at[parts.at(-1)!] = value;
  return copy;
}

/** Each numeric field of the post payload, in a payload that is valid but for it. */
const NUMERIC_FIELDS: Array<{ path: string; base: Record<string, unknown> }> = [
  { path: 'comment.delay', base: { caption: 'c', comment: { comment: 'x', delay: 1 } } },
  {
    path: 'poll.correctOptionIndex',
    base: { poll: { question: 'Q?', options: ['a', 'b'], period: '1d', correctOptionIndex: 0 } },
  },
  {
    path: 'platforms.youtube.playlists.0.channelId',
    base: { caption: 'c', platforms: { youtube: { playlists: [{ channelId: 6, playlistIds: ['PL1'] }] } } },
  },
];

/** Dates the format can write and cannot, at the ends of the calendar and past them. */
const DATES = [
  '9999-12-31 23:59:59',
  '9999-12-31 09:00:00',
  '0000-01-01 00:00:00',
  '0001-01-01 00:00:00',
  '2026-02-29 10:00:00',
  '2026-12-31 24:00:00',
  '2026-12-31 23:59:60',
  '99999-01-01 00:00:00',
  '+2026-12-31 10:00:00',
];

const noServerError = (where: string, status: number, body: unknown) =>
  expect(status, `${where}: ${JSON.stringify(body)}`).toBeLessThan(500);

describe('every numeric and date field the service stores, at its limits and past them', () => {
  it('never answers 500 and stores nothing it cannot read back, before and after publishing', async () => {
    const draft = await readJson(
      await world.request('POST', POSTS, { json: { publishMode: 'DRAFT', caption: 'd' } }),
    );
    const draftId = draft.body.data.id;
    for (const { path, base } of NUMERIC_FIELDS) {
      for (const value of HUGE) {
        for (const publishMode of ['DRAFT', 'IMMEDIATE']) {
          const payload = withValue({ publishMode, ...base }, path, value);
          const rest = await readJson(await world.request('POST', POSTS, { json: payload }));
          noServerError(`create ${path}=${value}`, rest.status, rest.body);
          const tool = await callTool('create_post', { brandId: 1, collectionId: 1, ...payload });
          if (rest.status === 201) expect(tool.isError ?? false, `${path}=${value}`).toBe(false);
          else expect(tool.structuredContent).toEqual(rest.body);
        }
        const change = withValue(base, path, value);
        const patched = await readJson(
          await world.request('PATCH', `/v1/brands/1/posts/${draftId}`, { json: change }),
        );
        noServerError(`update ${path}=${value}`, patched.status, patched.body);
        const updated = await callTool('update_post', { brandId: 1, postId: draftId, ...change });
        if (patched.status !== 200) expect(updated.structuredContent).toEqual(patched.body);
      }
    }
    for (const scheduledAt of DATES) {
      for (const publishMode of ['SCHEDULE', 'DRAFT']) {
        const payload = { publishMode, caption: `at ${scheduledAt}`, scheduledAt };
        const rest = await readJson(await world.request('POST', POSTS, { json: payload }));
        noServerError(`create scheduledAt=${scheduledAt}`, rest.status, rest.body);
        const tool = await callTool('create_post', { brandId: 1, collectionId: 1, ...payload });
        if (rest.status !== 201) expect(tool.structuredContent).toEqual(rest.body);
      }
      const patched = await readJson(
        await world.request('PATCH', `/v1/brands/1/posts/${draftId}`, { json: { scheduledAt } }),
      );
      noServerError(`update scheduledAt=${scheduledAt}`, patched.status, patched.body);
      for (const bound of ['from', 'to']) {
        const listed = await readJson(
          await world.request('GET', `/v1/brands/1/posts?${bound}=${encodeURIComponent(scheduledAt)}`),
        );
        noServerError(`list ${bound}=${scheduledAt}`, listed.status, listed.body);
        const viaMcp = await callTool('list_posts', { brandId: 1, [bound]: scheduledAt });
        if (listed.status !== 200) expect(viaMcp.structuredContent).toEqual(listed.body);
        else expect(viaMcp.isError ?? false).toBe(false);
      }
    }
    await expectEverythingReadable();
    world.rt.clock.advance(3_600_000);
    await publishEverythingDue();
    await expectEverythingReadable();
  });

  it('takes ids, pages and counts of any size as not found or invalid, never a 500', async () => {
    const numbers = [...HUGE.map(String), '1e400', '99999999999999999999', '0x10', '1e3', '007'];
    for (const n of numbers) {
      const paths = [
        `/v1/brands/${n}/channels`,
        `/v1/brands/${n}/collections`,
        `/v1/brands/${n}/posts`,
        `/v1/brands/1/channels/${n}`,
        `/v1/brands/1/posts/${n}`,
        `/v1/brands/${n}/posts/1`,
        `/v1/brands/1/queue?count=${n}`,
        `/v1/brands?page=${n}`,
        `/v1/brands?per_page=${n}`,
        `/v1/brands/1/posts?page=${n}&per_page=100`,
        `/v1/brands/1/posts?collectionId=${n}`,
      ];
      for (const path of paths) {
        const got = await readJson(await world.request('GET', path));
        noServerError(`GET ${path}`, got.status, got.body);
      }
      for (const [method, path] of [
        ['POST', `/v1/brands/${n}/collections/1/posts`],
        ['POST', `/v1/brands/1/collections/${n}/posts`],
        ['PATCH', `/v1/brands/1/posts/${n}`],
        ['DELETE', `/v1/brands/1/posts/${n}`],
        ['POST', `/v1/brands/1/posts/${n}/publish`],
      ] as const) {
        const sent = await readJson(
          await world.request(method, path, { json: { publishMode: 'DRAFT', caption: 'c' } }),
        );
        noServerError(`${method} ${path}`, sent.status, sent.body);
      }
    }
    for (const value of HUGE) {
      for (const [tool, args] of [
        ['list_brands', { page: value }],
        ['list_channels', { brandId: value }],
        ['list_collections', { brandId: 1, per_page: value }],
        ['list_posts', { brandId: 1, page: value, collectionId: value }],
        ['get_post', { brandId: 1, postId: value }],
        ['get_queue', { brandId: 1, count: value }],
        ['get_channel', { brandId: 1, channelId: value }],
        ['upload_media', { brandId: value, url: 'https://example.com/a.png' }],
        ['delete_post', { brandId: value, postId: value }],
        ['publish_post', { brandId: 1, postId: value }],
        ['create_post', { brandId: value, collectionId: value, publishMode: 'DRAFT', caption: 'c' }],
      ] as const) {
        const result = await callTool(tool, args);
        const body = result.structuredContent as { message?: string } | undefined;
        expect(body?.message, `${tool} ${JSON.stringify(args)}`).not.toBe('Server Error');
      }
    }
    await expectEverythingReadable();
  });
});
