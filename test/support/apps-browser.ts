/**
 * What the browser tests of the MCP Apps share: our MCP server with the real SDK client (harness.ts),
 * the app's page read through resources/read and served by the small host (apps-host.ts) under the
 * spec's default CSP, and Debian's Chromium, headless, driven by playwright-core. Each page opened is
 * the host with the app in its sandboxed iframe; the app's `tools/call` requests go to the server
 * through the client and are kept in `calls`, and the console's errors in `consoleErrors`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Browser, chromium, type FrameLocator, type Page } from 'playwright-core';
import { type McpHarness, type McpHarnessOptions, openMcpHarness } from '../mcp/harness.js';
import { type AppsHost, startAppsHost } from './apps-host.js';
import { APPS } from './post-preview-fixtures.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The host page's window (apps-host.ts), written inline in each page function: these run in the page. */
interface HostWindow {
  viewReady: Promise<void>;
  sendToView(method: string, params: unknown): void;
  fromView: Array<{ method?: string }>;
  getComputedStyle(element: unknown): { backgroundColor: string };
}

export interface AppPage {
  page: Page;
  /** The app's document, in the host's iframe. */
  view: FrameLocator;
  /** The app's tools/call requests, as the host passed them on. */
  calls: CallToolRequest['params'][];
  consoleErrors: string[];
  /** What a host does once the tool call that shows the app has been answered. */
  showToolResult(args: Record<string, unknown>, result: CallToolResult): Promise<void>;
  /** The host's notification to the app, as a host sends it. */
  sendToView(method: string, params: unknown): Promise<void>;
  /** The methods of all the messages the app sent the host. */
  methodsFromView(): Promise<Set<string | undefined>>;
  /** The app's body's background colour, as the browser computed it. */
  viewBackground(): Promise<string>;
  /** A picture of the whole app, for the docs. */
  screenshot(path: string): Promise<void>;
  close(): Promise<void>;
}

export interface AppsBrowser {
  h: McpHarness;
  /** The host page with the app, initialized. */
  openPage(options?: { height?: number; hasTouch?: boolean }): Promise<AppPage>;
  close(): Promise<void>;
}

export interface AppsBrowserOptions {
  /** The app's page, read with resources/read. */
  uri: string;
  /** What the host tells the app in `ui/initialize`. */
  hostContext: unknown;
  /** The iframe's width, which is also the browser's. */
  width: number;
  /** The server's and client's options; the client always declares the MCP Apps extension. */
  harness?: McpHarnessOptions;
}

export async function openAppsBrowser(options: AppsBrowserOptions): Promise<AppsBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  const { width } = options;
  const h = await openMcpHarness({ ...options.harness, capabilities: APPS });
  let host: AppsHost | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await host?.close();
    await h.close();
  };
  try {
    const { contents } = await h.client.readResource({ uri: options.uri });
    host = await startAppsHost((contents[0] as { text: string }).text, options.hostContext, width);
    // --no-sandbox: Chromium's own sandbox needs user namespaces, which containers run as root lack.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  } catch (error) {
    await close();
    throw error;
  }
  const url = host.url;
  const started = browser;
  return {
    h,
    openPage: async ({ height = 800, hasTouch = false } = {}) => {
      const page = await started.newPage({ viewport: { width, height }, hasTouch });
      const app = appPage(page, width);
      page.setDefaultTimeout(5_000);
      page.on('console', (message) => {
        if (message.type() === 'error') app.consoleErrors.push(message.text());
      });
      await page.exposeFunction('callTool', async (params: CallToolRequest['params']) => {
        app.calls.push(params);
        return h.client.callTool(params);
      });
      await page.goto(url);
      await page.evaluate(() => (globalThis as unknown as HostWindow).viewReady);
      return app;
    },
    close,
  };
}

function appPage(page: Page, width: number): AppPage {
  const view = page.frameLocator('#view');
  const sendToView = (method: string, params: unknown) =>
    page.evaluate(([name, body]) => (globalThis as unknown as HostWindow).sendToView(name, body), [
      method,
      params,
    ] as const);
  return {
    page,
    view,
    calls: [],
    consoleErrors: [],
    sendToView,
    async showToolResult(args, result) {
      await sendToView('ui/notifications/tool-input', { arguments: args });
      await sendToView('ui/notifications/tool-result', result);
    },
    methodsFromView: async () =>
      new Set(await page.evaluate(() => (globalThis as unknown as HostWindow).fromView.map((m) => m.method))),
    viewBackground: () =>
      view
        .locator('body')
        .evaluate((body) => (globalThis as unknown as HostWindow).getComputedStyle(body).backgroundColor),
    async screenshot(path) {
      // Chromium paints a cross-origin frame only where the viewport shows it: make room for all of it,
      // then give the page its size back (a viewport smaller than the page would let it scroll).
      const viewport = page.viewportSize();
      const height = await page.locator('#view').evaluate((frame) => frame.getBoundingClientRect().height);
      await page.setViewportSize({ width, height: Math.ceil(height) });
      mkdirSync(dirname(path), { recursive: true });
      await page.locator('#view').screenshot({ path });
      if (viewport) await page.setViewportSize(viewport);
    },
    close: () => page.close(),
  };
}
