/**
 * Dragging a post on the queue calendar in a real browser (test/support/apps-browser.ts: Chromium in the
 * small apps host, whose `tools/call` requests reach our MCP server through the real SDK client), with
 * real input: playwright's mouse, and touches through the DevTools protocol on a page with touch. What
 * the server stored is read back with get_post through the server, not from the page. The tests run in
 * order on one page, as a user would. Writes docs/images/queue-calendar.png, in the middle of a drag.
 */
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppPage, AppsBrowser } from '../support/apps-browser.js';
import { TEST_NOW } from '../support/local.js';
import { NEXT_WEEK, openCalendarBrowser } from '../support/queue-calendar-fixtures.js';
import type { McpHarness } from './harness.js';

const SCREENSHOT = join(import.meta.dirname, '..', '..', 'docs', 'images', 'queue-calendar.png');
let apps: AppsBrowser;
let h: McpHarness;
let app: AppPage;
let brandId: number;
let postIds: number[];

/** What a host shows after list_posts of next week (the week of the fixtures' posts). */
async function showNextWeek(page: AppPage): Promise<void> {
  await page.showToolResult({ brandId, ...NEXT_WEEK }, await h.call('list_posts', { brandId, ...NEXT_WEEK }));
  await page.view.locator('article.post').nth(2).waitFor();
}

beforeAll(async () => {
  ({ apps, brandId, postIds } = await openCalendarBrowser());
  h = apps.h;
  app = await apps.openPage({ height: 1200 });
  await showNextWeek(app);
}, 60_000);

afterAll(async () => {
  await apps?.close();
});

const post = (page: AppPage, id: number) => page.view.locator(`article.post[data-post-id="${id}"]`);
const cell = (page: AppPage, day: number, hour: number) =>
  page.view.locator(`td[data-day="${day}"][data-hour="${hour}"]`);

