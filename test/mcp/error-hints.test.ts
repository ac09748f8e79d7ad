/**
 * A failed tool call's text tells the assistant how to fix its call: the allowed values of an enum, the
 * brand's current local time for a past time, the times either side of a DST gap, the field a typo
 * meant, the limit and the length given, the call that lists the ids. One line per error, all of them;
 * the structured content stays the spec's error body. Through the real SDK client, on the test runtime's
 * fixed clock (2026-11-21 12:00:00 UTC: 07:00 in New York, 21:00 in Tokyo), locally and in remote mode.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpApp, listen } from '../../src/http/serve.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { Workspace } from '../../src/publish/connectors/schemas.js';
import { RemotePublishingService } from '../../src/remote/remote-service.js';
import { issueMissingApiKeys } from '../../src/service/acting-user.js';
import { openTestRuntime } from '../support/local.js';
import { invalid, type McpHarness, openMcpHarness, textOf } from './harness.js';

const INVALID = 'The given data was invalid.';
const NOW_IN_NEW_YORK =
  "It is now 2026-11-21 07:00:00 in the brand's timezone, Saturday, November 21, 2026 at 07:00 EST (America/New_York); pick a later time.";
const NEW_YORK_GAP =
  'On 2027-03-14 the clocks in America/New_York go from 01:59:59 straight to 03:00:00: use 2027-03-14 01:59:59 or 2027-03-14 03:00:00 (or any other time).';

let h: McpHarness | undefined;
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  if (h) {
    expect(h.logged).toEqual([]);
    await h.close();
    h = undefined;
  }
  for (const close of closers.splice(0)) await close();
});

async function harness(options?: Parameters<typeof openMcpHarness>[0]): Promise<McpHarness> {
  h = await openMcpHarness(options);
  return h;
}

/** The lines of a failed call's text, after checking it failed. */
function failureLines(result: CallToolResult): string[] {
  expect(result.isError, textOf(result)).toBe(true);
  return textOf(result).split('\n');
}

const post = (extra: Record<string, unknown>) => ({
  brandId: 1,
  collectionId: 1,
  publishMode: 'DRAFT',
  caption: 'Fresh roast today',
  ...extra,
});

describe('enum errors list the allowed values, from the input schema at the path', () => {
  it('publishMode', async () => {
    const { call } = await harness();
    const result = await call('create_post', post({ publishMode: 'LATER' }));
    expect(failureLines(result)).toEqual([
      INVALID,
      '- publishMode: The selected publish mode is invalid. Use one of: QUEUE, SCHEDULE, IMMEDIATE, DRAFT.',
    ]);
    // The text only: the structured content is the REST body, unchanged.
    expect(result.structuredContent).toEqual(
      invalid({ publishMode: ['The selected publish mode is invalid.'] }),
    );
    expect(failureLines(await call('create_post', post({ publishMode: 'draft' })))[1]).toBe(
      '- publishMode: The selected publish mode is invalid. Use one of: QUEUE, SCHEDULE, IMMEDIATE, DRAFT. Mind the case: DRAFT.',
    );
  });

  it('poll.period, nested', async () => {
    const { call } = await harness();
    const poll = { question: 'Oat or whole?', options: ['Oat', 'Whole'], period: '2d' };
    expect(failureLines(await call('create_post', post({ poll })))).toEqual([
      INVALID,
      '- poll.period: The selected poll.period is invalid. Use one of: 1d, 3d, 7d.',
    ]);
  });

  it("list_posts' status and order", async () => {
    const { call } = await harness();
    expect(failureLines(await call('list_posts', { brandId: 1, status: 'done', order: 'oldest' }))).toEqual([
      INVALID,
      '- status: The selected status is invalid. Use one of: draft, queued, scheduled, publishing, published, partially_published, failed, cancelled.',
      '- order: The selected order is invalid. Use one of: newest, calendar.',
    ]);
  });
});

