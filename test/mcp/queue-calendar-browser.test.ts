/**
 * The queue calendar page in a real browser (test/support/apps-browser.ts: Debian's Chromium, headless,
 * in the small apps host under the spec's default CSP, which passes the page's `tools/call` requests to
 * our MCP server through the real SDK client), shown get_queue's result. Next week (three posts on two
 * channels, free queue slots), reached with the page's button; a post moved to a free slot from the
 * keyboard; a move the server refuses. The tests run in order on one page, as a user would. Dragging is
 * in queue-calendar-drag-browser.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppPage, AppsBrowser } from '../support/apps-browser.js';
import {
  BAKER,
  calendarOf,
  NEXT_WEEK,
  openCalendarBrowser,
  POSTS,
} from '../support/queue-calendar-fixtures.js';
import type { McpHarness } from './harness.js';

let apps: AppsBrowser;
let h: McpHarness;
/** The one host page the tests share, as a user would. */
let app: AppPage;
let brandId: number;
let postIds: number[];

beforeAll(async () => {
  ({ apps, brandId, postIds } = await openCalendarBrowser());
  h = apps.h;
  app = await apps.openPage({ height: 900 });
}, 60_000);

afterAll(async () => {
  await apps?.close();
});

const post = (id: number) => app.view.locator(`article.post[data-post-id="${id}"]`);
const cell = (day: number, hour: number) => app.view.locator(`td[data-day="${day}"][data-hour="${hour}"]`);

describe('the queue calendar in Chromium', () => {
  it("get_queue's week, then next week by keyboard: three posts on two channels, at their local times, and the gaps", async () => {
    await app.showToolResult({ brandId }, await h.call('get_queue', { brandId }));
    await expect
      .poll(() => app.view.locator('h1').textContent())
      .toBe('Monday, November 16 to Sunday, November 22, 2026');
    expect(await app.view.locator('thead th.today').textContent()).toBe('Sat 21 Nov (today)');
    // Saturday: 09:00 and 13:00 gone by, 18:00 a free slot.
    expect(await cell(5, 9).textContent()).toBe('09:00 (gone by)');
    expect(await cell(5, 18).locator('.slot.gap').textContent()).toBe('18:00 free slot');

    // The host's theme.
    expect(await app.view.locator('html').getAttribute('data-theme')).toBe('light');
    expect(await app.viewBackground()).toBe('rgb(252, 251, 248)');

    await app.view.locator('#next-week').focus();
    await app.page.keyboard.press('Enter');
    await expect
      .poll(() => app.view.locator('h1').textContent())
      .toBe('Monday, November 23 to Sunday, November 29, 2026');
    expect(app.calls).toEqual([
      { name: 'list_posts', arguments: { brandId, ...NEXT_WEEK, order: 'calendar', per_page: 100 } },
    ]);
    expect(await app.view.locator('thead th').allTextContents()).toEqual([
      'Hour',
      'Mon 23 Nov',
      'Tue 24 Nov',
      'Wed 25 Nov',
      'Thu 26 Nov',
      'Fri 27 Nov',
      'Sat 28 Nov',
      'Sun 29 Nov',
    ]);
    expect(await app.view.locator('article.post').count()).toBe(3);
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
    expect(await app.view.locator('.legend li').allTextContents()).toEqual([
      'Harbor Bakery on Bluesky: 2 posts',
      'Harbor Bakery on LinkedIn: 1 post',
    ]);
    // The gaps: every queue slot without a post; the taken ones show the post instead.
    expect(await app.view.locator('.slot.gap').count()).toBe(19);
    expect(await cell(0, 9).locator('.slot').count()).toBe(0);
    expect(await cell(0, 13).locator('.slot.gap').textContent()).toBe('13:00 free slot');
    expect(await cell(2, 15).locator('.slot').count()).toBe(0);
    expect(app.consoleErrors).toEqual([]);
  });

  it('moving a post from the keyboard: update_post with the slot in Paris time, stored, and the week redrawn', async () => {
    app.calls.length = 0;
    const first = postIds[0]!;
    await app.view.locator(`#move-${first}`).focus();
    // The first free slot of the week: Monday 13:00 (Monday 09:00 is this post's).
    await app.page.keyboard.press('ArrowDown');
    expect(await app.view.locator(`#move-${first}`).inputValue()).toBe('2026-11-23 13:00:00');
    await app.page.keyboard.press('Tab');
    expect(await app.view.locator(':focus').getAttribute('id')).toBe(`move-button-${first}`);
    await app.page.keyboard.press('Enter');
    await expect.poll(() => app.calls.length).toBe(2);
    expect(app.calls[0]).toEqual({
      name: 'update_post',
      arguments: { brandId, publishMode: 'SCHEDULE', postId: first, scheduledAt: '2026-11-23 13:00:00' },
    });
    expect(app.calls[1]).toEqual({
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
    await expect.poll(() => app.view.locator(':focus').getAttribute('id')).toBe(`move-button-${first}`);
    expect(await app.view.locator('#status').textContent()).toContain(`Post ${first}`);
    const calendar = calendarOf(await h.call('list_posts', { brandId, ...NEXT_WEEK }));
    expect(calendar.posts.find((p) => p.id === first)?.time).toBe('13:00');
    expect(await app.methodsFromView()).toEqual(
      new Set([
        'ui/initialize',
        'ui/notifications/initialized',
        'ui/notifications/size-changed',
        'tools/call',
      ]),
    );
    expect(app.consoleErrors).toEqual([]);
  });

  it('a move the server refuses (the post was cancelled meanwhile): the reason as an alert, the week kept', async () => {
    app.calls.length = 0;
    const second = postIds[1]!;
    const service = await h.rt.serviceFor(BAKER);
    await service.deletePost({ brandId, postId: second });
    await app.view.locator(`#move-${second}`).selectOption('2026-11-27 09:00:00');
    await app.view.locator(`#move-button-${second}`).focus();
    await app.page.keyboard.press('Space');
    await expect.poll(() => app.view.locator('#status').getAttribute('role')).toBe('alert');
    expect(await app.view.locator('#status').textContent()).toContain(
      `The post ${second} is cancelled: only draft, queued and scheduled posts can be changed.`,
    );
    // Only the refused call: no redraw, the post still shown, the controls usable again, the focus kept.
    expect(app.calls.map((call) => call.name)).toEqual(['update_post']);
    expect(await post(second).count()).toBe(1);
    expect(await app.view.locator(`#move-button-${second}`).isDisabled()).toBe(false);
    expect(await app.view.locator(':focus').getAttribute('id')).toBe(`move-button-${second}`);
    expect(app.consoleErrors).toEqual([]);
  });
});
