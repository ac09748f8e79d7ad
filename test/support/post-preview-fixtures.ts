/**
 * What the post preview tests (protocol and browser) send: a client's MCP Apps capability, and a post
 * that tries every channel of the demo collection "Everywhere": a caption past X's and Bluesky's limits,
 * with emoji, a five-image carousel (by URL, which the page never loads, or uploaded images, which it
 * shows as `data:` thumbnails), a poll, a link and a comment.
 */
import { crc32, deflateSync } from 'node:zlib';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PostPreview } from '../../src/mcp/post-preview.js';
import { APP_MIME_TYPE, APPS_EXTENSION, POST_PREVIEW_META } from '../../src/mcp/post-preview-app.js';

export const APPS = { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } };

/** A caption past X's 280 (emoji count 2 there) and Bluesky's 300, well within the others. */
export const LONG_CAPTION = `Winter blend is back ☕️🎉 ${'Dark chocolate, orange peel and a slow finish. '.repeat(6)}See you at the bar 👋🏽`;
export const CAROUSEL = [1, 2, 3, 4, 5].map((n) => ({ url: `https://cdn.example.com/winter-${n}.jpg` }));
export const POLL = { question: 'Which roast?', options: ['Light 🌤️', 'Dark 🌑'], period: '1d' };

/** create_post's dry run of that post, scheduled for Tuesday 09:00 in New York. */
export const DRY_RUN = {
  brandId: 1,
  collectionId: 1,
  publishMode: 'SCHEDULE',
  scheduledAt: '2026-11-24 09:00:00',
  caption: LONG_CAPTION,
  media: CAROUSEL,
  poll: POLL,
  link: 'https://northwind.example/winter',
  comment: { comment: 'Order ahead in the app', delay: 60 },
  dryRun: true,
};

export const previewOf = (result: CallToolResult) => result._meta?.[POST_PREVIEW_META] as PostPreview;

/** The dry run with a carousel that starts with these uploaded media, then URLs: five in all. */
export function withUploads(mediaIds: readonly string[]) {
  return { ...DRY_RUN, media: [...mediaIds.map((id) => ({ id })), ...CAROUSEL].slice(0, 5) };
}

/** A `size`×`size` RGB PNG, a diagonal gradient between two colours: a small image to upload. */
export function gradientPng(size: number, from: readonly number[], to: readonly number[]): Buffer {
  const rows = Array.from({ length: size }, (_, y) => {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x += 1) {
      const t = (x + y) / (2 * size - 2);
      for (let c = 0; c < 3; c += 1) row[1 + x * 3 + c] = Math.round(from[c]! + (to[c]! - from[c]!) * t);
    }
    return row;
  });
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const frame = Buffer.alloc(8 + data.length + 4);
    frame.writeUInt32BE(data.length, 0);
    body.copy(frame, 4);
    frame.writeUInt32BE(crc32(body), 8 + data.length);
    return frame;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
