/**
 * The queue calendar page in a real browser: Debian's Chromium, headless, driven by playwright-core, in
 * the small apps host (test/support/apps-host.ts) under the spec's default CSP. The host gets the page
 * and get_queue's result from our MCP server through the real SDK client and passes the page's
 * `tools/call` requests back to it. Next week (three posts on two channels, free queue slots), reached
 * with the page's button; a post moved to a free slot from the keyboard; a move the server refuses. The
 * tests run in order on one page, as a user would. Writes docs/images/queue-calendar.png.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Browser, chromium, type FrameLocator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_CALENDAR_URI } from '../../src/mcp/queue-calendar-app.js';
import { type AppsHost, startAppsHost } from '../support/apps-host.js';
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

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = join(import.meta.dirname, '..', '..', 'docs', 'images', 'queue-calendar.png');
const WIDTH = 1200;
const HOST_CONTEXT = {
  theme: 'light',
  displayMode: 'inline',
  styles: { variables: { '--color-background-primary': 'rgb(252, 251, 248)', '--font-sans': 'sans-serif' } },
};

/** The host page's window (test/support/apps-host.ts): these functions run in the page. */
interface HostWindow {
  viewReady: Promise<void>;
  sendToView(method: string, params: unknown): void;
  fromView: Array<{ method?: string }>;
  getComputedStyle(element: unknown): { backgroundColor: string };
}

let h: McpHarness;
let host: AppsHost;
let browser: Browser;
let page: Page;
let view: FrameLocator;
let brandId: number;
let postIds: number[];
const calls: CallToolRequest['params'][] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  h = await openMcpHarness({ capabilities: APPS, workspace: WORKSPACE, apiKey: BAKER });
  ({ brandId, postIds } = await createWeek(h));
  const { contents } = await h.client.readResource({ uri: QUEUE_CALENDAR_URI });
  host = await startAppsHost((contents[0] as { text: string }).text, HOST_CONTEXT, WIDTH);
  // --no-sandbox: Chromium's own sandbox needs user namespaces, which containers run as root lack.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: WIDTH, height: 900 } });
  page.setDefaultTimeout(5_000);
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await page.exposeFunction('callTool', async (params: CallToolRequest['params']) => {
    calls.push(params);
    return h.client.callTool(params);
  });
  await page.goto(host.url);
  await page.evaluate(() => (globalThis as unknown as HostWindow).viewReady);
  view = page.frameLocator('#view');
}, 60_000);

afterAll(async () => {
  await page?.close();
  await browser?.close();
  await host?.close();
  await h?.close();
});

/** What a host does once the tool call that shows the page has been answered. */
async function showToolResult(args: Record<string, unknown>, result: CallToolResult): Promise<void> {
  await page.evaluate(
    ([input, output]) => {
      const send = (globalThis as unknown as HostWindow).sendToView;
      send('ui/notifications/tool-input', { arguments: input });
      send('ui/notifications/tool-result', output);
    },
    [args, result] as const,
  );
}

const post = (id: number) => view.locator(`article.post[data-post-id="${id}"]`);
const cell = (day: number, hour: number) => view.locator(`td[data-day="${day}"][data-hour="${hour}"]`);

