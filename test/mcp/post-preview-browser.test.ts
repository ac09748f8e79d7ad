/**
 * The post preview page in a real browser: Debian's Chromium, headless, driven by playwright-core, in a
 * small host (test/support/apps-host.ts) that speaks the apps' postMessage protocol and serves the page
 * under the spec's default CSP. The host gets the page and the tool results from our MCP server through
 * the real SDK client, and passes the page's `tools/call` requests back to it. The page renders every
 * platform of the demo collection from a long caption with emoji, a carousel and a poll, takes the
 * host's theme, and its buttons, pressed from the keyboard, make the tool calls they say.
 * Writes docs/images/post-preview.png.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Browser, chromium, type FrameLocator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POST_PREVIEW_URI } from '../../src/mcp/post-preview-app.js';
import { type AppsHost, startAppsHost } from '../support/apps-host.js';
import { APPS, gradientPng, previewOf, withUploads } from '../support/post-preview-fixtures.js';
import { type McpHarness, openMcpHarness } from './harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = join(import.meta.dirname, '..', '..', 'docs', 'images', 'post-preview.png');
const WIDTH = 1200;
const HOST_CONTEXT = {
  theme: 'dark',
  displayMode: 'inline',
  styles: { variables: { '--color-background-primary': 'rgb(20, 24, 33)', '--font-sans': 'sans-serif' } },
};

/** The host page's window (test/support/apps-host.ts), written inline in each page function: these run in the page. */
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
/** The page's tools/call requests, as the host passed them on. */
let calls: CallToolRequest['params'][];
let consoleErrors: string[];
/** The dry run, its carousel starting with two uploaded images. */
let DRY_RUN: ReturnType<typeof withUploads>;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  h = await openMcpHarness({ capabilities: APPS });
  const upload = async (bytes: Buffer, filename: string) =>
    (
      (await h.call('upload_media', { brandId: 1, base64: bytes.toString('base64'), filename }))
        .structuredContent as { data: { id: string } }
    ).data.id;
  DRY_RUN = withUploads([
    await upload(gradientPng(48, [255, 140, 0], [120, 40, 200]), 'sunrise.png'),
    await upload(gradientPng(48, [0, 170, 160], [20, 30, 90]), 'harbour.png'),
  ]);
  const { contents } = await h.client.readResource({ uri: POST_PREVIEW_URI });
  host = await startAppsHost((contents[0] as { text: string }).text, HOST_CONTEXT, WIDTH);
  // --no-sandbox: Chromium's own sandbox needs user namespaces, which containers run as root lack.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await h?.close();
});

beforeEach(async () => {
  calls = [];
  consoleErrors = [];
  page = await browser.newPage({ viewport: { width: WIDTH, height: 800 } });
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
});

afterEach(async () => {
  await page?.close();
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

const card = (type: string) => view.locator(`section[data-type="${type}"]`);

describe('the post preview in Chromium', () => {
  it('renders every platform: its text cut where the platform cuts it, its count, media, poll and warnings', async () => {
    const result = await h.call('create_post', DRY_RUN);
    const preview = previewOf(result);
    await showToolResult(DRY_RUN, result);
    await expect.poll(() => view.locator('section.channel').count()).toBe(12);
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
    expect(await view.locator('.times').textContent()).toContain('2026-11-24T14:00:00Z UTC');
    expect(await view.locator('.times time').textContent()).toContain('Tuesday, November 24, 2026 at 09:00');
    // The host's theme: its variable and its dark scheme.
    expect(
      await view
        .locator('body')
        .evaluate((body) => (globalThis as unknown as HostWindow).getComputedStyle(body).backgroundColor),
    ).toBe('rgb(20, 24, 33)');
    expect(await view.locator('html').getAttribute('data-theme')).toBe('dark');
    expect(consoleErrors).toEqual([]);
    // Chromium paints a cross-origin frame only where the viewport shows it: make room for all of it.
    const height = await page.locator('#view').evaluate((frame) => frame.getBoundingClientRect().height);
    await page.setViewportSize({ width: WIDTH, height: Math.ceil(height) });
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.locator('#view').screenshot({ path: SCREENSHOT });
  });

  it('the buttons, from the keyboard: schedule, save as draft and publish now reach the server', async () => {
    const result = await h.call('create_post', DRY_RUN);
    await showToolResult(DRY_RUN, result);
    await view.locator('#when').fill('2026-11-25T10:30:00');
    await view.locator('#schedule').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => view.locator('h1').textContent()).toMatch(/^Post \d+ · scheduled$/);
    expect(calls).toHaveLength(1);
    const { idempotencyKey, ...scheduled } = calls[0]!.arguments as Record<string, unknown>;
    const { dryRun: _, scheduledAt: __, ...content } = DRY_RUN;
    expect(calls[0]!.name).toBe('create_post');
    expect(scheduled).toEqual({ ...content, publishMode: 'SCHEDULE', scheduledAt: '2026-11-25 10:30:00' });
    expect(typeof idempotencyKey).toBe('string');
    const postId = Number((await view.locator('h1').textContent())!.match(/\d+/)![0]);
    const stored = await h.call('get_post', { brandId: 1, postId });
    expect(stored.structuredContent).toMatchObject({
      data: { status: 'scheduled', scheduledAt: '2026-11-25 10:30:00' },
    });

    // After the re-render the focus stays on the button pressed; Tab reaches the next one.
    await expect.poll(() => view.locator(':focus').getAttribute('id')).toBe('schedule');
    await page.keyboard.press('Tab');
    expect(await view.locator(':focus').getAttribute('id')).toBe('save-draft');
    await page.keyboard.press('Space');
    await expect.poll(() => view.locator('h1').textContent()).toBe(`Post ${postId} · draft`);
    expect(calls[1]).toEqual({
      name: 'update_post',
      arguments: { brandId: 1, postId, publishMode: 'DRAFT' },
    });

    await view.locator('#publish-now').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => calls.length).toBe(3);
    expect(calls[2]).toEqual({ name: 'publish_post', arguments: { brandId: 1, postId } });
    await expect.poll(() => view.locator('#status').textContent()).toContain(`Post ${postId}`);
    // The view said only what the protocol has.
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
  });

  it('follows a change of the host theme; without a time, Schedule asks for one and calls nothing', async () => {
    const args = { ...DRY_RUN, publishMode: 'DRAFT', scheduledAt: undefined };
    await showToolResult(args, await h.call('create_post', args));
    await page.evaluate(() =>
      (globalThis as unknown as HostWindow).sendToView('ui/notifications/host-context-changed', {
        theme: 'light',
        styles: { variables: { '--color-background-primary': 'rgb(250, 250, 245)' } },
      }),
    );
    await expect
      .poll(() =>
        view
          .locator('body')
          .evaluate((body) => (globalThis as unknown as HostWindow).getComputedStyle(body).backgroundColor),
      )
      .toBe('rgb(250, 250, 245)');
    expect(await view.locator('html').getAttribute('data-theme')).toBe('light');
    expect(await view.locator('.times').textContent()).toBe('No time set');
    await view.locator('#schedule').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => view.locator('#status').textContent()).toBe('Choose a time first.');
    expect(await view.locator(':focus').getAttribute('id')).toBe('when');
    expect(calls).toEqual([]);
  });
});
