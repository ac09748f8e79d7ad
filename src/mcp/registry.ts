/** Every MCP tool, in the order tools/list shows them. */
import type { ToolDefinition } from './tool.js';
import { createPost } from './tools/create-post.js';
import { deletePost } from './tools/delete-post.js';
import { getChannel } from './tools/get-channel.js';
import { getPost } from './tools/get-post.js';
import { getProfile } from './tools/get-profile.js';
import { getQueue } from './tools/get-queue.js';
import { listBrands } from './tools/list-brands.js';
import { listChannels } from './tools/list-channels.js';
import { listCollections } from './tools/list-collections.js';
import { listPosts } from './tools/list-posts.js';
import { publishPost } from './tools/publish-post.js';
import { updatePost } from './tools/update-post.js';
import { uploadMedia } from './tools/upload-media.js';

export const TOOLS: readonly ToolDefinition[] = [
  getProfile,
  listBrands,
  listChannels,
  getChannel,
  listCollections,
  uploadMedia,
  createPost,
  listPosts,
  getPost,
  updatePost,
  deletePost,
  publishPost,
  getQueue,
];