describe("time errors give the brand's local time", () => {
  it('a past time in New York names the current time there', async () => {
    const { call } = await harness();
    for (const scheduledAt of ['2026-11-21 06:59:59', '2026-11-21 07:00:00']) {
      const result = await call('create_post', post({ publishMode: 'SCHEDULE', scheduledAt }));
      expect(failureLines(result)).toEqual([
        INVALID,
        `- scheduledAt: The scheduled at must be a future date. ${NOW_IN_NEW_YORK}`,
      ]);
      expect(result.structuredContent).toEqual(
        invalid({ scheduledAt: ['The scheduled at must be a future date.'] }),
      );
    }
  });

  it('a past time in Tokyo names the current time there, not New York', async () => {
    const { call } = await harness();
    const result = await call('create_post', {
      brandId: 2,
      collectionId: 5,
      publishMode: 'SCHEDULE',
      caption: 'Kite season',
      scheduledAt: '2026-11-21 20:00:00',
    });
    expect(failureLines(result)).toEqual([
      INVALID,
      "- scheduledAt: The scheduled at must be a future date. It is now 2026-11-21 21:00:00 in the brand's timezone, Saturday, November 21, 2026 at 21:00 GMT+9 (Asia/Tokyo); pick a later time.",
    ]);
  });

  it("follows the service's clock", async () => {
    const { call, rt } = await harness();
    rt.clock.set(Date.UTC(2026, 10, 22, 20, 4, 5));
    const result = await call(
      'create_post',
      post({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-22 15:00:00' }),
    );
    expect(failureLines(result)[1]).toBe(
      "- scheduledAt: The scheduled at must be a future date. It is now 2026-11-22 15:04:05 in the brand's timezone, Sunday, November 22, 2026 at 15:04 EST (America/New_York); pick a later time.",
    );
  });

  it('update_post gets the same hint', async () => {
    const { call } = await harness();
    const created = await call('create_post', post({}));
    const postId = (created.structuredContent as { data: { id: number } }).data.id;
    const result = await call('update_post', {
      brandId: 1,
      postId,
      publishMode: 'SCHEDULE',
      scheduledAt: '2026-11-20 09:00:00',
    });
    expect(failureLines(result)).toEqual([
      INVALID,
      `- scheduledAt: The scheduled at must be a future date. ${NOW_IN_NEW_YORK}`,
    ]);
  });

  it('a DST gap names the valid times either side (New York, one hour)', async () => {
    const { call } = await harness();
    const result = await call(
      'create_post',
      post({ publishMode: 'SCHEDULE', scheduledAt: '2027-03-14 02:30:00' }),
    );
    expect(failureLines(result)).toEqual([
      INVALID,
      `- scheduledAt: The scheduled at does not exist in the America/New_York timezone. ${NEW_YORK_GAP}`,
    ]);
  });

  it('a DST gap names the valid times either side (Lord Howe, half an hour)', async () => {
    const workspace: Workspace = {
      brands: [
        {
          title: 'Lord Howe Kiosk',
          timezone: 'Australia/Lord_Howe',
          channels: [{ name: 'Kiosk on X', type: 'X/Twitter' }],
          collections: [{ title: 'All', channels: ['Kiosk on X'] }],
        },
      ],
      users: [{ name: 'Lee', timezone: 'UTC', apiKey: 'lee-key-0123456789', brands: ['Lord Howe Kiosk'] }],
    };
    const { call } = await harness({ workspace, apiKey: 'lee-key-0123456789' });
    const brand = (await call('list_brands')).structuredContent as { data: Array<{ id: number }> };
    const brandId = brand.data[0]!.id;
    const collections = (await call('list_collections', { brandId })).structuredContent as {
      data: Array<{ id: number }>;
    };
    const result = await call('create_post', {
      brandId,
      collectionId: collections.data[0]!.id,
      publishMode: 'SCHEDULE',
      caption: 'Sunrise',
      scheduledAt: '2027-10-03 02:15:00',
    });
    expect(failureLines(result)).toEqual([
      INVALID,
      '- scheduledAt: The scheduled at does not exist in the Australia/Lord_Howe timezone. On 2027-10-03 the clocks in Australia/Lord_Howe go from 01:59:59 straight to 02:30:00: use 2027-10-03 01:59:59 or 2027-10-03 02:30:00 (or any other time).',
    ]);
  });

  it("a time in the wrong format is rewritten in the brand's time, for scheduledAt and the list filters", async () => {
    const { call } = await harness();
    expect(
      failureLines(
        await call('create_post', post({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-24T14:00:00Z' })),
      ),
    ).toEqual([
      INVALID,
      "- scheduledAt: The scheduled at does not match the format Y-m-d H:i:s. 2026-11-24T14:00:00Z is 2026-11-24 09:00:00 in the brand's timezone (America/New_York): pass that.",
    ]);
    expect(
      failureLines(await call('list_posts', { brandId: 1, from: 'yesterday', to: '2026-11-21T10:00:00' })),
    ).toEqual([
      INVALID,
      "- from: The from does not match the format Y-m-d H:i:s. Write it as Y-m-d H:i:s in the brand's timezone, e.g. 2026-11-21 07:00:00 (now in America/New_York).",
      '- to: The to does not match the format Y-m-d H:i:s. Write it as 2026-11-21 10:00:00.',
    ]);
  });

  it('a missing scheduledAt for SCHEDULE says what to pass, with the time now', async () => {
    const { call } = await harness();
    expect(failureLines(await call('create_post', post({ publishMode: 'SCHEDULE' })))).toEqual([
      INVALID,
      "- scheduledAt: The scheduled at field is required when publish mode is SCHEDULE. Pass scheduledAt, the brand's local time written Y-m-d H:i:s (it is now 2026-11-21 07:00:00 in America/New_York), or use publishMode QUEUE for the next free queue time.",
    ]);
  });
});

describe('unknown fields name the field meant', () => {
  it('captoin → caption', async () => {
    const { call } = await harness();
    const result = await call('create_post', post({ caption: undefined, captoin: 'Fresh roast today' }));
    expect(failureLines(result)).toEqual([
      INVALID,
      '- captoin: The captoin field is not allowed. Did you mean caption?',
      '- caption: The caption field is required when poll is not present. Pass caption (a text of 1 to 3000 characters), or a poll.',
    ]);
  });

  it('poll.optoins → poll.options, at its own level of the schema', async () => {
    const { call } = await harness();
    const poll = { question: 'Oat or whole?', optoins: ['Oat', 'Whole'], period: '1d' };
    const lines = failureLines(await call('create_post', post({ poll })));
    expect(lines).toContain(
      '- poll.optoins: The poll.optoins field is not allowed. Did you mean poll.options?',
    );
    expect(lines).toContain(
      '- poll.options: The poll.options field is required. Pass poll.options: a list of 2 to 4 items (each a text of 1 to 30 characters).',
    );
  });

  it('lists the known fields when nothing is close', async () => {
    const { call } = await harness();
    expect(failureLines(await call('list_brands', { verbose: true }))).toEqual([
      INVALID,
      '- verbose: The verbose field is not allowed. list_brands takes page, per_page.',
    ]);
    expect(failureLines(await call('get_profile', { verbose: true }))).toEqual([
      INVALID,
      '- verbose: The verbose field is not allowed. get_profile takes no arguments.',
    ]);
  });
});

describe('each error line says what fixes it', () => {
  it('reports every failure of one call at once, each with its fix', async () => {
    const { call } = await harness();
    const result = await call('create_post', {
      brandId: 1,
      collectionId: 1,
      publishMode: 'SOON',
      caption: 'x'.repeat(3001),
      link: 'not a url',
      poll: { question: 'Which?', options: ['o'.repeat(31)], period: '2d' },
      media: [{ id: 'med_unknown', url: 'https://example.com/a.png' }],
    });
    const lines = failureLines(result);
    const errors = (result.structuredContent as { errors: Record<string, string[]> }).errors;
    expect(lines).toHaveLength(1 + Object.values(errors).flat().length);
    expect(lines.slice(1).sort()).toEqual(
      [
        '- publishMode: The selected publish mode is invalid. Use one of: QUEUE, SCHEDULE, IMMEDIATE, DRAFT.',
        '- caption: The caption may not be greater than 3000 characters. It has 3001 characters: shorten it by 1.',
        '- link: The link format is invalid. Pass an absolute http(s) URL, e.g. https://example.com/page.',
        '- poll.options: The poll.options must have at least 2 items. It has 1 item: add 1 more.',
        '- poll.options.0: The poll.options.0 may not be greater than 30 characters. It has 31 characters: shorten it by 1.',
        '- poll.period: The selected poll.period is invalid. Use one of: 1d, 3d, 7d.',
        '- media.0: The media.0 must have either an id or a url, not both. Keep either id or url.',
        '- media.0.id: The selected media.0.id is invalid. Upload the file to this brand with upload_media first and pass the id it returns, or pass a url instead.',
      ].sort(),
    );
  });

  it('required fields, ids, pages, empty collections and unknown resources', async () => {
    const { call } = await harness();
    expect(failureLines(await call('create_post', { collectionId: 1, caption: 'x' }))).toEqual([
      INVALID,
      '- brandId: The brand id field is required. Pass brandId, an id from list_brands.',
      '- publishMode: The publish mode field is required. Pass publishMode: one of QUEUE, SCHEDULE, IMMEDIATE, DRAFT.',
    ]);
    expect(failureLines(await call('list_brands', { page: 0, per_page: 101 }))).toEqual([
      INVALID,
      '- page: The page must be at least 1. Use 1 or more.',
      '- per_page: The per page may not be greater than 100. Use 1 to 100, and page=2, 3, … for the rest.',
    ]);
    expect(failureLines(await call('get_queue', { brandId: 1, count: 60 }))).toEqual([
      INVALID,
      '- count: The count may not be greater than 50. Use 1 to 50.',
    ]);
    expect(failureLines(await call('create_post', post({ collectionId: 4, publishMode: 'QUEUE' })))).toEqual([
      INVALID,
      '- collectionId: The collection has no channels: only a DRAFT can be created in it. Add channels to the collection or use publishMode DRAFT. Call list_collections with the brandId to find a collection with channels.',
    ]);
    expect(failureLines(await call('list_channels', { brandId: 999 }))).toEqual([
      'Brand not found. Call list_brands to see the brand ids you can use.',
    ]);
    expect(failureLines(await call('create_post', post({ collectionId: 999 })))).toEqual([
      'Collection not found. Call list_collections with the brandId to see its collections and their channels.',
    ]);
    expect(failureLines(await call('get_post', { brandId: 1, postId: 999 }))).toEqual([
      'Post not found. Call list_posts with the brandId to see its posts and their ids.',
    ]);
    expect(failureLines(await call('upload_media', { brandId: 1 }))).toEqual([
      INVALID,
      '- media: The media field is required. Pass exactly one of path (an absolute file path), url, or base64 with filename.',
    ]);
  });
});

describe('correctOptionIndex out of range', () => {
  const RANGE = 'The poll.correct option index must be between 0 and 2.';
  const poll = (correctOptionIndex: number) => ({
    poll: {
      question: 'Which roast?',
      options: ['Light', 'Medium', 'Dark'],
      period: '1d',
      correctOptionIndex,
    },
  });

  it("answers product.md's range message below 0 and past the last option, in body and text", async () => {
    const { call } = await harness();
    for (const index of [-1, 5]) {
      const result = await call('create_post', post(poll(index)));
      expect(result.structuredContent, String(index)).toEqual(
        invalid({ 'poll.correctOptionIndex': [RANGE] }),
      );
      expect(failureLines(result)).toEqual([
        INVALID,
        `- poll.correctOptionIndex: ${RANGE} It counts from 0: 0 is the first of the 3 options and 2 the last.`,
      ]);
    }
  });

  it('update_post too', async () => {
    const { call } = await harness();
    const created = await call('create_post', post(poll(1)));
    const postId = (created.structuredContent as { data: { id: number } }).data.id;
    const result = await call('update_post', { brandId: 1, postId, ...poll(-1) });
    expect(result.structuredContent).toEqual(invalid({ 'poll.correctOptionIndex': [RANGE] }));
  });
});

describe('remote mode', () => {
  /** The MCP server on a remote client of a real `serve` app, whose store and clock the test holds. */
  async function openRemote() {
    const rt = await openTestRuntime();
    const [demo] = await issueMissingApiKeys(rt.runtime.store);
    const logged: unknown[] = [];
    const http = createHttpApp({
      runtime: rt.runtime,
      version: 'test',
      loopbackOnly: true,
      log: (message, error) => logged.push({ message, error }),
    });
    const listening = await listen(http, { host: '127.0.0.1', port: 0 });
    const remote = new RemotePublishingService({
      baseUrl: `${listening.url}/v1`,
      apiKey: demo!.apiKey,
      maxRetries: 0,
    });
    const server = createMcpServer(remote, {
      name: 'social-publisher-mcp',
      version: '0.0.0-test',
      log: (message, error) => logged.push({ message, error }),
    });
    const client = new Client({ name: 'remote-test', version: '1.0.0' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    await client.connect(clientTransport);
    await client.listTools();
    closers.push(async () => {
      expect(logged).toEqual([]);
      await client.close();
      await server.close();
      await remote.close();
      await listening.close();
      await rt.close();
    });
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    return { rt, call };
  }

  it("gives the remote server's brand time and the DST gap's neighbours", async () => {
    const { rt, call } = await openRemote();
    const past = await call(
      'create_post',
      post({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-21 06:00:00' }),
    );
    expect(failureLines(past)).toEqual([
      INVALID,
      `- scheduledAt: The scheduled at must be a future date. ${NOW_IN_NEW_YORK}`,
    ]);
    expect(past.structuredContent).toEqual(
      invalid({ scheduledAt: ['The scheduled at must be a future date.'] }),
    );

    // The time is the server's: moving its clock moves the text.
    rt.clock.set(Date.UTC(2026, 10, 22, 20, 4, 5));
    const later = await call(
      'create_post',
      post({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-22 15:00:00' }),
    );
    expect(failureLines(later)[1]).toContain(
      "It is now 2026-11-22 15:04:05 in the brand's timezone, Sunday, November 22, 2026 at 15:04 EST (America/New_York)",
    );

    const gap = await call(
      'create_post',
      post({ publishMode: 'SCHEDULE', scheduledAt: '2027-03-14 02:30:00' }),
    );
    expect(failureLines(gap)).toEqual([
      INVALID,
      `- scheduledAt: The scheduled at does not exist in the America/New_York timezone. ${NEW_YORK_GAP}`,
    ]);

    const typo = await call(
      'create_post',
      post({ poll: { question: 'Q?', optoins: ['A', 'B'], period: '9d' } }),
    );
    expect(failureLines(typo)).toContain(
      '- poll.optoins: The poll.optoins field is not allowed. Did you mean poll.options?',
    );
    expect(failureLines(typo)).toContain(
      '- poll.period: The selected poll.period is invalid. Use one of: 1d, 3d, 7d.',
    );
  });
});
