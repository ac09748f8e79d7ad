/**
 * What the queue calendar tests (protocol and browser) use: a brand in Paris with three queue times a
 * day and two one-channel collections, and three posts of the week after the test clock's Saturday
 * (2026-11-21 13:00 in Paris): two to Bluesky, one to LinkedIn, two of them on queue slots; and the
 * browser tests' set-up.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { QueueCalendar } from '../../src/mcp/queue-calendar.js';
import { QUEUE_CALENDAR_META, QUEUE_CALENDAR_URI } from '../../src/mcp/queue-calendar-app.js';
import type { Workspace } from '../../src/publish/connectors/schemas.js';
import type { McpHarness } from '../mcp/harness.js';
import { type AppsBrowser, openAppsBrowser } from './apps-browser.js';

export const BAKER = 'baker-key-0123456789';

export const WORKSPACE: Workspace = {
  brands: [
    {
      title: 'Harbor Bakery',
      timezone: 'Europe/Paris',
      queueTimes: ['09:00', '13:00', '18:00'],
      channels: [
        { name: 'Harbor Bakery on Bluesky', type: 'Bluesky' },
        { name: 'Harbor Bakery on LinkedIn', type: 'LinkedIn' },
      ],
      collections: [
        { title: 'Sky', channels: ['Harbor Bakery on Bluesky'] },
        { title: 'Work', channels: ['Harbor Bakery on LinkedIn'] },
      ],
    },
  ],
  users: [{ name: 'Baker', timezone: 'Europe/Paris', apiKey: BAKER, brands: ['Harbor Bakery'] }],
};

/** Next week, Monday to Sunday, as list_posts takes it. */
export const NEXT_WEEK = { from: '2026-11-23 00:00:00', to: '2026-11-30 00:00:00' };

export const POSTS = [
  { collection: 'Sky', caption: 'Sourdough is back on Monday 🥖', scheduledAt: '2026-11-23 09:00:00' },
  { collection: 'Sky', caption: 'Cinnamon buns from 13:00', scheduledAt: '2026-11-24 13:00:00' },
  { collection: 'Work', caption: 'We are hiring a night baker', scheduledAt: '2026-11-25 15:30:00' },
] as const;

export const calendarOf = (result: CallToolResult) => result._meta?.[QUEUE_CALENDAR_META] as QueueCalendar;

/** The brand's id, and the three posts' ids, created through create_post. */
export async function createWeek(h: McpHarness): Promise<{ brandId: number; postIds: number[] }> {
  const brands = (await h.call('list_brands')).structuredContent as { data: Array<{ id: number }> };
  const brandId = brands.data[0]!.id;
  const collections = (await h.call('list_collections', { brandId })).structuredContent as {
    data: Array<{ id: number; title: string }>;
  };
  const postIds: number[] = [];
  for (const post of POSTS) {
    const collectionId = collections.data.find((c) => c.title === post.collection)!.id;
    const created = await h.call('create_post', {
      brandId,
      collectionId,
      publishMode: 'SCHEDULE',
      scheduledAt: post.scheduledAt,
      caption: post.caption,
    });
    if (created.isError) throw new Error(JSON.stringify(created.content));
    postIds.push((created.structuredContent as { data: { id: number } }).data.id);
  }
  return { brandId, postIds };
}

/**
 * The calendar in Chromium (apps-browser.ts) for the baker, in a light host theme, with the week's
 * posts created.
 */
export async function openCalendarBrowser(): Promise<{
  apps: AppsBrowser;
  brandId: number;
  postIds: number[];
}> {
  const apps = await openAppsBrowser({
    uri: QUEUE_CALENDAR_URI,
    hostContext: {
      theme: 'light',
      displayMode: 'inline',
      styles: {
        variables: { '--color-background-primary': 'rgb(252, 251, 248)', '--font-sans': 'sans-serif' },
      },
    },
    width: 1200,
    harness: { workspace: WORKSPACE, apiKey: BAKER },
  });
  try {
    return { apps, ...(await createWeek(apps.h)) };
  } catch (error) {
    await apps.close();
    throw error;
  }
}
