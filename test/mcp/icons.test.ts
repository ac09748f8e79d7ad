/**
 * The icons a host shows for the server and each tool (MCP 2025-11-25 `icons`), through the real SDK
 * client: the server's in its initialize answer, one for every tool in tools/list, each an inline SVG
 * (`data:image/svg+xml`, nothing for a host to fetch) that is a whole SVG document; the post tools share
 * one, and each kind of tool has its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpHarness, openMcpHarness } from './harness.js';

let mcp: McpHarness;
beforeAll(async () => {
  mcp = await openMcpHarness();
});
afterAll(() => mcp.close());

function svgOf(icon: { src: string; mimeType?: string; sizes?: string[] }): string {
  expect(icon.mimeType).toBe('image/svg+xml');
  expect(icon.sizes).toEqual(['any']);
  const [, base64] = /^data:image\/svg\+xml;base64,(.+)$/.exec(icon.src) ?? [];
  expect(base64, icon.src.slice(0, 40)).toBeDefined();
  return Buffer.from(base64!, 'base64').toString('utf8');
}

describe('icons', () => {
  it('the server has one, in its initialize answer', () => {
    const info = mcp.client.getServerVersion() as { icons?: { src: string }[] };
    expect(info.icons).toHaveLength(1);
    const svg = svgOf(info.icons![0]!);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 24 24"[^>]*>.*<\/svg>$/);
  });

  it('every tool has one inline SVG; tools of one kind share it, kinds differ', () => {
    const byTool = new Map(mcp.tools.map((tool) => [tool.name, tool.icons ?? []]));
    for (const [name, icons] of byTool) {
      expect(icons, name).toHaveLength(1);
      expect(svgOf(icons[0]!), name).toMatch(/^<svg .*<\/svg>$/);
    }
    const src = (name: string) => byTool.get(name)?.[0]?.src;
    expect(src('create_post')).toBe(src('publish_post'));
    expect(src('list_posts')).toBe(src('get_queue'));
    expect(src('upload_media')).not.toBe(src('create_post'));
    expect(src('get_queue')).not.toBe(src('create_post'));
    expect(src('list_channels')).not.toBe(src('list_brands'));
  });
});
