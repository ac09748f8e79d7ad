/**
 * Every kind of hint a failed tool call's text can carry, once each, word for word: the mutation run of
 * 2026-11-25 (docs/mutation.md) found most of them said by no test. Ids to pass and where to find them,
 * what a field of the wrong type takes, times written the wrong way, a DST gap across midnight, the
 * field a typo meant at each edit distance the matching allows, the media hints, a post that can no
 * longer change, a resource that is not found, and a remote server that refuses the key. Through the
 * real SDK client, on the test runtime's clock (2026-11-21 12:00:00 UTC).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpApp, listen } from '../../src/http/serve.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { Workspace } from '../../src/publish/connectors/schemas.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { RemotePublishingService } from '../../src/remote/remote-service.js';
import { openTestRuntime } from '../support/local.js';
import { type McpHarness, openMcpHarness, textOf } from './harness.js';

const INVALID = 'The given data was invalid.';
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function harness(options?: Parameters<typeof openMcpHarness>[0]): Promise<McpHarness> {
  const h = await openMcpHarness(options);
  closers.push(async () => {
    expect(h.logged).toEqual([]);
    await h.close();
  });
  return h;
}

function lines(result: CallToolResult): string[] {
  expect(result.isError, textOf(result)).toBe(true);
  return textOf(result).split('\n');
}

const draft = (extra: Record<string, unknown>) => ({
  brandId: 1,
  collectionId: 1,
  publishMode: 'DRAFT',
  caption: 'Fresh roast today',
  ...extra,
});

describe('ids', () => {
  it('names the list call that shows each id, when missing, of the wrong type or out of range', async () => {
    const { call } = await harness();
    const { collectionId: _, ...noCollection } = draft({});
    expect(lines(await call('create_post', noCollection))).toEqual([
      INVALID,
      '- collectionId: The collection id field is required. Pass collectionId, an id from list_collections with the brandId.',
    ]);
    expect(lines(await call('get_post', { brandId: 1 }))).toEqual([
      INVALID,
      '- postId: The post id field is required. Pass postId, an id from list_posts with the brandId.',
    ]);
    expect(lines(await call('get_channel', { brandId: 1 }))).toEqual([
      INVALID,
      '- channelId: The channel id field is required. Pass channelId, an id from list_channels with the brandId.',
    ]);
    expect(lines(await call('create_post', draft({ brandId: 'one' })))).toEqual([
      INVALID,
      '- brandId: The brand id must be an integer. Pass an integer id from list_brands.',
    ]);
    expect(lines(await call('create_post', draft({ brandId: 0 })))).toEqual([
      INVALID,
      '- brandId: The brand id must be at least 1. Pass an id from list_brands.',
    ]);
  });

  it('says where to find a channel that is not found, with a full stop before the hint', async () => {
    const { call } = await harness();
    expect(lines(await call('get_channel', { brandId: 1, channelId: 999 }))).toEqual([
      "Channel not found. Call list_channels with the brandId to see the brand's channel ids.",
    ]);
    const playlist = { youtube: { playlists: [{ channelId: 999, playlistIds: ['PL1'] }] } };
    expect(lines(await call('create_post', draft({ platforms: playlist })))).toEqual([
      "Channel not found or does not belong to the brand. Call list_channels with the brandId to see the brand's channel ids.",
    ]);
  });
});

describe('fields of the wrong type say what they take', () => {
  it('a text, true or false, a list, a local time', async () => {
    const { call } = await harness();
    const wrong = await call(
      'create_post',
      draft({ caption: 5, postAsStory: 'maybe', media: 'x', publishMode: 'SCHEDULE', scheduledAt: 5 }),
    );
    expect(lines(wrong).slice(1).sort()).toEqual(
      [
        '- caption: The caption must be a string. Pass a text of 1 to 3000 characters.',
        '- postAsStory: The post as story field must be true or false. Pass true or false.',
        '- media: The media must be an array. Pass a list of items (each an object with any of id, url).',
        "- scheduledAt: The scheduled at must be a string. Pass a local time in the brand's timezone, written Y-m-d H:i:s.",
      ].sort(),
    );
    expect(lines(await call('create_post', draft({ media: [{}] })))).toEqual([
      INVALID,
      '- media.0: The media.0 must have either an id or a url, not both. Pass id (from upload_media) or url.',
    ]);
  });
});

describe('times', () => {
  const at = (scheduledAt: string) => draft({ publishMode: 'SCHEDULE', scheduledAt });
  const FORMAT = 'The scheduled at does not match the format Y-m-d H:i:s.';

  it("rewrites a date, an ISO time with an offset (trimmed), or says the format with the brand's time", async () => {
    const { call } = await harness();
    expect(lines(await call('create_post', at('2026-12-01')))[1]).toBe(
      `- scheduledAt: ${FORMAT} Write it as 2026-12-01 00:00:00 for the start of that day.`,
    );
    expect(lines(await call('create_post', at(' 2026-12-01T10:00:00.5+0100 ')))[1]).toBe(
      `- scheduledAt: ${FORMAT} 2026-12-01T10:00:00.5+0100 is 2026-12-01 04:00:00 in the brand's timezone (America/New_York): pass that.`,
    );
    for (const text of ['tomorrow', 'x2026-12-01T10:00:00Z', '2026-12-01T10:00:00Zx', '2026-12-01x']) {
      expect(lines(await call('create_post', at(text)))[1], text).toBe(
        `- scheduledAt: ${FORMAT} Write it as Y-m-d H:i:s in the brand's timezone, e.g. 2026-11-21 07:00:00 (now in America/New_York).`,
      );
    }
    expect(lines(await call('create_post', at('9999-12-31 23:59:59')))).toEqual([
      INVALID,
      '- scheduledAt: The scheduled at must be before 10000-01-01 00:00:00 UTC. Pick an earlier date.',
    ]);
  });

  it('names both days when a DST gap spans midnight (Santiago)', async () => {
    const workspace: Workspace = {
      brands: [
        {
          title: 'Santiago Beans',
          timezone: 'America/Santiago',
          channels: [{ name: 'Beans on X', type: 'X/Twitter' }],
          collections: [{ title: 'All', channels: ['Beans on X'] }],
        },
      ],
      users: [{ name: 'Sol', timezone: 'UTC', apiKey: 'sol-key-0123456789', brands: ['Santiago Beans'] }],
    };
    const { call } = await harness({ workspace, apiKey: 'sol-key-0123456789' });
    const brandId = ((await call('list_brands')).structuredContent as { data: Array<{ id: number }> })
      .data[0]!.id;
    const collections = (await call('list_collections', { brandId })).structuredContent as {
      data: Array<{ id: number }>;
    };
    const result = await call('create_post', {
      ...at('2027-09-05 00:30:00'),
      brandId,
      collectionId: collections.data[0]!.id,
    });
    expect(lines(result)).toEqual([
      INVALID,
      '- scheduledAt: The scheduled at does not exist in the America/Santiago timezone. The clocks in America/Santiago go from 2027-09-04 23:59:59 straight to 2027-09-05 01:00:00: use 2027-09-04 23:59:59 or 2027-09-05 01:00:00 (or any other time).',
    ]);
  });
});

describe('typos: the field meant, within 1 edit up to 4 letters, 2 up to 8, 3 beyond', () => {
  const FIELDS =
    'create_post takes brandId, collectionId, publishMode, caption, poll, title, alt, link, scheduledAt, postAsStory, comment, media, platforms, idempotencyKey, dryRun.';
  const cases: Array<[string, string]> = [
    ['lnik', 'Did you mean link?'], // two letters swapped: one edit
    ['lirn', FIELDS], // 4 letters, 2 edits
    ['qitlw', 'Did you mean title?'], // 5 letters, 2 edits
    ['cabsion', 'Did you mean caption?'], // 7 letters, 2 edits
    ['kabzion', FIELDS], // 7 letters, 3 edits
    ['kaptjonq', FIELDS], // 8 letters, 3 edits
    ['kaptionqq', 'Did you mean caption?'], // 9 letters, 3 edits
    ['cap', FIELDS], // too short to be read as the start of a name
    ['capt', 'Did you mean caption?'], // the start of a name
    ['captionText', 'Did you mean caption?'], // a name and more
    ['apolt', 'Did you mean poll or alt?'], // as close to two
  ];

  it.each(cases)('%s', async (typo, hint) => {
    const { call } = await harness();
    expect(lines(await call('create_post', draft({ [typo]: 1 })))).toEqual([
      INVALID,
      `- ${typo}: The ${typo.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()} field is not allowed. ${hint}`,
    ]);
  });

  it('nested two deep, and in camelCase for snake_case', async () => {
    const { call } = await harness();
    expect(lines(await call('create_post', draft({ platforms: { x: { captoin: 'Hi' } } })))).toEqual([
      INVALID,
      '- platforms.x.captoin: The platforms.x.captoin field is not allowed. Did you mean platforms.x.caption?',
    ]);
    expect(lines(await call('list_brands', { perPage: 5 }))).toEqual([
      INVALID,
      '- perPage: The per page field is not allowed. Did you mean per_page?',
    ]);
  });
});

describe('media, posts that can no longer change, a refused key', () => {
  it('upload_media: an empty file, a file of another type', async () => {
    const { call } = await harness();
    expect(lines(await call('upload_media', { brandId: 1, base64: '', filename: 'beans.png' }))).toEqual([
      INVALID,
      '- media: The media field is required. The file given is empty: pass one with content.',
    ]);
    const text = Buffer.from('a text, not an image').toString('base64');
    expect(lines(await call('upload_media', { brandId: 1, base64: text, filename: 'beans.png' }))).toEqual([
      INVALID,
      "- media: The media must be a file of type: png, jpg, jpeg, mp4, mov, pdf. Convert the file to one of those types: the type is read from the file's bytes, not its name.",
    ]);
  });

  it('a post already published: create a new one', async () => {
    const { call, rt } = await harness();
    const created = await call('create_post', draft({ publishMode: 'IMMEDIATE' }));
    const postId = (created.structuredContent as { data: { id: number } }).data.id;
    const { store } = rt.runtime;
    await new Scheduler({
      store,
      clock: rt.clock,
      publisher: new SandboxPublisher(store.sandbox, rt.clock),
    }).runOnce();
    const status = (
      (await call('get_post', { brandId: 1, postId })).structuredContent as { data: { status: string } }
    ).data.status;
    expect(lines(await call('update_post', { brandId: 1, postId, caption: 'Later' }))).toEqual([
      INVALID,
      `- postId: The post ${postId} is ${status.replace('_', ' ')}: only draft, queued and scheduled posts can be changed. Create a new post with create_post instead.`,
    ]);
  });

  it("remote mode: the server's refusal of the key, and that retrying will not help", async () => {
    const rt = await openTestRuntime();
    const http = createHttpApp({ runtime: rt.runtime, version: 'test', loopbackOnly: true, log: () => {} });
    const listening = await listen(http, { host: '127.0.0.1', port: 0 });
    const remote = new RemotePublishingService({
      baseUrl: `${listening.url}/v1`,
      apiKey: 'not-a-key-of-anyone-000',
      maxRetries: 0,
    });
    const server = createMcpServer(remote, { name: 'social-publisher-mcp', version: 'test', log: () => {} });
    const client = new Client({ name: 'remote-test', version: '1.0.0' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    await client.connect(clientTransport);
    closers.push(async () => {
      await client.close();
      await server.close();
      await remote.close();
      await listening.close();
      await rt.close();
    });
    const result = (await client.callTool({ name: 'list_brands', arguments: {} })) as CallToolResult;
    expect(lines(result)).toEqual([
      `The server at ${listening.url}/v1 refused the API key (401 Unauthenticated). Check SOCIAL_PUBLISHER_API_KEY (the key of your user on that server) and SOCIAL_PUBLISHER_API_URL. Retrying will not help; tell the user.`,
    ]);
  });
});
