/**
 * The bundle's icon (assets/icon.png, which manifest.json names): a 512×512 RGBA PNG of a sensible size,
 * and the server's own SVG icon (src/mcp/icons.ts) rendered: scripts/render-icon.ts draws the SVG again
 * in Debian's Chromium and the committed PNG must match it pixel for pixel, within antialiasing, while
 * another icon's drawing does not. A changed SVG without `npm run icon` fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Drawn,
  draw,
  ICON_PATH,
  ICON_SIZE,
  launchChromium,
  serverIconSvgUrl,
} from '../../scripts/render-icon.js';
import { toolIcons } from '../../src/mcp/icons.js';

const ROOT = join(import.meta.dirname, '..', '..');
const png = readFileSync(join(ROOT, ICON_PATH));
const manifest = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8')) as {
  icon: string;
  icons: Array<{ src: string; size: string }>;
};

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** How far two drawings are apart: the share of pixels with a channel more than 16 levels off. */
function difference(a: Drawn, b: Drawn): number {
  let off = 0;
  for (let i = 0; i < a.pixels.length; i += 4) {
    for (let channel = 0; channel < 4; channel++) {
      if (Math.abs(a.pixels[i + channel]! - b.pixels[i + channel]!) > 16) {
        off++;
        break;
      }
    }
  }
  return off / (a.pixels.length / 4);
}

describe('the bundle icon', () => {
  it('is the PNG manifest.json names, 512×512 RGBA, between 2 kB and 100 kB', () => {
    expect(manifest.icon).toBe(ICON_PATH);
    expect(manifest.icons).toEqual([{ src: ICON_PATH, size: `${ICON_SIZE}x${ICON_SIZE}` }]);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect(png.readUInt32BE(16)).toBe(ICON_SIZE); // width
    expect(png.readUInt32BE(20)).toBe(ICON_SIZE); // height
    expect(png[24]).toBe(8); // bit depth
    expect(png[25]).toBe(6); // colour type: RGBA, so the background stays transparent
    expect(png.length).toBeGreaterThan(2_000);
    expect(png.length).toBeLessThan(100_000);
  });

  it("is the server's SVG icon rendered: drawn again it matches, another icon does not", async () => {
    const committed = `data:image/png;base64,${png.toString('base64')}`;
    const otherIcon = toolIcons('create_post')[0]!.src;
    const [fromPng, fromSvg, other] = await draw(browser, [committed, serverIconSvgUrl(), otherIcon]);
    expect(fromPng!.pixels).toHaveLength(ICON_SIZE * ICON_SIZE * 4);
    // Not blank: the plane's stroke covers a good part of the square, the rest is transparent.
    const opaque = fromPng!.pixels.filter((value, i) => i % 4 === 3 && value > 128).length;
    expect(opaque / (ICON_SIZE * ICON_SIZE)).toBeGreaterThan(0.1);
    expect(opaque / (ICON_SIZE * ICON_SIZE)).toBeLessThan(0.6);
    expect(difference(fromPng!, fromSvg!), 'assets/icon.png is stale: run npm run icon').toBeLessThan(0.002);
    expect(difference(fromPng!, other!)).toBeGreaterThan(0.05);
  });
});
