/**
 * The post preview page in a real browser (test/support/apps-browser.ts: Debian's Chromium, headless,
 * in a small host that speaks the apps' postMessage protocol, serves the page under the spec's default
 * CSP and passes the page's `tools/call` requests to our MCP server through the real SDK client). The
 * page renders every platform of the demo collection from a long caption with emoji, a carousel and a
 * poll, takes the host's theme, and its buttons, pressed from the keyboard, make the tool calls they say.
 * Writes docs/images/post-preview.png.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POST_PREVIEW_URI } from '../../src/mcp/post-preview-app.js';
import { type AppPage, type AppsBrowser, openAppsBrowser } from '../support/apps-browser.js';
import { gradientPng, previewOf, withUploads } from '../support/post-preview-fixtures.js';
import type { McpHarness } from './harness.js';

const SCREENSHOT = join(import.meta.dirname, '..', '..', 'docs', 'images', 'post-preview.png');
const HOST_CONTEXT = {
  theme: 'dark',
  displayMode: 'inline',
  styles: { variables: { '--color-background-primary': 'rgb(20, 24, 33)', '--font-sans': 'sans-serif' } },
};

let apps: AppsBrowser;
let h: McpHarness;
/** A fresh host page for each test. */
let app: AppPage;
/** The dry run, its carousel starting with two uploaded images. */
let DRY_RUN: ReturnType<typeof withUploads>;

beforeAll(async () => {
  apps = await openAppsBrowser({ uri: POST_PREVIEW_URI, hostContext: HOST_CONTEXT, width: 1200 });
  h = apps.h;
  const upload = async (bytes: Buffer, filename: string) =>
    (
      (await h.call('upload_media', { brandId: 1, base64: bytes.toString('base64'), filename }))
        .structuredContent as { data: { id: string } }
    ).data.id;
  DRY_RUN = withUploads([
    await upload(gradientPng(48, [255, 140, 0], [120, 40, 200]), 'sunrise.png'),
    await upload(gradientPng(48, [0, 170, 160], [20, 30, 90]), 'harbour.png'),
  ]);
}, 60_000);

afterAll(async () => {
  await apps?.close();
});

beforeEach(async () => {
  app = await apps.openPage();
});

afterEach(async () => {
  await app?.close();
});

const card = (type: string) => app.view.locator(`section[data-type="${type}"]`);

