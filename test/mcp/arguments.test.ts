/**
 * How assistants really send arguments: objects and arrays as JSON strings, integers as strings of
 * digits. Accepted through the real protocol; an unparseable string still gets a clear 422.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { invalid, type McpHarness, openMcpHarness, textOf, writePng } from './harness.js';

let h: McpHarness;

beforeEach(async () => {
  h = await openMcpHarness();
});

afterEach(async () => {
  expect(h.logged).toEqual([]);
  await h.close();
});

function expectOk(result: CallToolResult): { id: number; message: string } {
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return (result.structuredContent as { data: { id: number; message: string } }).data;
}

describe('lenient arguments', () => {
  it('accepts poll as a JSON string', async () => {
    const poll = JSON.stringify({ question: 'Oat or whole milk?', options: ['Oat', 'Whole'], period: '3d' });
    const data = expectOk(
      await h.call('create_post', { brandId: 1, collectionId: 3, publishMode: 'DRAFT', poll }),
    );
    expect(Number.isInteger(data.id)).toBe(true);
  });

  it('accepts media, comment and platforms as JSON strings', async () => {
    expectOk(
      await h.call('create_post', {
        brandId: 1,
        collectionId: 1,
        publishMode: 'DRAFT',
        caption: 'Look',
        media: '[{"url":"https://example.com/a.png"}]',
        comment: '{"comment":"Shop at northwind.example","delay":60}',
        platforms: '{"youtube":{"playlists":[{"channelId":6,"playlistIds":["PL1"]}]}}',
      }),
    );
  });

  it('still validates what a JSON string contains', async () => {
    const result = await h.call('create_post', {
      brandId: 1,
      collectionId: 1,
      publishMode: 'DRAFT',
      caption: 'Look',
      media: '[{"url":"https://example.com/a.png","id":"med_x"}]',
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual(
      invalid({
        'media.0': ['The media.0 must have either an id or a url, not both.'],
        'media.0.id': ['The selected media.0.id is invalid.'],
      }),
    );
  });

  it('accepts ids and page numbers as strings of digits', async () => {
    expectOk(
      await h.call('create_post', {
        brandId: '1',
        collectionId: '2',
        publishMode: 'SCHEDULE',
        caption: 'Strings of digits',
        scheduledAt: '2026-11-25 12:00:00',
      }),
    );
    const channels = await h.call('list_channels', { brandId: '1', page: '2', per_page: '5' });
    expect(channels.isError ?? false, textOf(channels)).toBe(false);
    expect((channels.structuredContent as { pagination: unknown }).pagination).toMatchObject({
      currentPage: 2,
      perPage: 5,
      total: 12,
    });
  });

  it('uploads with brandId as a string and attaches the media given as a JSON string', async () => {
    const upload = await h.call('upload_media', { brandId: '1', path: writePng(h.rt.dataDir) });
    expect(upload.isError ?? false, textOf(upload)).toBe(false);
    const { id } = (upload.structuredContent as { data: { id: string } }).data;
    expectOk(
      await h.call('create_post', {
        brandId: 1,
        collectionId: 1,
        publishMode: 'QUEUE',
        caption: 'Pixel',
        media: JSON.stringify([{ id }]),
      }),
    );
  });

  it('answers an unparseable JSON string with a clear 422', async () => {
    const result = await h.call('create_post', {
      brandId: 1,
      collectionId: 1,
      publishMode: 'DRAFT',
      poll: '{"question": "Oat or whole?", "options": ["Oat", ',
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual(invalid({ poll: ['The poll must be an array.'] }));
    expect(textOf(result)).toContain('The poll must be an array.');
  });

  it('does not read other strings as numbers', async () => {
    const result = await h.call('list_channels', { brandId: '1.5' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual(invalid({ brandId: ['The brand id must be an integer.'] }));
  });
});
