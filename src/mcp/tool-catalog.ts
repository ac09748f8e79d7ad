/**
 * The tools as a server meets them before loading any: each tool's name, toolset and whether it only
 * reads (what tool selection needs), and the loading of its definition. A tool's module, with the zod
 * schemas it validates with, is loaded on its first call, so that a start loads only what it uses.
 * tools/list comes from the build (scripts/build.mjs defines `__TOOL_LIST__`, its JSON text); from
 * source it is derived here.
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { ToolDefinition } from './tool.js';
import type { Toolset } from './toolsets.js';

/** One tool before it is loaded. */
export interface CatalogEntry {
  name: string;
  toolset: Toolset;
  annotations: { readOnlyHint: boolean };
  /** The definition, loaded once. */
  load(): Promise<ToolDefinition>;
}

function entry(
  name: string,
  toolset: Toolset,
  readOnlyHint: boolean,
  load: () => Promise<ToolDefinition>,
): CatalogEntry {
  let loaded: Promise<ToolDefinition> | undefined;
  return { name, toolset, annotations: { readOnlyHint }, load: () => (loaded ??= load()) };
}

/**
 * Every tool, in the order tools/list shows them. The toolset and read-only flag repeat what each tool
 * file says, so that selection needs no tool loaded; `loadAllTools` checks that they agree.
 */
export const TOOL_CATALOG: readonly CatalogEntry[] = [
  entry('get_profile', 'workspace', true, async () => (await import('./tools/get-profile.js')).getProfile),
  entry('list_brands', 'workspace', true, async () => (await import('./tools/list-brands.js')).listBrands),
  entry(
    'list_channels',
    'workspace',
    true,
    async () => (await import('./tools/list-channels.js')).listChannels,
  ),
  entry('get_channel', 'workspace', true, async () => (await import('./tools/get-channel.js')).getChannel),
  entry(
    'list_collections',
    'workspace',
    true,
    async () => (await import('./tools/list-collections.js')).listCollections,
  ),
  entry('upload_media', 'media', false, async () => (await import('./tools/upload-media.js')).uploadMedia),
  entry('create_post', 'posting', false, async () => (await import('./tools/create-post.js')).createPost),
  entry('list_posts', 'lifecycle', true, async () => (await import('./tools/list-posts.js')).listPosts),
  entry('get_post', 'lifecycle', true, async () => (await import('./tools/get-post.js')).getPost),
  entry('update_post', 'lifecycle', false, async () => (await import('./tools/update-post.js')).updatePost),
  entry('delete_post', 'lifecycle', false, async () => (await import('./tools/delete-post.js')).deletePost),
  entry(
    'publish_post',
    'lifecycle',
    false,
    async () => (await import('./tools/publish-post.js')).publishPost,
  ),
  entry('get_queue', 'lifecycle', true, async () => (await import('./tools/get-queue.js')).getQueue),
  entry(
    'connect_channel',
    'connections',
    false,
    async () => (await import('./tools/connect-channel.js')).connectChannel,
  ),
];

/** Every tool's definition, checked against what the catalog says of it. */
export async function loadAllTools(): Promise<ToolDefinition[]> {
  return Promise.all(
    TOOL_CATALOG.map(async (entry) => {
      const tool = await entry.load();
      const says = `${tool.name} ${tool.toolset} ${tool.annotations.readOnlyHint}`;
      const catalogSays = `${entry.name} ${entry.toolset} ${entry.annotations.readOnlyHint}`;
      if (says !== catalogSays)
        throw new Error(`tool-catalog.ts says "${catalogSays}" of a tool that says "${says}"`);
      return tool;
    }),
  );
}

declare const __TOOL_LIST__: string | undefined;
let listed: Promise<Tool[]> | undefined;

/** Every tool's tools/list entry, computed once per process. */
export function listedTools(): Promise<Tool[]> {
  listed ??=
    typeof __TOOL_LIST__ === 'string'
      ? // JSON text: parsing it is several times faster than compiling the same object as code.
        Promise.resolve(JSON.parse(__TOOL_LIST__) as Tool[])
      : Promise.all([import('./tool-list.js'), loadAllTools()]).then(([{ listedTools }, tools]) =>
          listedTools(tools),
        );
  return listed;
}
