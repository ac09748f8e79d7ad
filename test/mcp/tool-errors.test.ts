/**
 * Every tool fails the documented ways as a tool result with isError (never a JSON-RPC error), its
 * structured content the spec's error body exactly, its text every field error. callTool resolving
 * means the client's own output-schema validation accepted the error body.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BRAND_NOT_FOUND,
  COLLECTION_NOT_FOUND,
  invalid,
  type McpHarness,
  notFound,
  openMcpHarness,
  textOf,
  writePng,
} from './harness.js';

const CAPTION_REQUIRED = 'The caption field is required when poll is not present.';
const MEDIA_TYPE = 'The media must be a file of type: png, jpg, jpeg, mp4, mov, pdf.';
const PLAYLIST_404 = 'Channel not found or does not belong to the brand';

let h: McpHarness;

beforeEach(async () => {
  h = await openMcpHarness();
});

afterEach(async () => {
  expect(h.logged).toEqual([]);
  await h.close();
});

/** Calls a tool expecting a failure result; returns its body after checking the text names every error. */
async function fail(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result: CallToolResult = await h.call(name, args);
  expect(result.isError, JSON.stringify(result.structuredContent)).toBe(true);
  const body = result.structuredContent as { message: string; errors: Record<string, string | string[]> };
  const text = textOf(result);
  expect(text).toContain(body.message);
  for (const [field, messages] of Object.entries(body.errors)) {
    for (const message of [messages].flat()) {
      expect(text, field).toContain(message);
    }
  }
  return body;
}

const post = (extra: Record<string, unknown>) => ({
  brandId: 1,
  collectionId: 1,
  publishMode: 'DRAFT',
  caption: 'Hello',
  ...extra,
});

describe('read tools', () => {
  it('get_profile refuses an unknown argument', async () => {
    expect(await fail('get_profile', { verbose: true })).toEqual(
      invalid({ verbose: ['The verbose field is not allowed.'] }),
    );
  });

  it('list_brands validates pagination, every failure at once', async () => {
    expect(await fail('list_brands', { per_page: 101 })).toEqual(
      invalid({ per_page: ['The per page may not be greater than 100.'] }),
    );
    expect(await fail('list_brands', { page: 0, per_page: 0 })).toEqual(
      invalid({ page: ['The page must be at least 1.'], per_page: ['The per page must be at least 1.'] }),
    );
  });

  it('list_channels and list_collections answer 404 for an unknown brand', async () => {
    expect(await fail('list_channels', { brandId: 999 })).toEqual(BRAND_NOT_FOUND);
    expect(await fail('list_collections', { brandId: 999 })).toEqual(BRAND_NOT_FOUND);
  });

  it('list_channels requires an integer brandId', async () => {
    expect(await fail('list_channels', {})).toEqual(
      invalid({ brandId: ['The brand id field is required.'] }),
    );
    expect(await fail('list_collections', { brandId: 'first' })).toEqual(
      invalid({ brandId: ['The brand id must be an integer.'] }),
    );
  });
});

describe('upload_media', () => {
  it("rejects a text file with the spec's type message and keeps nothing", async () => {
    const path = join(h.rt.dataDir, 'notes.png');
    writeFileSync(path, 'just some text, not an image\n');
    expect(await fail('upload_media', { brandId: 1, path })).toEqual(invalid({ media: [MEDIA_TYPE] }));
  });

  it('treats an empty file as missing', async () => {
    const path = join(h.rt.dataDir, 'empty.png');
    writeFileSync(path, '');
    expect(await fail('upload_media', { brandId: 1, path })).toEqual(
      invalid({ media: ['The media field is required.'] }),
    );
  });

  it('answers 404 for an unknown brand and 422 on path for a missing or relative file', async () => {
    const png = writePng(h.rt.dataDir);
    expect(await fail('upload_media', { brandId: 999, path: png })).toEqual(BRAND_NOT_FOUND);
    const missing = await fail('upload_media', { brandId: 1, path: join(h.rt.dataDir, 'nope.png') });
    expect(Object.keys(missing.errors as object)).toEqual(['path']);
    const relative = await fail('upload_media', { brandId: 1, path: 'pixel.png' });
    expect(Object.keys(relative.errors as object)).toEqual(['path']);
    expect(await fail('upload_media', { brandId: 1 })).toEqual(
      invalid({ media: ['The media field is required.'] }),
    );
  });
});