describe('the queue calendar in Chromium', () => {
  it("get_queue's week, then next week by keyboard: three posts on two channels, at their local times, and the gaps", async () => {
    await showToolResult({ brandId }, await h.call('get_queue', { brandId }));
    await expect
      .poll(() => view.locator('h1').textContent())
      .toBe('Monday, November 16 to Sunday, November 22, 2026');
    expect(await view.locator('thead th.today').textContent()).toBe('Sat 21 Nov (today)');
    // Saturday: 09:00 and 13:00 gone by, 18:00 a free slot.
    expect(await cell(5, 9).textContent()).toBe('09:00 (gone by)');
    expect(await cell(5, 18).locator('.slot.gap').textContent()).toBe('18:00 free slot');

    // The host's theme.
    expect(await view.locator('html').getAttribute('data-theme')).toBe('light');
    expect(
      await view
        .locator('body')
        .evaluate((body) => (globalThis as unknown as HostWindow).getComputedStyle(body).backgroundColor),
    ).toBe('rgb(252, 251, 248)');

    await view.locator('#next-week').focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(() => view.locator('h1').textContent())
      .toBe('Monday, November 23 to Sunday, November 29, 2026');
    expect(calls).toEqual([
      { name: 'list_posts', arguments: { brandId, ...NEXT_WEEK, order: 'calendar', per_page: 100 } },
    ]);
    expect(await view.locator('thead th').allTextContents()).toEqual([
      'Hour',
      'Mon 23 Nov',
      'Tue 24 Nov',
      'Wed 25 Nov',
      'Thu 26 Nov',
      'Fri 27 Nov',
      'Sat 28 Nov',
      'Sun 29 Nov',
    ]);
    expect(await view.locator('article.post').count()).toBe(3);
    // Each post in its day's column and its hour's row, with its channel.
    expect(await cell(0, 9).locator(`article[data-post-id="${postIds[0]}"]`).count()).toBe(1);
    expect(await cell(1, 13).locator(`article[data-post-id="${postIds[1]}"]`).count()).toBe(1);
    expect(await cell(2, 15).locator(`article[data-post-id="${postIds[2]}"]`).count()).toBe(1);
    expect(await post(postIds[2]!).locator('time').textContent()).toBe('15:30');
    expect(await post(postIds[0]!).locator('.chips li').allTextContents()).toEqual(['Bluesky']);
    expect(await post(postIds[2]!).locator('.chips li').allTextContents()).toEqual(['LinkedIn']);
    expect(await post(postIds[0]!).locator('.caption').textContent()).toBe(
      `#${postIds[0]} ${POSTS[0].caption}`,
    );
    expect(await view.locator('.legend li').allTextContents()).toEqual([
      'Harbor Bakery on Bluesky: 2 posts',
      'Harbor Bakery on LinkedIn: 1 post',
    ]);
    // The gaps: every queue slot without a post; the taken ones show the post instead.
    expect(await view.locator('.slot.gap').count()).toBe(19);
    expect(await cell(0, 9).locator('.slot').count()).toBe(0);
    expect(await cell(0, 13).locator('.slot.gap').textContent()).toBe('13:00 free slot');
    expect(await cell(2, 15).locator('.slot').count()).toBe(0);
    expect(consoleErrors).toEqual([]);
  });

  it('moving a post from the keyboard: update_post with the slot in Paris time, stored, and the week redrawn', async () => {
    calls.length = 0;
    const first = postIds[0]!;
    await view.locator(`#move-${first}`).focus();
    // The first free slot of the week: Monday 13:00 (Monday 09:00 is this post's).
    await page.keyboard.press('ArrowDown');
    expect(await view.locator(`#move-${first}`).inputValue()).toBe('2026-11-23 13:00:00');
    await page.keyboard.press('Tab');
    expect(await view.locator(':focus').getAttribute('id')).toBe(`move-button-${first}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => calls.length).toBe(2);
    expect(calls[0]).toEqual({
      name: 'update_post',
      arguments: { brandId, publishMode: 'SCHEDULE', postId: first, scheduledAt: '2026-11-23 13:00:00' },
    });
    expect(calls[1]).toEqual({
      name: 'list_posts',
      arguments: { brandId, ...NEXT_WEEK, order: 'calendar', per_page: 100 },
    });
    // The server stored it, at 13:00 in Paris (12:00 UTC).
    const stored = await h.call('get_post', { brandId, postId: first });
    expect(stored.structuredContent).toMatchObject({
      data: { status: 'scheduled', scheduledAt: '2026-11-23 13:00:00', dueAt: '2026-11-23T12:00:00.000000Z' },
    });
    // Redrawn: the post at 13:00, its old slot a gap; the focus back on its Move button.
    await expect.poll(() => cell(0, 13).locator(`article[data-post-id="${first}"]`).count()).toBe(1);
    expect(await cell(0, 9).locator('.slot.gap').textContent()).toBe('09:00 free slot');
    expect(await cell(0, 13).locator('.slot').count()).toBe(0);
    await expect.poll(() => view.locator(':focus').getAttribute('id')).toBe(`move-button-${first}`);
    expect(await view.locator('#status').textContent()).toContain(`Post ${first}`);
    const calendar = calendarOf(await h.call('list_posts', { brandId, ...NEXT_WEEK }));
    expect(calendar.posts.find((p) => p.id === first)?.time).toBe('13:00');
    const methods = await page.evaluate(() =>
      (globalThis as unknown as HostWindow).fromView.map((m) => m.method),
    );
    expect(new Set(methods)).toEqual(
      new Set([
        'ui/initialize',
        'ui/notifications/initialized',
        'ui/notifications/size-changed',
        'tools/call',
      ]),
    );
    expect(consoleErrors).toEqual([]);
    // Chromium paints a cross-origin frame only where the viewport shows it: make room for all of it.
    const height = await page.locator('#view').evaluate((frame) => frame.getBoundingClientRect().height);
    await page.setViewportSize({ width: WIDTH, height: Math.ceil(height) });
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.locator('#view').screenshot({ path: SCREENSHOT });
  });

  it('a move the server refuses (the post was cancelled meanwhile): the reason as an alert, the week kept', async () => {
    calls.length = 0;
    const second = postIds[1]!;
    const service = await h.rt.serviceFor(BAKER);
    await service.deletePost({ brandId, postId: second });
    await view.locator(`#move-${second}`).selectOption('2026-11-27 09:00:00');
    await view.locator(`#move-button-${second}`).focus();
    await page.keyboard.press('Space');
    await expect.poll(() => view.locator('#status').getAttribute('role')).toBe('alert');
    expect(await view.locator('#status').textContent()).toContain(
      `The post ${second} is cancelled: only draft, queued and scheduled posts can be changed.`,
    );
    // Only the refused call: no redraw, the post still shown, the controls usable again, the focus kept.
    expect(calls.map((call) => call.name)).toEqual(['update_post']);
    expect(await post(second).count()).toBe(1);
    expect(await view.locator(`#move-button-${second}`).isDisabled()).toBe(false);
    expect(await view.locator(':focus').getAttribute('id')).toBe(`move-button-${second}`);
    expect(consoleErrors).toEqual([]);
  });
});
