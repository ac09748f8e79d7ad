/**
 * What the server says of itself in the MCP handshake: its identity, instructions and capabilities.
 * No dependency: main.ts reads the name before anything is loaded.
 */
import type { ToolSelection } from './toolsets.js';

export const SERVER_NAME = 'social-publisher-mcp';
export const SERVER_TITLE = 'Social Publisher';

export const INSTRUCTIONS = [
  'Publishes social-media posts for brands. Workflow: list_brands → list_collections (pick the collection whose channels',
  'should get the post) → optionally upload_media → create_post. Times (scheduledAt) are local wall-clock times in the',
  "brand's timezone, format Y-m-d H:i:s. get_queue shows the brand's local time and next free queue times. After",
  'creating: list_posts and get_post show posts and their deliveries; update_post, publish_post and delete_post',
  'change a post while it is a draft, queued or scheduled. Errors name each invalid field; fix those fields and call again.',
].join(' ');

/** The instructions for a server offering only some tools (mcp/toolsets.ts): what it can and cannot do. */
export function instructionsFor(selection: ToolSelection): string {
  if (!selection.readOnly && !selection.toolsets) return INSTRUCTIONS;
  const limits = [
    selection.readOnly
      ? 'This server is read-only: it shows brands, channels, collections, posts and queues, but creates, changes and publishes nothing.'
      : '',
    selection.toolsets
      ? `It offers only the ${selection.toolsets.join(', ')} toolset${selection.toolsets.length === 1 ? '' : 's'}; tools/list shows which tools.`
      : '',
  ];
  return [INSTRUCTIONS, ...limits.filter(Boolean)].join(' ');
}

/**
 * No list ever changes while the server runs. Where this process publishes (not in remote mode), its
 * resources change as posts go out (`subscribe`), and 2025 clients also hear of it as log messages.
 */
export function serverCapabilities(says: { logging: boolean; updates: boolean }) {
  return {
    ...(says.logging ? { logging: {} } : {}),
    completions: {},
    prompts: { listChanged: false },
    resources: { listChanged: false, ...(says.updates ? { subscribe: true } : {}) },
    tools: { listChanged: false },
  };
}