describe('the post preview in Chromium', () => {
  it('renders every platform: its text cut where the platform cuts it, its count, media, poll and warnings', async () => {
    const result = await h.call('create_post', DRY_RUN);
    const preview = previewOf(result);
    await app.showToolResult(DRY_RUN, result);
    await expect.poll(() => app.view.locator('section.channel').count()).toBe(12);
    for (const channel of preview.channels) {
      const section = card(channel.type);
      await expect.poll(() => section.locator('h2').textContent()).toContain(channel.name);
      if (channel.reason) {
        expect(await section.textContent()).toContain(channel.reason);
        continue;
      }
      const overflow = channel.text.slice(channel.fits);
      expect(await section.locator('.text mark').count()).toBe(overflow ? 1 : 0);
      if (overflow) expect(await section.locator('.text mark').textContent()).toBe(overflow);
      expect(await section.locator('.text').textContent()).toBe(channel.text);
      expect(await section.locator('.count').first().textContent()).toContain(
        `${channel.length} / ${channel.limit} ${channel.unit}`,
      );
      expect(await section.locator('.media li').count()).toBe(5);
      expect(await section.locator('.media li.over').count()).toBe(Math.max(0, 5 - channel.maxMedia));
      for (const warning of channel.warnings) expect(await section.textContent()).toContain(warning.message);
    }
    // The uploaded images are shown, from data: under the default CSP; the URLs only named.
    const images = card('Facebook').locator('.media img');
    expect(await images.count()).toBe(2);
    await expect
      .poll(() =>
        images.first().evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth),
      )
      .toBe(48);
    expect(await images.first().getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    // X cuts the long caption with emoji; Facebook takes all of it.
    expect(await card('X/Twitter').locator('.text mark').count()).toBe(1);
    expect(await card('Facebook').locator('.text mark').count()).toBe(0);
    expect(await card('Telegram').locator('.poll li').allTextContents()).toEqual(['Light 🌤️', 'Dark 🌑']);
    expect(await card('Instagram').locator('.poll').textContent()).toContain('not sent');
    expect(await card('Pinterest').textContent()).toContain('INACTIVE');
    expect(await app.view.locator('.times').textContent()).toContain('2026-11-24T14:00:00Z UTC');
    expect(await app.view.locator('.times time').textContent()).toContain(
      'Tuesday, November 24, 2026 at 09:00',
    );
    // The host's theme: its variable and its dark scheme.
    expect(await app.viewBackground()).toBe('rgb(20, 24, 33)');
    expect(await app.view.locator('html').getAttribute('data-theme')).toBe('dark');
    expect(app.consoleErrors).toEqual([]);
    await app.screenshot(SCREENSHOT);
  });

  it('the buttons, from the keyboard: schedule, save as draft and publish now reach the server', async () => {
    const result = await h.call('create_post', DRY_RUN);
    await app.showToolResult(DRY_RUN, result);
    await app.view.locator('#when').fill('2026-11-25T10:30:00');
    await app.view.locator('#schedule').focus();
    await app.page.keyboard.press('Enter');
    await expect.poll(() => app.view.locator('h1').textContent()).toMatch(/^Post \d+ · scheduled$/);
    expect(app.calls).toHaveLength(1);
    const { idempotencyKey, ...scheduled } = app.calls[0]!.arguments as Record<string, unknown>;
    const { dryRun: _, scheduledAt: __, ...content } = DRY_RUN;
    expect(app.calls[0]!.name).toBe('create_post');
    expect(scheduled).toEqual({ ...content, publishMode: 'SCHEDULE', scheduledAt: '2026-11-25 10:30:00' });
    expect(typeof idempotencyKey).toBe('string');
    const postId = Number((await app.view.locator('h1').textContent())!.match(/\d+/)![0]);
    const stored = await h.call('get_post', { brandId: 1, postId });
    expect(stored.structuredContent).toMatchObject({
      data: { status: 'scheduled', scheduledAt: '2026-11-25 10:30:00' },
    });

    // After the re-render the focus stays on the button pressed; Tab reaches the next one.
    await expect.poll(() => app.view.locator(':focus').getAttribute('id')).toBe('schedule');
    await app.page.keyboard.press('Tab');
    expect(await app.view.locator(':focus').getAttribute('id')).toBe('save-draft');
    await app.page.keyboard.press('Space');
    await expect.poll(() => app.view.locator('h1').textContent()).toBe(`Post ${postId} · draft`);
    expect(app.calls[1]).toEqual({
      name: 'update_post',
      arguments: { brandId: 1, postId, publishMode: 'DRAFT' },
    });

    await app.view.locator('#publish-now').focus();
    await app.page.keyboard.press('Enter');
    await expect.poll(() => app.calls.length).toBe(3);
    expect(app.calls[2]).toEqual({ name: 'publish_post', arguments: { brandId: 1, postId } });
    await expect.poll(() => app.view.locator('#status').textContent()).toContain(`Post ${postId}`);
    // The view said only what the protocol has.
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

  it('follows a change of the host theme; without a time, Schedule asks for one and app.calls nothing', async () => {
    const args = { ...DRY_RUN, publishMode: 'DRAFT', scheduledAt: undefined };
    await app.showToolResult(args, await h.call('create_post', args));
    await app.sendToView('ui/notifications/host-context-changed', {
      theme: 'light',
      styles: { variables: { '--color-background-primary': 'rgb(250, 250, 245)' } },
    });
    await expect.poll(() => app.viewBackground()).toBe('rgb(250, 250, 245)');
    expect(await app.view.locator('html').getAttribute('data-theme')).toBe('light');
    expect(await app.view.locator('.times').textContent()).toBe('No time set');
    await app.view.locator('#schedule').focus();
    await app.page.keyboard.press('Enter');
    await expect.poll(() => app.view.locator('#status').textContent()).toBe('Choose a time first.');
    expect(await app.view.locator(':focus').getAttribute('id')).toBe('when');
    expect(app.calls).toEqual([]);
  });
});
