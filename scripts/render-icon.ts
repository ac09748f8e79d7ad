/**
 * Renders the server's icon (the SVG of SERVER_ICONS in src/mcp/icons.ts, the one MCP hosts show) to the
 * PNG the bundle's manifest names (MCPB wants a PNG file; 512×512 is what Claude Desktop recommends),
 * with Debian's Chromium through playwright-core: the SVG drawn on a transparent canvas of that size.
 * `npm run icon` rewrites assets/icon.png; test/bundle/icon.test.ts renders it again and compares.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { SERVER_ICONS } from '../src/mcp/icons.js';

export const ICON_SIZE = 512;
export const ICON_PATH = 'assets/icon.png';
const ROOT = join(import.meta.dirname, '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The server icon's `data:` address (an SVG), as the server announces it. */
export function serverIconSvgUrl(): string {
  const icon = SERVER_ICONS.find((entry) => entry.mimeType === 'image/svg+xml');
  if (!icon) throw new Error('src/mcp/icons.ts has no SVG server icon');
  return icon.src;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }).catch((error: Error) => {
    throw new Error(`Cannot start Chromium at ${CHROMIUM} (apt-get install -y chromium): ${error.message}`);
  });
}

/**
 * Page code (plain JavaScript: the page has the DOM, this program's types do not): draws each image
 * address on a size×size canvas and gives back its PNG encoding and its pixels (RGBA), both base64.
 */
const DRAW = `async ({ sources, size }) => {
  const drawn = [];
  for (const src of sources) {
    const image = new Image();
    await new Promise((resolve, reject) => {
      image.onload = resolve;
      image.onerror = () => reject(new Error('the page cannot load ' + src.slice(0, 40)));
      image.src = src;
    });
    const canvas = document.createElement('canvas');
    canvas.width = size;
    canvas.height = size;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0, size, size);
    const pixels = context.getImageData(0, 0, size, size).data;
    let binary = '';
    for (let i = 0; i < pixels.length; i += 0x8000) {
      binary += String.fromCharCode.apply(null, pixels.subarray(i, i + 0x8000));
    }
    drawn.push({ png: canvas.toDataURL('image/png').split(',')[1], pixels: btoa(binary) });
  }
  return drawn;
}`;

export interface Drawn {
  /** The canvas as PNG. */
  png: Buffer;
  /** RGBA, row by row. */
  pixels: Buffer;
}

/** Each image address (SVG or PNG) drawn at size×size in Chromium. */
export async function draw(browser: Browser, sources: string[], size = ICON_SIZE): Promise<Drawn[]> {
  const page = await browser.newPage();
  try {
    const drawn: Array<{ png: string; pixels: string }> = await page.evaluate(
      `(${DRAW})(${JSON.stringify({ sources, size })})`,
    );
    return drawn.map(({ png, pixels }) => ({
      png: Buffer.from(png, 'base64'),
      pixels: Buffer.from(pixels, 'base64'),
    }));
  } finally {
    await page.close();
  }
}

/** The server icon as a PNG of ICON_SIZE × ICON_SIZE. */
export async function renderServerIcon(browser: Browser): Promise<Buffer> {
  const [drawn] = await draw(browser, [serverIconSvgUrl()]);
  return drawn!.png;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const browser = await launchChromium();
  try {
    const png = await renderServerIcon(browser);
    writeFileSync(join(ROOT, ICON_PATH), png);
    console.warn(`${ICON_PATH}: ${ICON_SIZE}×${ICON_SIZE}, ${png.length} bytes`);
  } finally {
    await browser.close();
  }
}
