/**
 * The post preview MCP App over the protocol, with the real SDK client: a client that declares the
 * `io.modelcontextprotocol/ui` extension sees the page in resources/list, reads it, finds it named in
 * create_post's, get_post's and update_post's `_meta.ui`, and gets the preview's data in those tools'
 * result `_meta`; a client without it sees none of that, and both get the same text and structured
 * result. Demo brand Northwind Coffee, collection 1 "Everywhere": 12 platforms, Pinterest INACTIVE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_CAPABILITIES } from '../../src/domain/capabilities.js';
import { textLength } from '../../src/domain/preflight.js';
import type { ChannelPreview, PostPreview } from '../../src/mcp/post-preview.js';
import { APP_MIME_TYPE, POST_PREVIEW_URI } from '../../src/mcp/post-preview-app.js';
import {
  APPS,
  DRY_RUN,
  gradientPng,
  LONG_CAPTION,
  previewOf,
  withUploads,
} from '../support/post-preview-fixtures.js';
import { type McpHarness, openMcpHarness, PNG_1X1 } from './harness.js';

const channel = (preview: PostPreview, type: string) =>
  preview.channels.find((c) => c.type === type) as ChannelPreview;

let apps: McpHarness;
let plain: McpHarness;

beforeAll(async () => {
  [apps, plain] = await Promise.all([openMcpHarness({ capabilities: APPS }), openMcpHarness()]);
});

afterAll(async () => {
  await Promise.all([apps.close(), plain.close()]);
});

describe('the page and the tools that show it', () => {
  it('a client with the extension: tools name the page, resources/list shows it, resources/read serves it', async () => {
    const named = apps.tools
      .filter(
        (tool) => (tool._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri === POST_PREVIEW_URI,
      )
      .map((tool) => tool.name);
    expect(named).toEqual(['create_post', 'get_post', 'update_post']);
    const createPost = apps.tools.find((tool) => tool.name === 'create_post')!;
    expect(createPost._meta).toEqual({
      ui: { resourceUri: POST_PREVIEW_URI },
      'ui/resourceUri': POST_PREVIEW_URI,
    });
    const { resources } = await apps.client.listResources();
    // The queue calendar's page is the other (queue-calendar.test.ts).
    expect(resources.filter((r) => r.uri === POST_PREVIEW_URI)).toEqual([
      expect.objectContaining({ uri: POST_PREVIEW_URI, mimeType: APP_MIME_TYPE }),
    ]);
    const { contents } = await apps.client.readResource({ uri: POST_PREVIEW_URI });
    expect(contents).toHaveLength(1);
    const [page] = contents as [{ uri: string; mimeType: string; text: string; _meta: unknown }];
    expect(page.uri).toBe(POST_PREVIEW_URI);
    expect(page.mimeType).toBe(APP_MIME_TYPE);
    expect(page._meta).toEqual({ ui: { prefersBorder: true } });
    expect(page.text).toMatch(/^<!doctype html>/);
    expect(page.text).toContain("'ui/initialize'");
    // One document, nothing fetched: no src= or href= and no import.
    expect(page.text).not.toMatch(/\b(src|href)=|import\(|@import/);
    expect(Buffer.byteLength(page.text)).toBeLessThan(32 * 1024);
  });

  it('a client without it: no _meta on tools, no page in resources/list, no preview in results', async () => {
    expect(plain.tools.filter((tool) => tool._meta !== undefined)).toEqual([]);
    const { resources } = await plain.client.listResources();
    expect(resources.filter((r) => r.uri.startsWith('ui://'))).toEqual([]);
    const { resourceTemplates } = await plain.client.listResourceTemplates();
    expect(resourceTemplates.filter((t) => t.uriTemplate.startsWith('ui://'))).toEqual([]);
    await expect(plain.client.readResource({ uri: POST_PREVIEW_URI })).rejects.toThrow(/disabled/);
    const result = await plain.call('create_post', DRY_RUN);
    expect(result._meta).toBeUndefined();
  });

  it('the text and structured result are the same with and without apps', async () => {
    const [withApps, without] = await Promise.all([
      apps.call('create_post', DRY_RUN),
      plain.call('create_post', DRY_RUN),
    ]);
    expect(withApps.content).toEqual(without.content);
    expect(withApps.structuredContent).toEqual(without.structuredContent);
    expect(previewOf(withApps)).toBeDefined();
  });
});

describe('what the preview says of each channel', () => {
  let preview: PostPreview;
  let warnings: Array<{ channelId: number; channelName: string }>;

  beforeAll(async () => {
    const result = await apps.call('create_post', DRY_RUN);
    preview = previewOf(result);
    warnings = (result.structuredContent as { data: { warnings: typeof warnings } }).data.warnings;
  });

  it('every channel of the collection, with the time in the brand timezone and UTC', () => {
    expect(preview.channels).toHaveLength(12);
    expect(preview).toMatchObject({ postId: null, status: 'preview', timezone: 'America/New_York' });
    expect(preview.time).toEqual({
      scheduledAt: '2026-11-24 09:00:00',
      local: expect.stringContaining('Tuesday, November 24, 2026 at 09:00'),
      utc: '2026-11-24T14:00:00.000Z',
    });
  });

  it('X: the text it receives (caption, link, question), counted as X counts it and cut at 280', () => {
    const x = channel(preview, 'X/Twitter');
    expect(x.text).toBe(`${LONG_CAPTION}\n\nhttps://northwind.example/winter\n\nWhich roast?`);
    expect(x.length).toBe(textLength(x.text, PLATFORM_CAPABILITIES['X/Twitter']));
    expect(x.limit).toBe(280);
    expect(textLength(x.text.slice(0, x.fits), PLATFORM_CAPABILITIES['X/Twitter'])).toBeLessThanOrEqual(280);
    // One more character would be past the limit.
    const next = [...new Intl.Segmenter().segment(x.text.slice(x.fits))][0]!.segment;
    expect(textLength(x.text.slice(0, x.fits) + next, PLATFORM_CAPABILITIES['X/Twitter'])).toBeGreaterThan(
      280,
    );
    expect(x.media.map((m) => m.beyondLimit)).toEqual([false, false, false, false, true]);
    expect(x.poll).toMatchObject({ question: 'Which roast?', as: 'native' });
    expect(x.action).toBe('fail');
  });

  it('Bluesky counts graphemes and bytes; Facebook takes it whole; Instagram drops the poll', () => {
    const bluesky = channel(preview, 'Bluesky');
    expect(bluesky.unit).toBe('characters (as people see them)');
    expect(bluesky.bytes).toEqual({ count: Buffer.byteLength(bluesky.text), limit: 3000 });
    const facebook = channel(preview, 'Facebook');
    expect(facebook.fits).toBe(facebook.text.length);
    expect(facebook.text).toBe(`${LONG_CAPTION}\n\nhttps://northwind.example/winter`);
    expect(channel(preview, 'Instagram').poll?.as).toBe('dropped');
    expect(facebook.comment).toEqual({ text: 'Order ahead in the app', delaySeconds: 60, posted: true });
  });

  it('each pre-flight warning sits beside its channel, and only there', () => {
    const placed = preview.channels.flatMap((c) => c.warnings.map((w) => ({ ...w, on: c.channelId })));
    expect(placed).toHaveLength(warnings.length);
    for (const warning of placed) expect(warning.channelId).toBe(warning.on);
    const pinterest = channel(preview, 'Pinterest');
    expect(pinterest.action).toBe('fail');
    expect(pinterest.reason).toContain('INACTIVE');
  });
});

describe('uploaded images', () => {
  const upload = async (bytes: Buffer, filename: string) =>
    (
      (await apps.call('upload_media', { brandId: 1, base64: bytes.toString('base64'), filename }))
        .structuredContent as {
        data: { id: string };
      }
    ).data.id;

  it('a small one is shown as a data: thumbnail of the file itself; a large one and a URL are only named', async () => {
    const small = gradientPng(48, [255, 140, 0], [120, 40, 200]);
    const large = Buffer.concat([PNG_1X1, Buffer.alloc(100 * 1024)]);
    const ids = [await upload(small, 'small.png'), await upload(large, 'large.png')];
    const preview = previewOf(
      await apps.call('create_post', { ...withUploads(ids), alt: 'Winter blend bags' }),
    );
    expect(preview.thumbnails).toEqual({ 0: `data:image/png;base64,${small.toString('base64')}` });
    expect(preview.alt).toBe('Winter blend bags');
    expect(channel(preview, 'Facebook').media.map((m) => m.label)).toEqual([
      `Uploaded media ${ids[0]}`,
      `Uploaded media ${ids[1]}`,
      'From cdn.example.com',
      'From cdn.example.com',
      'From cdn.example.com',
    ]);
  });
});

describe('the buttons: tool calls that create and change the post', () => {
  it('save as draft creates one post however often it is pressed; then schedule and publish change it', async () => {
    const { actions } = previewOf(await apps.call('create_post', DRY_RUN));
    expect(actions!.saveDraft.name).toBe('create_post');
    expect(actions!.saveDraft.arguments).not.toHaveProperty('dryRun');
    const before = (await apps.call('list_posts', { brandId: 1 })).structuredContent as {
      pagination: { total: number };
    };
    const first = await apps.call(actions!.saveDraft.name, actions!.saveDraft.arguments);
    const again = await apps.call(actions!.saveDraft.name, actions!.saveDraft.arguments);
    const after = (await apps.call('list_posts', { brandId: 1 })).structuredContent as typeof before;
    expect(after.pagination.total).toBe(before.pagination.total + 1);
    const draft = previewOf(first);
    expect(draft).toMatchObject({ status: 'draft', time: null });
    expect(previewOf(again).postId).toBe(draft.postId);
    expect(draft.actions!.schedule).toEqual({
      name: 'update_post',
      arguments: { brandId: 1, postId: draft.postId, publishMode: 'SCHEDULE' },
    });
    const scheduled = await apps.call('update_post', {
      ...draft.actions!.schedule.arguments,
      scheduledAt: '2026-11-25 10:30:00',
    });
    expect(previewOf(scheduled)).toMatchObject({
      status: 'scheduled',
      time: { utc: '2026-11-25T15:30:00.000Z' },
    });
    const fetched = previewOf(await apps.call('get_post', { brandId: 1, postId: draft.postId }));
    expect(fetched.status).toBe('scheduled');
    // get_post has no warnings of its own: the preview's come from a dry run of the stored content.
    expect(channel(fetched, 'Pinterest').warnings.length).toBeGreaterThan(0);
    expect(fetched.actions!.publishNow).toEqual({
      name: 'publish_post',
      arguments: { brandId: 1, postId: draft.postId },
    });
  });
});
