/**
 * MCP resources through the real SDK client: the two brand templates, the per-brand resources of the
 * acting user, and reads whose JSON is what the service returns (get_queue, and list_posts for the
 * calendar); brands that do not exist or belong to another user are clear errors.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type McpHarness, openMcpHarness } from './harness.js';

/** SEP-2164: a resource not found is Invalid Params with the URI as its data (every protocol generation). */
const RESOURCE_NOT_FOUND = -32602;

let h: McpHarness;

beforeEach(async () => {
  h = await openMcpHarness();
});

afterEach(async () => {
  await h.close();
});

async function read(uri: string): Promise<unknown> {
  const { contents } = await h.client.readResource({ uri });
  expect(contents).toHaveLength(1);
  const [content] = contents;
  expect(content!.uri).toBe(uri);
  expect(content!.mimeType).toBe('application/json');
  return JSON.parse((content as { text: string }).text);
}

async function readError(uri: string): Promise<McpError> {
  const error = await h.client.readResource({ uri }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

async function create(args: Record<string, unknown>): Promise<number> {
  const created = await h.rt.service.createPost({ brandId: 1, collectionId: 3, caption: 'Hello', ...args });
  return created.id!;
}

describe('resource templates and the resource list', () => {
  it('offers the queue, calendar and post templates as JSON', async () => {
    const { resourceTemplates } = await h.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => [t.name, t.uriTemplate, t.mimeType])).toEqual([
      ['brand-queue', 'social-publisher://brands/{brandId}/queue', 'application/json'],
      ['brand-calendar', 'social-publisher://brands/{brandId}/calendar', 'application/json'],
      ['post', 'social-publisher://brands/{brandId}/posts/{postId}', 'application/json'],
    ]);
    for (const template of resourceTemplates) expect(template.description).toBeTruthy();
    expect(h.client.getServerCapabilities()?.resources).toEqual({ listChanged: false });
  });

  it("lists each of the user's brands' queue and calendar, and no other user's brand", async () => {
    await h.rt.importWorkspace({
      brands: [{ title: 'Harbor Bakery', timezone: 'Europe/Paris', channels: [], collections: [] }],
      users: [{ name: 'Bo', timezone: 'UTC', apiKey: 'user-b-key-0123456789', brands: ['Harbor Bakery'] }],
    });
    const { resources } = await h.client.listResources();
    expect(resources.map((r) => [r.uri, r.name, r.mimeType])).toEqual([
      ['social-publisher://brands/1/queue', 'Northwind Coffee queue', 'application/json'],
      ['social-publisher://brands/2/queue', 'Kite & Key Studio queue', 'application/json'],
      ['social-publisher://brands/1/calendar', 'Northwind Coffee calendar', 'application/json'],
      ['social-publisher://brands/2/calendar', 'Kite & Key Studio calendar', 'application/json'],
    ]);
  });
});

describe('reading a brand resource', () => {
  it('returns the queue exactly as the service gives it', async () => {
    await create({ publishMode: 'QUEUE' });
    await create({ publishMode: 'QUEUE', caption: 'Second' });
    const queue = await read('social-publisher://brands/1/queue');
    const expected = await h.rt.service.getQueue({ brandId: 1 });
    expect(expected.queued).toHaveLength(2);
    expect(queue).toEqual(JSON.parse(JSON.stringify(expected)));

    const tokyo = await read('social-publisher://brands/2/queue');
    expect(tokyo).toMatchObject({ brandId: 2, timezone: 'Asia/Tokyo', localNow: '2026-11-21 21:00:00' });
  });

  it('returns the queued and scheduled posts soonest first, not drafts or published posts', async () => {
    const late = await create({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-25 08:00:00' });
    const q1 = await create({ publishMode: 'QUEUE' }); // 2026-11-21 09:00
    await create({ publishMode: 'DRAFT', scheduledAt: '2026-11-21 10:00:00' });
    const early = await create({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-21 10:30:00' });
    const q2 = await create({ publishMode: 'QUEUE', caption: 'Two' }); // 2026-11-21 12:00
    await create({ publishMode: 'IMMEDIATE', caption: 'Now' });

    const calendar = (await read('social-publisher://brands/1/calendar')) as {
      brandId: number;
      total: number;
      posts: Array<{ id: number }>;
    };
    expect(calendar.posts.map((post) => post.id)).toEqual([q1, early, q2, late]);
    expect(calendar.brandId).toBe(1);
    expect(calendar.total).toBe(4);
    // The same posts list_posts gives, in its calendar order.
    const all = await h.rt.service.listPosts({ brandId: 1, order: 'calendar', per_page: 100 });
    const upcoming = all.data.filter((post) => post.status === 'queued' || post.status === 'scheduled');
    expect(calendar.posts).toEqual(JSON.parse(JSON.stringify(upcoming)));

    expect(await read('social-publisher://brands/2/calendar')).toEqual({ brandId: 2, total: 0, posts: [] });
  });

  it("refuses a brand that does not exist, another user's brand and an id that is not digits", async () => {
    await h.rt.importWorkspace({
      brands: [{ title: 'Harbor Bakery', timezone: 'Europe/Paris', channels: [], collections: [] }],
      users: [{ name: 'Bo', timezone: 'UTC', apiKey: 'user-b-key-0123456789', brands: ['Harbor Bakery'] }],
    });
    for (const [uri, id] of [
      ['social-publisher://brands/9/queue', 9],
      ['social-publisher://brands/3/calendar', 3], // Harbor Bakery: Bo's
    ] as const) {
      const error = await readError(uri);
      expect(error.code).toBe(RESOURCE_NOT_FOUND);
      expect(error.data).toEqual({ uri });
      expect(error.message).toBe(
        `MCP error -32602: Brand ${id} not found: call list_brands for the brands you can use.`,
      );
    }
    const letters = await readError('social-publisher://brands/north/queue');
    expect(letters.code).toBe(RESOURCE_NOT_FOUND);
    expect(letters.data).toEqual({ uri: 'social-publisher://brands/north/queue' });
    expect(letters.message).toContain('brandId must be an id in digits');
  });
});
