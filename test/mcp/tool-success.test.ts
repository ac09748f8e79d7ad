/**
 * Every tool succeeds through the real SDK client (which validates structuredContent against the
 * declared outputSchema): structured content is the REST body, text a short summary.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type McpHarness, openMcpHarness, PNG_1X1, textOf, writePng } from './harness.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

let h: McpHarness;

beforeEach(async () => {
  h = await openMcpHarness();
});

afterEach(async () => {
  // Nothing a successful call does may reach the server's unexpected-error log.
  expect(h.logged).toEqual([]);
  await h.close();
});

function expectSuccess(result: CallToolResult, paginated: boolean): Record<string, unknown> {
  expect(result.isError ?? false, textOf(result)).toBe(false);
  const body = result.structuredContent as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(paginated ? ['data', 'pagination', 'status'] : ['data', 'status']);
  expect(body.status).toBe('success');
  expect(textOf(result).trim().length).toBeGreaterThan(0);
  return body;
}

describe('read tools', () => {
  it('get_profile returns the acting user', async () => {
    const result = await h.call('get_profile');
    const body = expectSuccess(result, false);
    expect(body.data).toEqual(await h.rt.service.getProfile());
    expect(body.data).toMatchObject({ name: 'Demo User', timezone: 'Europe/London' });
    expect((body.data as { joinedAt: string }).joinedAt).toMatch(TIMESTAMP);
    expect(textOf(result)).toContain('Demo User');
  });

  it('list_brands returns the REST list body with pagination', async () => {
    const result = await h.call('list_brands');
    const body = expectSuccess(result, true);
    expect(body.data).toEqual((await h.rt.service.listBrands({})).data);
    expect((body.data as Array<{ title: string }>).map((b) => b.title)).toEqual([
      'Northwind Coffee',
      'Kite & Key Studio',
    ]);
    expect(body.pagination).toEqual({
      currentPage: 1,
      perPage: 10,
      total: 2,
      lastPage: 1,
      nextPageUrl: null,
      prevPageUrl: null,
    });
    expect(textOf(result)).toContain('Northwind Coffee');
    expect(textOf(result)).toContain('America/New_York');
  });

  it('list_channels pages through the 12 channels with neighbour page URLs', async () => {
    const result = await h.call('list_channels', { brandId: 1, page: 2, per_page: 5 });
    const body = expectSuccess(result, true);
    expect(body.data).toEqual((await h.rt.service.listChannels({ brandId: 1, page: 2, per_page: 5 })).data);
    expect(body.data).toHaveLength(5);
    const pagination = body.pagination as Record<string, unknown>;
    expect(pagination).toMatchObject({ currentPage: 2, perPage: 5, total: 12, lastPage: 3 });
    expect(Object.keys(pagination).sort()).toEqual(
      ['currentPage', 'lastPage', 'nextPageUrl', 'perPage', 'prevPageUrl', 'total'].sort(),
    );
    expect(pagination.nextPageUrl).toEqual(expect.stringContaining('page=3'));
    expect(pagination.prevPageUrl).toEqual(expect.stringContaining('page=1'));

    const last = expectSuccess(await h.call('list_channels', { brandId: 1, page: 3, per_page: 5 }), true);
    expect(last.data).toHaveLength(2);
    expect((last.pagination as Record<string, unknown>).nextPageUrl).toBeNull();
    expect((last.pagination as Record<string, unknown>).prevPageUrl).toEqual(expect.any(String));
  });

  it('list_collections embeds the channels of each collection', async () => {
    const result = await h.call('list_collections', { brandId: 1 });
    const body = expectSuccess(result, true);
    expect(body.data).toEqual((await h.rt.service.listCollections({ brandId: 1 })).data);
    const collections = body.data as Array<{ id: number; title: string; channels: unknown[] }>;
    expect(collections.map((c) => [c.id, c.title, c.channels.length])).toEqual([
      [1, 'Everywhere', 12],
      [2, 'Visual', 5],
      [3, 'Conversation', 6],
      [4, 'Newsletter', 0],
    ]);
    expect(body.pagination).toMatchObject({ currentPage: 1, total: 4, lastPage: 1 });
    expect(textOf(result)).toContain('Everywhere');
  });

  it('list_collections of the second brand shows only its collection', async () => {
    const body = expectSuccess(await h.call('list_collections', { brandId: 2 }), true);
    expect((body.data as Array<{ id: number; title: string }>).map((c) => [c.id, c.title])).toEqual([
      [5, 'All'],
    ]);
  });
});

describe('create_post', () => {
  it("SCHEDULE reads scheduledAt in the brand's timezone and states local and UTC time", async () => {
    const result = await h.call('create_post', {
      brandId: 1,
      collectionId: 1,
      publishMode: 'SCHEDULE',
      caption: 'Holiday blend is back',
      scheduledAt: '2026-11-24 09:00:00',
    });
    const body = expectSuccess(result, false);
    const data = body.data as { id: number; message: string };
    // The documented members, and the pre-flight warnings that may be added to them.
    expect(
      Object.keys(data)
        .filter((key) => key !== 'warnings')
        .sort(),
    ).toEqual(['id', 'message']);
    expect(Number.isInteger(data.id)).toBe(true);
    const text = textOf(result);
    expect(text).toContain('09:00');
    expect(text).toContain('America/New_York');
    expect(text).toContain('2026-11-24T14:00:00.000000Z');
  });

  it('SCHEDULE on the Tokyo brand resolves in Asia/Tokyo', async () => {
    const result = await h.call('create_post', {
      brandId: 2,
      collectionId: 5,
      publishMode: 'SCHEDULE',
      caption: 'New prints',
      scheduledAt: '2026-11-24 09:00:00',
    });
    expectSuccess(result, false);
    expect(textOf(result)).toContain('2026-11-24T00:00:00.000000Z');
    expect(textOf(result)).toContain('Asia/Tokyo');
  });

  it("QUEUE takes the brand's next free queue times, one after the other", async () => {
    const args = { brandId: 1, collectionId: 1, publishMode: 'QUEUE' };
    // Distinct captions: the same post twice within ten minutes is a duplicate, not a second post.
    const first = await h.call('create_post', { ...args, caption: 'Queued first' });
    const second = await h.call('create_post', { ...args, caption: 'Queued second' });
    expectSuccess(first, false);
    expectSuccess(second, false);
    // Now is 07:00 in New York: the 09:00 and 12:00 slots of the same day.
    expect(textOf(first)).toContain('2026-11-21T14:00:00.000000Z');
    expect(textOf(second)).toContain('2026-11-21T17:00:00.000000Z');
    const ids = [first, second].map((r) => (r.structuredContent as { data: { id: number } }).data.id);
    expect(ids[1]).toBeGreaterThan(ids[0]!);
  });

  it('IMMEDIATE and DRAFT succeed, with a poll instead of a caption', async () => {
    const poll = { question: 'Light or dark roast?', options: ['Light', 'Dark'], period: '1d' };
    expectSuccess(
      await h.call('create_post', { brandId: 1, collectionId: 3, publishMode: 'IMMEDIATE', poll }),
      false,
    );
    const draft = await h.call('create_post', {
      brandId: 1,
      collectionId: 4,
      publishMode: 'DRAFT',
      caption: 'Newsletter idea',
    });
    expectSuccess(draft, false);
  });
});

describe('upload_media', () => {
  it('uploads a real PNG whose id create_post then accepts', async () => {
    const path = writePng(h.rt.dataDir, 'Pixel.PNG');
    const upload = await h.call('upload_media', { brandId: 1, path });
    const body = expectSuccess(upload, false);
    const media = body.data as { id: string; type: string; size: number };
    expect(media).toEqual({ id: expect.any(String), type: 'image/png', size: PNG_1X1.length });
    expect(textOf(upload)).toContain(media.id);

    const again = expectSuccess(await h.call('upload_media', { brandId: 1, path }), false);
    expect((again.data as { id: string }).id).toBe(media.id);

    const post = await h.call('create_post', {
      brandId: 1,
      collectionId: 2,
      publishMode: 'DRAFT',
      caption: 'With a picture',
      media: [{ id: media.id }],
    });
    expectSuccess(post, false);
  });
});
