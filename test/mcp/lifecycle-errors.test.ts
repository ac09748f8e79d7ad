/**
 * The post lifecycle tools fail the documented ways as isError tool results whose structured content
 * is the spec's error body exactly (callTool resolving means the client's output-schema validation
 * accepted it) and whose text names every field error.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { BRAND_NOT_FOUND, invalid, type McpHarness, notFound, openMcpHarness, textOf } from './harness.js';

const POST_NOT_FOUND = notFound('post', 'Post not found.');
const FUTURE = 'The scheduled at must be a future date.';

let h: McpHarness;

beforeEach(async () => {
  h = await openMcpHarness();
});

afterEach(async () => {
  expect(h.logged).toEqual([]);
  await h.close();
});

async function fail(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result: CallToolResult = await h.call(name, args);
  expect(result.isError, JSON.stringify(result.structuredContent)).toBe(true);
  const body = result.structuredContent as { message: string; errors: Record<string, string | string[]> };
  const text = textOf(result);
  expect(text).toContain(body.message);
  for (const [field, messages] of Object.entries(body.errors)) {
    for (const message of [messages].flat()) expect(text, field).toContain(message);
  }
  return body;
}

async function create(args: Record<string, unknown>): Promise<number> {
  const result = await h.call('create_post', { brandId: 1, collectionId: 1, ...args });
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return (result.structuredContent as { data: { id: number } }).data.id;
}

const POST_TOOLS = ['get_post', 'update_post', 'delete_post', 'publish_post'];

describe('unknown brand and post', () => {
  it('answers 404 on brand for every lifecycle tool', async () => {
    expect(await fail('list_posts', { brandId: 999 })).toEqual(BRAND_NOT_FOUND);
    expect(await fail('get_queue', { brandId: 999 })).toEqual(BRAND_NOT_FOUND);
    for (const name of POST_TOOLS) {
      expect(await fail(name, { brandId: 999, postId: 1 }), name).toEqual(BRAND_NOT_FOUND);
    }
  });

  it('answers 404 on post for an unknown post and for a post of another brand', async () => {
    const id = await create({ publishMode: 'DRAFT', caption: 'Northwind only' });
    for (const name of POST_TOOLS) {
      expect(await fail(name, { brandId: 1, postId: 999 }), name).toEqual(POST_NOT_FOUND);
      // Brand 2 (Kite & Key Studio) is the demo user's too, but the post is Northwind Coffee's.
      expect(await fail(name, { brandId: 2, postId: id }), name).toEqual(POST_NOT_FOUND);
    }
    expect(textOf(await h.call('get_post', { brandId: 1, postId: 999 }))).toContain('list_posts');
  });

  it('requires brandId and postId as integers', async () => {
    expect(await fail('get_post', {})).toEqual(
      invalid({ brandId: ['The brand id field is required.'], postId: ['The post id field is required.'] }),
    );
    expect(await fail('delete_post', { brandId: 1, postId: 'first' })).toEqual(
      invalid({ postId: ['The post id must be an integer.'] }),
    );
  });
});

describe('posts past changing', () => {
  it('refuses to change, delete or publish a cancelled post, on postId', async () => {
    const id = await create({ publishMode: 'QUEUE', caption: 'To be cancelled' });
    expect((await h.call('delete_post', { brandId: 1, postId: id })).isError ?? false).toBe(false);
    const only = (action: string) =>
      invalid({
        postId: [`The post ${id} is cancelled: only draft, queued and scheduled posts can be ${action}.`],
      });
    expect(await fail('update_post', { brandId: 1, postId: id, caption: 'Again' })).toEqual(only('changed'));
    expect(await fail('delete_post', { brandId: 1, postId: id })).toEqual(only('deleted'));
    expect(await fail('publish_post', { brandId: 1, postId: id })).toEqual(only('published now'));
  });

  it('refuses to change a post once publishing has started, and once published', async () => {
    const id = await create({ publishMode: 'IMMEDIATE', caption: 'Already going out' });
    expect(await fail('update_post', { brandId: 1, postId: id, caption: 'Too late' })).toEqual(
      invalid({
        postId: [`The post ${id} is publishing: only draft, queued and scheduled posts can be changed.`],
      }),
    );
    expect(await fail('publish_post', { brandId: 1, postId: id })).toEqual(
      invalid({
        postId: [
          `The post ${id} is publishing: only draft, queued and scheduled posts can be published now.`,
        ],
      }),
    );
    expect(
      (await h.rt.service.getPost({ brandId: 1, postId: id })).content.caption,
      'the refused update changed nothing',
    ).toBe('Already going out');

    const { store, clock } = h.rt.runtime;
    await new Scheduler({ store, clock, publisher: new SandboxPublisher(store.sandbox, clock) }).runOnce();
    expect(await fail('delete_post', { brandId: 1, postId: id })).toEqual(
      invalid({
        postId: [
          `The post ${id} is partially published: only draft, queued and scheduled posts can be deleted.`,
        ],
      }),
    );
  });
});

describe('update_post validation', () => {
  let id: number;

  beforeEach(async () => {
    id = await create({ publishMode: 'QUEUE', caption: 'Valid for now' });
  });

  it("uses create_post's messages, every failure at once, and changes nothing", async () => {
    expect(
      await fail('update_post', {
        brandId: 1,
        postId: id,
        caption: 'x'.repeat(3001),
        link: 'not a url',
        publishMode: 'SCHEDULE',
        scheduledAt: '2026-11-21 06:00:00',
      }),
    ).toEqual(
      invalid({
        caption: ['The caption may not be greater than 3000 characters.'],
        link: ['The link format is invalid.'],
        scheduledAt: [FUTURE],
      }),
    );
    const post = await h.rt.service.getPost({ brandId: 1, postId: id });
    expect(post).toMatchObject({ status: 'queued', content: { caption: 'Valid for now' } });
  });

  it('checks the post as changed: removing the only caption, or SCHEDULE without a time', async () => {
    expect(await fail('update_post', { brandId: 1, postId: id, caption: null })).toEqual(
      invalid({ caption: ['The caption field is required when poll is not present.'] }),
    );
    expect(await fail('update_post', { brandId: 1, postId: id, publishMode: 'SCHEDULE' })).toEqual(
      invalid({ scheduledAt: ['The scheduled at field is required when publish mode is SCHEDULE.'] }),
    );
  });

  it('refuses unknown fields instead of ignoring a typo', async () => {
    expect(await fail('update_post', { brandId: 1, postId: id, captoin: 'Typo' })).toEqual(
      invalid({ captoin: ['The captoin field is not allowed.'] }),
    );
    expect(await fail('list_posts', { brandId: 1, state: 'queued' })).toEqual(
      invalid({ state: ['The state field is not allowed.'] }),
    );
    expect(await fail('get_post', { brandId: 1, postId: id, verbose: true })).toEqual(
      invalid({ verbose: ['The verbose field is not allowed.'] }),
    );
  });
});

describe('list_posts and get_queue validation', () => {
  it('checks status, order, local times and pagination', async () => {
    expect(
      await fail('list_posts', {
        brandId: 1,
        status: 'sent',
        order: 'oldest',
        from: '2026-11-21T09:00:00Z',
        per_page: 101,
      }),
    ).toEqual(
      invalid({
        status: ['The selected status is invalid.'],
        from: ['The from does not match the format Y-m-d H:i:s.'],
        order: ['The selected order is invalid.'],
        per_page: ['The per page may not be greater than 100.'],
      }),
    );
  });

  it('limits the queue count to 1-50', async () => {
    expect(await fail('get_queue', { brandId: 1, count: 51 })).toEqual(
      invalid({ count: ['The count may not be greater than 50.'] }),
    );
    expect(await fail('get_queue', { brandId: 1, count: 0 })).toEqual(
      invalid({ count: ['The count must be at least 1.'] }),
    );
  });
});
