import { CreatedPost, CreatePostRequest } from '../../domain/post-schemas.js';
import { defineTool } from '../tool.js';

export const createPost = defineTool({
  name: 'create_post',
  title: 'Create post',
  description: [
    'Creates a post in a collection; it goes to every channel of that collection.',
    'First call list_brands (brandId, timezone), then list_collections (collectionId).',
    "publishMode: SCHEDULE publishes at scheduledAt; QUEUE takes the brand's next free queue time; IMMEDIATE publishes now; DRAFT only saves.",
    'scheduledAt is a wall-clock time in the BRAND\'s timezone (not UTC, not the user\'s), format Y-m-d H:i:s, e.g. "2026-11-24 09:00:00", and must be in the future.',
    'caption (1-3000 characters) is required unless a poll is given. Attach media by id (from upload_media) or by public url.',
    "The result states the resolved time in the brand's timezone and in UTC: tell the user.",
  ].join(' '),
  input: CreatePostRequest,
  output: CreatedPost,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async handle(service, args) {
    const created = await service.createPost(args);
    return { body: { status: 'success', data: created }, summary: created.message };
  },
});
