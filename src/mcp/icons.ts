/**
 * The icons hosts show beside the server and its tools (MCP 2025-11-25 `icons`): small SVGs, inline as
 * `data:` addresses so that no host fetches anything, drawn in one mid-blue stroke that reads on a light
 * and a dark background alike. One for the server (a paper plane), one per kind of tool: posts, media,
 * the queue and calendar, channels and accounts, brands and the profile.
 */
import type { Icon } from '@modelcontextprotocol/server';

const STROKE = 'fill="none" stroke="#4f7cff" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"';

function svgIcon(paths: string): Icon[] {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" ${STROKE}>${paths}</svg>`;
  return [
    {
      src: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
      mimeType: 'image/svg+xml',
      sizes: ['any'],
    },
  ];
}

/** The server: a paper plane leaving a line. */
export const SERVER_ICONS = svgIcon('<path d="M22 2 11 13"/><path d="M22 2 15 22l-4-9-9-4z"/>');

const POST = svgIcon(
  '<path d="M14 3H6a1 1 0 0 0-1 1v16a1 1 0 0 0 1 1h12a1 1 0 0 0 1-1V8z"/><path d="M14 3v5h5M8 13h8M8 17h5"/>',
);
const MEDIA = svgIcon(
  '<rect x="3" y="4" width="18" height="16" rx="2"/><circle cx="9" cy="10" r="2"/><path d="m21 16-5-5-9 9"/>',
);
const QUEUE = svgIcon('<rect x="3" y="5" width="18" height="16" rx="2"/><path d="M3 10h18M8 3v4M16 3v4"/>');
const CHANNEL = svgIcon(
  '<path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1"/><path d="M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1"/>',
);
const BRAND = svgIcon('<circle cx="12" cy="8" r="4"/><path d="M4 21a8 8 0 0 1 16 0"/>');

const BY_TOOL: Record<string, Icon[]> = {
  get_profile: BRAND,
  list_brands: BRAND,
  list_channels: CHANNEL,
  get_channel: CHANNEL,
  connect_channel: CHANNEL,
  list_collections: CHANNEL,
  upload_media: MEDIA,
  get_queue: QUEUE,
  list_posts: QUEUE,
};

/** A tool's icons: its kind's, or the post's for the post tools (create, get, update, publish, delete). */
export function toolIcons(name: string): Icon[] {
  return BY_TOOL[name] ?? POST;
}
