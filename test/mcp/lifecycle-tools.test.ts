/**
 * The post lifecycle tools succeed through the real SDK client (which validates structured content
 * against each declared output schema): list_posts, get_post, update_post, delete_post, publish_post,
 * get_queue. Clock: 2026-11-21 07:00 in New York; Northwind Coffee queues at 09:00, 12:00 and 17:00.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POST_STATUSES, type Post, type Queue } from '../../src/domain/post-schemas.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { type McpHarness, openMcpHarness, textOf } from './harness.js';

const NINE_AM =
  'Saturday, November 21, 2026 at 09:00 EST (America/New_York), 2026-11-21T14:00:00.000000Z UTC';

let h: McpHarness;

beforeEach(async () => {
  h = await openMcpHarness();
});

afterEach(async () => {
  expect(h.logged).toEqual([]);
  await h.close();
});

function expectSuccess(result: CallToolResult, paginated = false): Record<string, unknown> {
  expect(result.isError ?? false, textOf(result)).toBe(false);
  const body = result.structuredContent as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(paginated ? ['data', 'pagination', 'status'] : ['data', 'status']);
  expect(body.status).toBe('success');
  return body;
}

async function create(args: Record<string, unknown>): Promise<number> {
  const result = await h.call('create_post', { brandId: 1, collectionId: 1, ...args });
  const id = (expectSuccess(result).data as { id: number }).id;
  expect(id).toEqual(expect.any(Number));
  return id;
}

async function data<T>(name: string, args: Record<string, unknown>): Promise<T> {
  return expectSuccess(await h.call(name, args), name === 'list_posts').data as T;
}

const ids = (posts: Post[]) => posts.map((post) => post.id);

describe('tools/list', () => {
  const tool = (name: string) => h.tools.find((t) => t.name === name)!;
  type Schema = { properties: Record<string, Record<string, unknown>>; required?: string[] };
  const input = (name: string) => tool(name).inputSchema as unknown as Schema;

  it('lists the lifecycle tools after create_post, with truthful hints', () => {
    const names = h.tools.map((t) => t.name);
    expect(names.slice(names.indexOf('create_post'), names.indexOf('get_queue') + 1)).toEqual([
      'create_post',
      'list_posts',
      'get_post',
      'update_post',
      'delete_post',
      'publish_post',
      'get_queue',
    ]);
    const reads = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    for (const name of ['list_posts', 'get_post', 'get_queue'])
      expect(tool(name).annotations).toMatchObject(reads);
    expect(tool('update_post').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tool('delete_post').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tool('publish_post').annotations).toMatchObject({
      readOnlyHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(tool('get_queue').description).toContain('QUEUE');
    expect(tool('update_post').description).toContain('null removes');
  });

  it('derives the input schemas from the request schemas', () => {
    const list = input('list_posts');
    expect(list.required).toEqual(['brandId']);
    expect(list.properties.status?.enum).toEqual([...POST_STATUSES]);
    expect(list.properties.order?.enum).toEqual(['newest', 'calendar']);
    expect(list.properties.per_page).toMatchObject({ type: 'integer', maximum: 100 });
    expect(list.properties.from?.pattern).toEqual(expect.any(String));
    for (const name of ['get_post', 'delete_post', 'publish_post', 'update_post']) {
      expect(input(name).required, name).toEqual(['brandId', 'postId']);
      expect(tool(name).inputSchema.additionalProperties, name).toBe(false);
    }
    // update_post: null removes a field, so the schema lets null through; publishMode cannot be removed.
    expect(input('update_post').properties.caption).toMatchObject({
      type: ['string', 'null'],
      minLength: 1,
      maxLength: 3000,
    });
    expect(input('update_post').properties.poll).toMatchObject({ type: ['object', 'null'] });
    expect(input('update_post').properties.publishMode?.enum).toEqual([
      'QUEUE',
      'SCHEDULE',
      'IMMEDIATE',
      'DRAFT',
    ]);
    expect(input('get_queue').properties.count).toMatchObject({ type: 'integer', minimum: 1, maximum: 50 });
  });
});

describe('list_posts', () => {
  let draft: number;
  let queued: number;
  let nov24: number;
  let newsletter: number;
  let nov22: number;

  beforeEach(async () => {
    draft = await create({ publishMode: 'DRAFT', caption: 'A draft without a time' });
    queued = await create({ publishMode: 'QUEUE', caption: 'Queued for nine' });
    nov24 = await create({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-24 09:00:00', caption: 'Tuesday' });
    newsletter = await create({ collectionId: 4, publishMode: 'DRAFT', caption: 'Newsletter idea' });
    nov22 = await create({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-22 18:00:00', caption: 'Sunday' });
  });

  it('lists newest first by default, drafts without a time last, as the REST list body', async () => {
    const result = await h.call('list_posts', { brandId: 1 });
    const body = expectSuccess(result, true);
    expect(ids(body.data as Post[])).toEqual([nov24, nov22, queued, newsletter, draft]);
    expect(body.data).toEqual((await h.rt.service.listPosts({ brandId: 1 })).data);
    expect(body.pagination).toEqual({
      currentPage: 1,
      perPage: 10,
      total: 5,
      lastPage: 1,
      nextPageUrl: null,
      prevPageUrl: null,
    });
    const text = textOf(result);
    expect(text).toContain('5 posts in all');
    expect(text).toContain(`Post ${queued}: queued for ${NINE_AM}`);
    expect(text).toContain(`Post ${draft}: a draft, no time set`);
  });

  it('lists in calendar order, soonest first', async () => {
    const posts = await data<Post[]>('list_posts', { brandId: 1, order: 'calendar' });
    expect(ids(posts)).toEqual([queued, nov22, nov24, draft, newsletter]);
  });

  it('filters by status, collection and local time window (from inclusive, to exclusive)', async () => {
    expect(ids(await data('list_posts', { brandId: 1, status: 'scheduled' }))).toEqual([nov24, nov22]);
    expect(ids(await data('list_posts', { brandId: 1, status: 'queued' }))).toEqual([queued]);
    expect(ids(await data('list_posts', { brandId: 1, collectionId: 4 }))).toEqual([newsletter]);
    expect(ids(await data('list_posts', { brandId: 1, status: 'draft', collectionId: 1 }))).toEqual([draft]);
    const window = { brandId: 1, from: '2026-11-21 09:00:00', to: '2026-11-24 09:00:00' };
    expect(ids(await data('list_posts', window))).toEqual([nov22, queued]);
    expect(ids(await data('list_posts', { ...window, from: '2026-11-21 09:00:01' }))).toEqual([nov22]);
    expect(ids(await data('list_posts', { brandId: 1, from: '2026-11-22 00:00:00' }))).toEqual([
      nov24,
      nov22,
    ]);
    expect(await data('list_posts', { brandId: 1, status: 'published' })).toEqual([]);
  });

  it('pages with the REST paths of the neighbour pages', async () => {
    const body = expectSuccess(await h.call('list_posts', { brandId: 1, page: 2, per_page: 2 }), true);
    expect(ids(body.data as Post[])).toEqual([queued, newsletter]);
    expect(body.pagination).toEqual({
      currentPage: 2,
      perPage: 2,
      total: 5,
      lastPage: 3,
      nextPageUrl: '/v1/brands/1/posts?page=3&per_page=2',
      prevPageUrl: '/v1/brands/1/posts?page=1&per_page=2',
    });
  });
});

describe('get_post', () => {
  it('returns the post with its time in the brand timezone and in UTC', async () => {
    const id = await create({
      publishMode: 'QUEUE',
      caption: 'Queued for nine',
      link: 'https://example.com',
    });
    const result = await h.call('get_post', { brandId: 1, postId: id });
    const post = expectSuccess(result).data as Post;
    expect(post).toEqual(await h.rt.service.getPost({ brandId: 1, postId: id }));
    expect(post).toMatchObject({
      id,
      status: 'queued',
      publishMode: 'QUEUE',
      timezone: 'America/New_York',
      scheduledAt: '2026-11-21 09:00:00',
      dueAt: '2026-11-21T14:00:00.000000Z',
      content: { caption: 'Queued for nine', link: 'https://example.com' },
      deliveries: [],
    });
    expect(textOf(result)).toContain(`Post ${id} is queued for ${NINE_AM}`);
    expect(textOf(result)).toContain('Caption: "Queued for nine"');
  });

  it('shows each channel delivery and its outcome once published', async () => {
    const id = await create({ publishMode: 'IMMEDIATE', caption: 'Out now' });
    const { store, clock } = h.rt.runtime;
    await new Scheduler({ store, clock, publisher: new SandboxPublisher(store.sandbox, clock) }).runOnce();

    const result = await h.call('get_post', { brandId: 1, postId: id });
    const post = expectSuccess(result).data as Post;
    expect(post.status).toBe('partially_published');
    expect(post.deliveries).toHaveLength(12);
    const text = textOf(result);
    expect(text).toContain(`Post ${id} is partially published`);
    expect(text).toContain('Deliveries: 11 sent, 1 failed.');
    expect(text).toContain('- Northwind Coffee on Facebook [Facebook]: sent');
    expect(text).toMatch(/- Northwind Coffee on Pinterest \[Pinterest\]: failed: .*INACTIVE/);
  });
});

describe('update_post', () => {
  it('changes the given fields, keeps the others and the queue time; null removes a field', async () => {
    const id = await create({
      publishMode: 'QUEUE',
      caption: 'Before',
      link: 'https://example.com/a',
      title: 'A title',
    });
    const result = await h.call('update_post', { brandId: 1, postId: id, caption: 'After', link: null });
    const post = expectSuccess(result).data as Post;
    expect(post).toMatchObject({ id, status: 'queued', scheduledAt: '2026-11-21 09:00:00' });
    expect(post.content).toEqual({ caption: 'After', title: 'A title' });
    const { warnings: _warnings, ...stored } = post;
    expect(await h.rt.service.getPost({ brandId: 1, postId: id })).toEqual(stored);
    expect(textOf(result)).toContain(`Post ${id} is queued for ${NINE_AM}`);
    expect(textOf(result)).toContain('Caption: "After"');
  });

  it('moves a queued post to a scheduled time, freeing its queue time', async () => {
    const id = await create({ publishMode: 'QUEUE', caption: 'Move me' });
    const result = await h.call('update_post', {
      brandId: 1,
      postId: id,
      publishMode: 'SCHEDULE',
      scheduledAt: '2026-11-25 10:30:00',
    });
    expect(expectSuccess(result).data).toMatchObject({
      status: 'scheduled',
      scheduledAt: '2026-11-25 10:30:00',
      dueAt: '2026-11-25T15:30:00.000000Z',
    });
    expect(textOf(result)).toContain('scheduled for Wednesday, November 25, 2026 at 10:30 EST');
    expect(textOf(result)).toContain('2026-11-25T15:30:00.000000Z UTC');
    const queue = await data<Queue>('get_queue', { brandId: 1, count: 1 });
    expect(queue.nextSlots).toEqual([
      { scheduledAt: '2026-11-21 09:00:00', at: '2026-11-21T14:00:00.000000Z' },
    ]);
  });
});

describe('delete_post', () => {
  it('cancels a queued post: it stays listed as cancelled and its queue time is free again', async () => {
    const id = await create({ publishMode: 'QUEUE', caption: 'Cancel me' });
    const result = await h.call('delete_post', { brandId: 1, postId: id });
    const deleted = expectSuccess(result).data as { id: number; status: string; message: string };
    expect(deleted).toMatchObject({ id, status: 'cancelled' });
    expect(textOf(result)).toBe(deleted.message);
    expect(deleted.message).toContain(`Post ${id} was cancelled`);
    expect(ids(await data('list_posts', { brandId: 1, status: 'cancelled' }))).toEqual([id]);
    const queue = await data<Queue>('get_queue', { brandId: 1, count: 1 });
    expect(queue.nextSlots[0]?.scheduledAt).toBe('2026-11-21 09:00:00');
    expect(queue.queued).toEqual([]);
  });

  it('deletes a draft for good', async () => {
    const id = await create({ publishMode: 'DRAFT', caption: 'Delete me' });
    const deleted = await data('delete_post', { brandId: 1, postId: id });
    expect(deleted).toEqual({ id, status: 'deleted', message: `Draft ${id} was deleted.` });
    expect(await data('list_posts', { brandId: 1 })).toEqual([]);
  });
});

describe('publish_post', () => {
  it('publishes a queued post now: one delivery per channel, off the queue', async () => {
    const id = await create({ publishMode: 'QUEUE', caption: 'Now instead' });
    const result = await h.call('publish_post', { brandId: 1, postId: id });
    const post = expectSuccess(result).data as Post;
    expect(post).toMatchObject({
      id,
      status: 'publishing',
      publishMode: 'IMMEDIATE',
      scheduledAt: '2026-11-21 07:00:00',
      content: { caption: 'Now instead' },
    });
    expect(post.deliveries.map((d) => d.channelName)).toContain('Northwind Coffee on Instagram');
    expect(post.deliveries).toHaveLength(12);
    expect(textOf(result)).toContain(`Post ${id} is publishing`);
    expect(textOf(result)).toContain('Deliveries: 11 pending, 1 failed.');
    expect((await data<Queue>('get_queue', { brandId: 1 })).queued).toEqual([]);
  });
});

describe('get_queue', () => {
  it("shows the brand's local time, queue times and the next free slots", async () => {
    const result = await h.call('get_queue', { brandId: 1 });
    const queue = expectSuccess(result).data as Queue;
    expect(queue).toMatchObject({
      brandId: 1,
      timezone: 'America/New_York',
      localNow: '2026-11-21 07:00:00',
      now: '2026-11-21T12:00:00.000000Z',
      queueTimes: ['09:00', '12:00', '17:00'],
      queued: [],
    });
    expect(queue.nextSlots.map((slot) => slot.scheduledAt)).toEqual([
      '2026-11-21 09:00:00',
      '2026-11-21 12:00:00',
      '2026-11-21 17:00:00',
      '2026-11-22 09:00:00',
      '2026-11-22 12:00:00',
    ]);
    expect(queue.nextSlots[0]?.at).toBe('2026-11-21T14:00:00.000000Z');
    expect(textOf(result)).toContain('local time now 2026-11-21 07:00:00');
    expect(textOf(result)).toContain('- 2026-11-21 09:00:00 (2026-11-21T14:00:00.000000Z UTC)');
  });

  it('skips taken times, lists queued posts soonest first, and QUEUE takes the first free slot', async () => {
    const first = await create({ publishMode: 'QUEUE', caption: 'First in the queue' });
    const second = await create({ publishMode: 'QUEUE', caption: 'Second in the queue' });
    await create({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-21 17:00:00', caption: 'At five' });

    const result = await h.call('get_queue', { brandId: 1, count: 2 });
    const queue = expectSuccess(result).data as Queue;
    expect(queue.nextSlots).toEqual([
      { scheduledAt: '2026-11-22 09:00:00', at: '2026-11-22T14:00:00.000000Z' },
      { scheduledAt: '2026-11-22 12:00:00', at: '2026-11-22T17:00:00.000000Z' },
    ]);
    expect(ids(queue.queued)).toEqual([first, second]);
    expect(textOf(result)).toContain('2 queued posts to go out:');
    expect(textOf(result)).toContain(`Post ${second}: queued for Saturday, November 21, 2026 at 12:00 EST`);

    const third = await create({ publishMode: 'QUEUE', caption: 'Third in the queue' });
    const post = await data<Post>('get_post', { brandId: 1, postId: third });
    expect(post.scheduledAt).toBe(queue.nextSlots[0]?.scheduledAt);
  });
});