/** The middle of an element of the page, in the browser window's coordinates (the iframe's included). */
async function middle(locator: Locator): Promise<{ x: number; y: number }> {
  const box = await locator.boundingBox();
  if (!box) throw new Error('not shown');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Until the post card holding `node` has stopped moving (it glides back after a drop elsewhere). */
async function settled(node: Locator): Promise<void> {
  await node.evaluate((element) =>
    Promise.all(
      (
        element as unknown as {
          closest(selector: string): { getAnimations(): Array<{ finished: Promise<unknown> }> };
        }
      )
        .closest('article')
        .getAnimations()
        .map((animation) => animation.finished),
    ),
  );
}

/** The mouse pressed on one element and moved over another, in steps, still pressed. */
async function pressAndMoveOver(from: Locator, to: Locator): Promise<void> {
  await settled(from);
  const start = await middle(from);
  const end = await middle(to);
  await app.page.mouse.move(start.x, start.y);
  await app.page.mouse.down();
  await app.page.mouse.move(end.x, end.y, { steps: 10 });
}

/**
 * A finger put on one element, moved in steps towards another (or `by` that far only) and lifted;
 * `beforeLift` runs while it is still down.
 */
async function touchDrag(
  page: AppPage,
  from: Locator,
  to: Locator,
  options: { by?: number; beforeLift?: () => Promise<void> } = {},
): Promise<void> {
  await settled(from);
  const start = await middle(from);
  const end = await middle(to);
  const share = options.by ? options.by / Math.hypot(end.x - start.x, end.y - start.y) : 1;
  const devtools = await page.page.context().newCDPSession(page.page);
  const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', point?: { x: number; y: number }) =>
    devtools.send('Input.dispatchTouchEvent', { type, touchPoints: point ? [point] : [] });
  await touch('touchStart', start);
  for (let step = 1; step <= 10; step += 1) {
    await touch('touchMove', {
      x: start.x + ((end.x - start.x) * share * step) / 10,
      y: start.y + ((end.y - start.y) * share * step) / 10,
    });
  }
  await options.beforeLift?.();
  await touch('touchEnd');
  await devtools.detach();
}

const styleOf = (locator: Locator, property: 'outlineStyle' | 'transitionDuration' | 'transform') =>
  locator.evaluate(
    (node, name) =>
      (globalThis as unknown as { getComputedStyle(node: unknown): Record<string, string> }).getComputedStyle(
        node,
      )[name],
    property,
  );

describe('dragging a post on the queue calendar in Chromium', () => {
  it('with the mouse onto a free slot: the targets shown while dragging, update_post as from the keyboard, stored', async () => {
    const first = postIds[0]!;
    const target = cell(app, 3, 13).locator('.slot.gap');
    expect(await target.getAttribute('data-slot')).toBe('2026-11-26 13:00:00');
    await pressAndMoveOver(post(app, first).locator('.caption'), target);
    // While dragging: every free slot outlined, the one under the pointer filled, the card lifted.
    expect(await app.view.locator('#app').getAttribute('class')).toBe('dragging');
    expect(await post(app, first).getAttribute('class')).toContain('lifted');
    expect(await target.getAttribute('class')).toBe('slot gap over');
    const gaps = await app.view.locator('.slot.gap').all();
    expect(gaps).toHaveLength(19);
    for (const gap of gaps) expect(await styleOf(gap, 'outlineStyle')).toBe('solid');
    expect(await app.view.locator('#status').textContent()).toBe(
      `Drop post ${first} on a free slot, or press Escape.`,
    );
    expect(app.calls).toEqual([]);
    await app.screenshot(SCREENSHOT);

    await app.page.mouse.up();
    await expect.poll(() => app.calls.length).toBe(2);
    expect(app.calls).toEqual([
      {
        name: 'update_post',
        arguments: { brandId, publishMode: 'SCHEDULE', postId: first, scheduledAt: '2026-11-26 13:00:00' },
      },
      { name: 'list_posts', arguments: { brandId, ...NEXT_WEEK, order: 'calendar', per_page: 100 } },
    ]);
    // The server stored it, at 13:00 in Paris (12:00 UTC).
    const stored = await h.call('get_post', { brandId, postId: first });
    expect(stored.structuredContent).toMatchObject({
      data: { status: 'scheduled', scheduledAt: '2026-11-26 13:00:00', dueAt: '2026-11-26T12:00:00.000000Z' },
    });
    // Redrawn: the post on Thursday 13:00, Monday 09:00 free again, no drag left; the same feedback as
    // the keyboard's: update_post's answer, the focus on the post's Move button.
    await expect.poll(() => cell(app, 3, 13).locator(`article[data-post-id="${first}"]`).count()).toBe(1);
    expect(await cell(app, 0, 9).locator('.slot.gap').textContent()).toBe('09:00 free slot');
    expect(await app.view.locator('#app').getAttribute('class')).toBe('');
    expect(await app.view.locator('#status').textContent()).toContain(`Post ${first}`);
    expect(await app.view.locator(':focus').getAttribute('id')).toBe(`move-button-${first}`);
    expect(app.consoleErrors).toEqual([]);
  });

  it('a drop on a post, on a day or after Escape moves nothing', async () => {
    app.calls.length = 0;
    const second = postIds[1]!;
    const card = post(app, second);
    // On the cell of another post (Wednesday 15:30): not a free slot.
    await pressAndMoveOver(card.locator('.caption'), cell(app, 2, 15));
    await app.page.mouse.up();
    expect(await app.view.locator('#status').textContent()).toBe('Not moved: drop the post on a free slot.');
    // On a day's heading.
    await pressAndMoveOver(card.locator('.caption'), app.view.locator('thead th').nth(4));
    await app.page.mouse.up();
    // Over a free slot, then Escape before letting go; the focus in the host's page before the drag.
    await app.page.evaluate(() =>
      (
        globalThis as unknown as { document: { activeElement: { blur(): void } } }
      ).document.activeElement.blur(),
    );
    expect(await app.view.locator(':focus').count()).toBe(0);
    await pressAndMoveOver(card.locator('.caption'), cell(app, 4, 13).locator('.slot.gap'));
    expect(await app.view.locator('#app').getAttribute('class')).toBe('dragging');
    // The press gave the page the focus, so that it hears the key.
    await expect
      .poll(() =>
        app.view
          .locator('body')
          .evaluate(() =>
            (globalThis as unknown as { document: { hasFocus(): boolean } }).document.hasFocus(),
          ),
      )
      .toBe(true);
    await app.page.keyboard.press('Escape');
    expect(await app.view.locator('#status').textContent()).toBe('Not moved.');
    expect(await app.view.locator('#app').getAttribute('class')).toBe('');
    await app.page.mouse.up();
    expect(app.calls).toEqual([]);
    // The post where it was, back in its place (it glides back, motion allowed).
    expect(await cell(app, 1, 13).locator(`article[data-post-id="${second}"]`).count()).toBe(1);
    await expect.poll(() => styleOf(card, 'transform')).toBe('none');
    const stored = await h.call('get_post', { brandId, postId: second });
    expect(stored.structuredContent).toMatchObject({ data: { scheduledAt: '2026-11-24 13:00:00' } });
    expect(app.consoleErrors).toEqual([]);
  });

  it("a drop the server refuses (the slot has gone by meanwhile): the server's message, the post kept", async () => {
    app.calls.length = 0;
    const second = postIds[1]!;
    // Monday 19:00 in Paris: the page, drawn on Saturday, still offers Monday 18:00.
    h.rt.clock.set(Date.UTC(2026, 10, 23, 18, 0, 0));
    try {
      const gone = cell(app, 0, 18).locator('.slot.gap');
      await pressAndMoveOver(post(app, second).locator('.caption'), gone);
      await app.page.mouse.up();
      await expect.poll(() => app.view.locator('#status').getAttribute('role')).toBe('alert');
      expect(await app.view.locator('#status').textContent()).toContain(
        'The scheduled at must be a future date.',
      );
      // Only the refused call: no redraw, the post in its cell, its controls usable, the slot still shown.
      expect(app.calls).toEqual([
        {
          name: 'update_post',
          arguments: { brandId, publishMode: 'SCHEDULE', postId: second, scheduledAt: '2026-11-23 18:00:00' },
        },
      ]);
      expect(await cell(app, 1, 13).locator(`article[data-post-id="${second}"]`).count()).toBe(1);
      await expect.poll(() => styleOf(post(app, second), 'transform')).toBe('none');
      expect(await app.view.locator(`#move-button-${second}`).isDisabled()).toBe(false);
      expect(await gone.count()).toBe(1);
      const stored = await h.call('get_post', { brandId, postId: second });
      expect(stored.structuredContent).toMatchObject({ data: { scheduledAt: '2026-11-24 13:00:00' } });
      expect(app.consoleErrors).toEqual([]);
    } finally {
      h.rt.clock.set(TEST_NOW);
    }
  });

  it('a finger drags a post by its grip, not by the rest of the card; with reduced motion, no transitions', async () => {
    const phone = await apps.openPage({ height: 1200, hasTouch: true });
    try {
      await phone.page.emulateMedia({ reducedMotion: 'reduce' });
      await showNextWeek(phone);
      const third = postIds[2]!;
      const card = post(phone, third);
      const target = cell(phone, 3, 9).locator('.slot.gap');
      expect(await styleOf(card, 'transitionDuration')).toBe('0s');
      expect(await styleOf(post(app, third), 'transitionDuration')).toBe('0.2s');
      // A finger on the caption scrolls: no drag starts, not even for a short move, and nothing moves.
      const notDragging = async () =>
        expect(await phone.view.locator('#app').getAttribute('class')).not.toBe('dragging');
      await touchDrag(phone, card.locator('.caption'), target, { by: 10, beforeLift: notDragging });
      await touchDrag(phone, card.locator('.caption'), target);
      expect(phone.calls).toEqual([]);
      // By the grip, onto Thursday 09:00: the targets shown while the finger is down.
      const dragging = async () =>
        expect(await phone.view.locator('#app').getAttribute('class')).toBe('dragging');
      await touchDrag(phone, card.locator('.grip'), target, { beforeLift: dragging });
      await expect.poll(() => phone.calls.length).toBe(2);
      expect(phone.calls[0]).toEqual({
        name: 'update_post',
        arguments: { brandId, publishMode: 'SCHEDULE', postId: third, scheduledAt: '2026-11-26 09:00:00' },
      });
      const stored = await h.call('get_post', { brandId, postId: third });
      expect(stored.structuredContent).toMatchObject({
        data: {
          status: 'scheduled',
          scheduledAt: '2026-11-26 09:00:00',
          dueAt: '2026-11-26T08:00:00.000000Z',
        },
      });
      await expect.poll(() => cell(phone, 3, 9).locator(`article[data-post-id="${third}"]`).count()).toBe(1);
      expect(phone.consoleErrors).toEqual([]);
    } finally {
      await phone.close();
    }
  });
});
