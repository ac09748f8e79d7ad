/**
 * The post preview as an MCP App (the `io.modelcontextprotocol/ui` extension, spec 2026-01-26): all that
 * ties it to the protocol is here (the queue calendar, queue-calendar-app.ts, uses the same functions),
 * so that moving to another SDK moves this module. For a client that declared the extension: tools/list gives create_post, get_post and update_post `_meta.ui.resourceUri`;
 * resources/list shows the page and resources/read serves it; and those tools' results carry
 * the preview's data in `_meta` (post-preview.ts), which the page renders. Their text and structured
 * content stay as they are, for hosts without apps and for the model.
 */

import type { CallToolResult, ClientCapabilities, McpServer, Tool } from '@modelcontextprotocol/server';
import type { CreatedPost, Post } from '../domain/post-schemas.js';
import type { PublishingService } from '../service/publishing-service.js';
import type { PostPreview } from './post-preview.js';

export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
export const POST_PREVIEW_URI = 'ui://social-publisher/post-preview.html';
/** Where a tool result carries the preview's data (not shown to the model). */
export const POST_PREVIEW_META = 'social-publisher/post-preview';

type Preview = (
  service: PublishingService,
  args: Record<string, unknown>,
  data: never,
) => Promise<PostPreview>;

/** The tools whose results the page shows, and how each one's result becomes a preview. */
const PREVIEWED: Record<string, Preview> = {
  create_post: async (service, args, created: CreatedPost) => {
    const { previewDryRun, previewStoredPost } = await import('./post-preview.js');
    if (created.dryRun || created.id === null) return previewDryRun(service, args, created.warnings ?? []);
    const post = await service.getPost({ brandId: args.brandId, postId: created.id });
    return previewStoredPost(service, { ...post, warnings: created.warnings ?? [] });
  },
  get_post: async (service, _args, post: Post) =>
    (await import('./post-preview.js')).previewStoredPost(service, post),
  update_post: async (service, _args, post: Post) =>
    (await import('./post-preview.js')).previewStoredPost(service, {
      ...post,
      warnings: post.warnings ?? [],
    }),
};

/** Whether the client renders MCP Apps: it declared the extension with the page's MIME type. */
export function rendersApps(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = capabilities?.extensions as
    | Record<string, { mimeTypes?: unknown } | undefined>
    | undefined;
  const mimeTypes = extensions?.[APPS_EXTENSION]?.mimeTypes;
  return Array.isArray(mimeTypes) && mimeTypes.includes(APP_MIME_TYPE);
}

/** The tools whose results the post preview shows, and its page. */
export const POST_PREVIEW_TOOLS: Record<string, string> = Object.fromEntries(
  Object.keys(PREVIEWED).map((name) => [name, POST_PREVIEW_URI]),
);

/** tools/list for a client that renders apps: each tool of `pages` names its page. */
export function withAppMeta(tools: Tool[], pages: Record<string, string>): Tool[] {
  return tools.map((tool) => {
    const uri = pages[tool.name];
    // The flat key is the spec's deprecated form, which hosts of early 2026 still read.
    return uri
      ? { ...tool, _meta: { ...tool._meta, ui: { resourceUri: uri }, 'ui/resourceUri': uri } }
      : tool;
  });
}

/**
 * Registers a page. On MCP 2025-11-25 it is listed for a client that renders apps only, once the client
 * has said so in `initialize` (the spec lets a server leave UI resources out of resources/list); the
 * field is set, not `enable()` called, which would send a list_changed notification this server says it
 * never sends. On 2026-07-28 the client states its capabilities with each request, after the server is
 * made: the page is always there.
 */
export function registerAppPage(
  server: McpServer,
  app: { name: string; uri: string; title: string; description: string; page: () => Promise<string> },
  era: 'legacy' | 'modern',
): void {
  const page = server.registerResource(
    app.name,
    app.uri,
    { title: app.title, description: app.description, mimeType: APP_MIME_TYPE },
    async () => ({
      contents: [
        {
          uri: app.uri,
          mimeType: APP_MIME_TYPE,
          text: await app.page(),
          // No csp: the spec's restrictive default (no connections, images only from data:) is all it needs.
          _meta: { ui: { prefersBorder: true } },
        },
      ],
    }),
  );
  if (era === 'modern') return;
  page.enabled = false;
  const initialized = server.server.oninitialized;
  server.server.oninitialized = () => {
    initialized?.();
    page.enabled = rendersApps(server.server.getClientCapabilities());
  };
}

export function registerPostPreviewPage(server: McpServer, era: 'legacy' | 'modern'): void {
  registerAppPage(
    server,
    {
      name: 'post-preview',
      uri: POST_PREVIEW_URI,
      title: 'Post preview',
      description:
        'How a post will appear on each channel of its collection, with its warnings, time and buttons to publish, schedule or save it (an MCP App).',
      page: async () => (await import('./post-preview-page.js')).postPreviewPage(),
    },
    era,
  );
}

/**
 * The result with the preview's data in `_meta`, for a client that renders apps; unchanged otherwise.
 * A preview that cannot be made leaves the result as it is: the call itself succeeded.
 */
export async function withPostPreview(
  capabilities: ClientCapabilities | undefined,
  service: PublishingService,
  call: { name: string; args: Record<string, unknown>; data: unknown },
  result: CallToolResult,
  log: (message: string, error: unknown) => void,
): Promise<CallToolResult> {
  const preview = PREVIEWED[call.name];
  if (!preview || !rendersApps(capabilities)) return result;
  try {
    const data = await preview(service, call.args, call.data as never);
    return { ...result, _meta: { ...result._meta, [POST_PREVIEW_META]: data } };
  } catch (error) {
    log(`the post preview of ${call.name} could not be made`, error);
    return result;
  }
}
