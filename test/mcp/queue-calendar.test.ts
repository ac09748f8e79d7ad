/**
 * The queue calendar MCP App over the protocol, with the real SDK client: a client that declares the
 * `io.modelcontextprotocol/ui` extension finds the page named in get_queue's and list_posts' `_meta.ui`,
 * reads it, and gets the week's calendar in those tools' result `_meta`; a client without it sees none
 * of that, and both get the same text and structured result. Harbor Bakery (Paris, queue times 09:00,
 * 13:00, 18:00) with three posts next week (test/support/queue-calendar-fixtures.ts); the test clock
 * is Saturday 2026-11-21 13:00 in Paris.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_MIME_TYPE, POST_PREVIEW_URI } from '../../src/mcp/post-preview-app.js';
import { QUEUE_CALENDAR_URI } from '../../src/mcp/queue-calendar-app.js';
import { APPS } from '../support/post-preview-fixtures.js';
import {
  BAKER,
  calendarOf,
  createWeek,
  NEXT_WEEK,
  POSTS,
  WORKSPACE,
} from '../support/queue-calendar-fixtures.js';
import { type McpHarness, openMcpHarness } from './harness.js';

let apps: McpHarness;
let plain: McpHarness;
let brandId: number;
let postIds: number[];

beforeAll(async () => {
  [apps, plain] = await Promise.all([
    openMcpHarness({ capabilities: APPS, workspace: WORKSPACE, apiKey: BAKER }),
    openMcpHarness({ workspace: WORKSPACE, apiKey: BAKER }),
  ]);
  // The same posts in both stores, on the same clock: the same ids and times.
  [{ brandId, postIds }] = await Promise.all([createWeek(apps), createWeek(plain)]);
});

afterAll(async () => {
  await Promise.all([apps.close(), plain.close()]);
});

describe('the page and the tools that show it', () => {
  it('a client with the extension: get_queue and list_posts name the page; resources/read serves it', async () => {
    const named = Object.fromEntries(
      apps.tools.filter((tool) => tool._meta?.ui !== undefined).map((tool) => [tool.name, tool._meta]),
    );
    expect(named.get_queue).toEqual({
      ui: { resourceUri: QUEUE_CALENDAR_URI },
      'ui/resourceUri': QUEUE_CALENDAR_URI,
    });
    expect(named.list_posts).toEqual(named.get_queue);
    expect(Object.keys(named).sort()).toEqual([
      'create_post',
      'get_post',
      'get_queue',
      'list_posts',
      'update_post',
    ]);
    const { resources } = await apps.client.listResources();
    expect(resources.filter((r) => r.uri.startsWith('ui://')).map((r) => r.uri)).toEqual([
      POST_PREVIEW_URI,
      QUEUE_CALENDAR_URI,
    ]);
    const { contents } = await apps.client.readResource({ uri: QUEUE_CALENDAR_URI });
    const [page] = contents as [{ uri: string; mimeType: string; text: string; _meta: unknown }];
    expect(contents).toHaveLength(1);
    expect(page).toMatchObject({ uri: QUEUE_CALENDAR_URI, mimeType: APP_MIME_TYPE });
    expect(page._meta).toEqual({ ui: { prefersBorder: true } });
    expect(page.text).toMatch(/^<!doctype html>/);
    expect(page.text).toContain("'ui/initialize'");
    expect(page.text).toContain("'social-publisher/queue-calendar'");
    expect(page.text).not.toMatch(/\b(src|href)=|import\(|@import/);
    expect(Buffer.byteLength(page.text)).toBeLessThan(32 * 1024);
  });

  it('a client without it: no page, no _meta on the tools or in their results', async () => {
    expect(plain.tools.filter((tool) => tool._meta !== undefined)).toEqual([]);
    await expect(plain.client.readResource({ uri: QUEUE_CALENDAR_URI })).rejects.toThrow(/disabled/);
    expect((await plain.call('get_queue', { brandId }))._meta).toBeUndefined();
    expect((await plain.call('list_posts', { brandId, ...NEXT_WEEK }))._meta).toBeUndefined();
  });

  it('the text and structured results of get_queue and list_posts are the same with and without apps', async () => {
    for (const [name, args] of [
      ['get_queue', { brandId }],
      ['list_posts', { brandId }],
      ['list_posts', { brandId, ...NEXT_WEEK, order: 'calendar' }],
    ] as const) {
      const [withApps, without] = await Promise.all([apps.call(name, args), plain.call(name, args)]);
      expect(withApps.content).toEqual(without.content);
      expect(withApps.structuredContent).toEqual(without.structuredContent);
      expect(calendarOf(withApps)).toBeDefined();
    }
  });
});

describe('the week the calendar shows', () => {
  it("get_queue: the brand's current week, Monday to Sunday in Paris; slots gone by are marked", async () => {
    const calendar = calendarOf(await apps.call('get_queue', { brandId }));
    expect(calendar).toMatchObject({
      timezone: 'Europe/Paris',
      localNow: '2026-11-21 13:00:00',
      week: { from: '2026-11-16 00:00:00', to: '2026-11-23 00:00:00' },
      queueTimes: ['09:00', '13:00', '18:00'],
      posts: [],
    });
    expect(calendar.days.map((d) => d.label)).toEqual([
      'Mon 16 Nov',
      'Tue 17 Nov',
      'Wed 18 Nov',
      'Thu 19 Nov',
      'Fri 20 Nov',
      'Sat 21 Nov',
      'Sun 22 Nov',
    ]);
    expect(calendar.days.findIndex((d) => d.today)).toBe(5);
    expect(calendar.slots).toHaveLength(21);
    const saturday = calendar.slots.filter((slot) => slot.day === 5);
    expect(saturday.map((s) => [s.time, s.past, s.utc])).toEqual([
      ['09:00', true, '2026-11-21T08:00:00.000000Z'],
      ['13:00', true, '2026-11-21T12:00:00.000000Z'],
      ['18:00', false, '2026-11-21T17:00:00.000000Z'],
    ]);
    expect(calendar.actions.next).toEqual({
      name: 'list_posts',
      arguments: { brandId, ...NEXT_WEEK, order: 'calendar', per_page: 100 },
    });
  });

  it('list_posts from next Monday: the three posts at their local times with their channels, and the gaps', async () => {
    const calendar = calendarOf(await apps.call('list_posts', { brandId, ...NEXT_WEEK }));
    expect(calendar.week).toEqual({
      ...NEXT_WEEK,
      label: 'Monday, November 23 to Sunday, November 29, 2026',
    });
    expect(calendar.posts.map((p) => [p.id, p.day, p.time, p.status, p.channels.map((c) => c.type)])).toEqual(
      [
        [postIds[0], 0, '09:00', 'scheduled', ['Bluesky']],
        [postIds[1], 1, '13:00', 'scheduled', ['Bluesky']],
        [postIds[2], 2, '15:30', 'scheduled', ['LinkedIn']],
      ],
    );
    expect(calendar.posts[0]!.caption).toBe(POSTS[0].caption);
    expect(calendar.posts[0]!.utc).toBe('2026-11-23T08:00:00.000000Z');
    const taken = calendar.slots.filter((slot) => !slot.free).map((slot) => slot.scheduledAt);
    expect(taken).toEqual([POSTS[0].scheduledAt, POSTS[1].scheduledAt]);
    const gaps = calendar.slots.filter((slot) => slot.free && !slot.past);
    expect(gaps).toHaveLength(19);
    // The same free times as get_queue's next slots in that week: one rule for both.
    const queue = (await apps.call('get_queue', { brandId, count: 50 })).structuredContent as {
      data: { nextSlots: Array<{ scheduledAt: string; at: string }> };
    };
    const nextWeek = queue.data.nextSlots.filter(
      (slot) => slot.scheduledAt >= NEXT_WEEK.from && slot.scheduledAt < NEXT_WEEK.to,
    );
    expect(gaps.map((slot) => ({ scheduledAt: slot.scheduledAt, at: slot.utc }))).toEqual(nextWeek);
    expect(calendar.channels).toEqual([
      { name: 'Harbor Bakery on Bluesky', type: 'Bluesky', posts: 2 },
      { name: 'Harbor Bakery on LinkedIn', type: 'LinkedIn', posts: 1 },
    ]);
    expect(calendar.hours).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17, 18]);
    expect(calendar.actions.previous.arguments).toMatchObject({ from: '2026-11-16 00:00:00' });
    expect(calendar.actions.move).toEqual({
      name: 'update_post',
      arguments: { brandId, publishMode: 'SCHEDULE' },
    });
  });

  it('the move action: update_post to a free slot stores the time, and the calendar shows the slot taken', async () => {
    const before = calendarOf(await apps.call('list_posts', { brandId, ...NEXT_WEEK }));
    const target = before.slots.find((slot) => slot.free && slot.day === 3 && slot.time === '18:00')!;
    const moved = await apps.call(before.actions.move.name, {
      ...before.actions.move.arguments,
      postId: postIds[2],
      scheduledAt: target.scheduledAt,
    });
    expect(moved.isError).toBeFalsy();
    const stored = await apps.call('get_post', { brandId, postId: postIds[2] });
    expect(stored.structuredContent).toMatchObject({
      data: { scheduledAt: '2026-11-26 18:00:00', dueAt: '2026-11-26T17:00:00.000000Z', status: 'scheduled' },
    });
    const after = calendarOf(await apps.call(before.actions.refresh.name, before.actions.refresh.arguments));
    expect(after.slots.find((slot) => slot.scheduledAt === target.scheduledAt)!.free).toBe(false);
    expect(after.posts.find((p) => p.id === postIds[2])).toMatchObject({ day: 3, time: '18:00' });
  });
});
