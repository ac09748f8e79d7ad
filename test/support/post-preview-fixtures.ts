/**
 * What the post preview tests (protocol and browser) send: a client's MCP Apps capability, and a post
 * that tries every channel of the demo collection "Everywhere": a caption past X's and Bluesky's limits,
 * with emoji, a five-image carousel (by URL: the page never loads them), a poll, a link and a comment.
 */
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