describe('create_post', () => {
  it('requires a caption when there is no poll', async () => {
    expect(await fail('create_post', post({ caption: undefined }))).toEqual(
      invalid({ caption: [CAPTION_REQUIRED] }),
    );
  });

  it('answers 404 for an unknown brand, and for a collection of no or another brand', async () => {
    expect(await fail('create_post', post({ brandId: 999 }))).toEqual(BRAND_NOT_FOUND);
    expect(await fail('create_post', post({ collectionId: 999 }))).toEqual(COLLECTION_NOT_FOUND);
    expect(await fail('create_post', post({ collectionId: 5 }))).toEqual(COLLECTION_NOT_FOUND);
    expect(await fail('create_post', post({ brandId: 2, collectionId: 1 }))).toEqual(COLLECTION_NOT_FOUND);
  });

  it('answers 404 keyed by the playlist path for a channel unknown or of another brand', async () => {
    const playlists = (channelIds: number[]) => ({
      platforms: {
        youtube: { playlists: channelIds.map((channelId) => ({ channelId, playlistIds: ['PL1'] })) },
      },
    });
    expect(await fail('create_post', post(playlists([999])))).toEqual(
      notFound('platforms.youtube.playlists.0.channelId', PLAYLIST_404),
    );
    // Channel 13 is Kite & Key Studio's, not Northwind Coffee's.
    expect(await fail('create_post', post(playlists([6, 13])))).toEqual(
      notFound('platforms.youtube.playlists.1.channelId', PLAYLIST_404),
    );
  });

  it('checks publishMode and scheduledAt', async () => {
    expect(await fail('create_post', post({ publishMode: undefined }))).toEqual(
      invalid({ publishMode: ['The publish mode field is required.'] }),
    );
    expect(await fail('create_post', post({ publishMode: 'LATER' }))).toEqual(
      invalid({ publishMode: ['The selected publish mode is invalid.'] }),
    );
    expect(await fail('create_post', post({ publishMode: 'SCHEDULE' }))).toEqual(
      invalid({ scheduledAt: ['The scheduled at field is required when publish mode is SCHEDULE.'] }),
    );
    // Now is 07:00 in New York: 07:00 is not strictly in the future.
    for (const scheduledAt of ['2026-11-21 06:59:59', '2026-11-21 07:00:00']) {
      expect(await fail('create_post', post({ publishMode: 'SCHEDULE', scheduledAt }))).toEqual(
        invalid({ scheduledAt: ['The scheduled at must be a future date.'] }),
      );
    }
    expect(
      await fail('create_post', post({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-24T09:00:00Z' })),
    ).toEqual(invalid({ scheduledAt: ['The scheduled at does not match the format Y-m-d H:i:s.'] }));
  });

  it('refuses a non-DRAFT post in a collection without channels, on collectionId', async () => {
    const body = await fail('create_post', post({ collectionId: 4, publishMode: 'QUEUE' }));
    expect(body).toMatchObject({ status: 'error', message: 'The given data was invalid.' });
    expect(Object.keys(body.errors as object)).toEqual(['collectionId']);
    expect(String((body.errors as Record<string, string[]>).collectionId)).toContain('no channels');
  });

  it('refuses an unknown field instead of ignoring a typo', async () => {
    expect(await fail('create_post', post({ caption: undefined, captoin: 'Hello' }))).toEqual(
      invalid({ captoin: ['The captoin field is not allowed.'], caption: [CAPTION_REQUIRED] }),
    );
  });

  it('reports several errors of one call together', async () => {
    const body = await fail('create_post', {
      brandId: 1,
      collectionId: 1,
      publishMode: 'SOON',
      caption: 'x'.repeat(3001),
      title: 't'.repeat(256),
      link: 'not a url',
      poll: { question: 'Which?', options: ['o'.repeat(31)], period: '2d' },
      media: [{ id: 'med_unknown', url: 'https://example.com/a.png' }],
    });
    expect(body).toEqual(
      invalid({
        publishMode: ['The selected publish mode is invalid.'],
        caption: ['The caption may not be greater than 3000 characters.'],
        title: ['The title may not be greater than 255 characters.'],
        link: ['The link format is invalid.'],
        'poll.options': ['The poll.options must have at least 2 items.'],
        'poll.options.0': ['The poll.options.0 may not be greater than 30 characters.'],
        'poll.period': ['The selected poll.period is invalid.'],
        'media.0': ['The media.0 must have either an id or a url, not both.'],
        'media.0.id': ['The selected media.0.id is invalid.'],
      }),
    );
  });
});

describe('protocol errors', () => {
  it('rejects an unknown tool with a JSON-RPC error and keeps serving', async () => {
    await expect(h.client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toThrow(
      /delete_everything/,
    );
    const after = await h.call('get_profile');
    expect(after.isError ?? false).toBe(false);
  });
});
