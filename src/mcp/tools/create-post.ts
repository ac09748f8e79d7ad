import { CreatedPost, CreatePostRequest } from '../../domain/post-schemas.js';
import { describeNewPost, requireConfirmation } from '../confirm.js';
import { warningLines } from '../post-summary.js';
import { defineTool } from '../tool.js';

export const createPost = defineTool({
  name: 'create_post',
  title: 'Create post',
  description: [
    'Creates a post in a collection; it goes to every channel of that collection.',
    'First call list_brands (brandId, timezone), then list_collections (collectionId).',
    "publishMode: SCHEDULE publishes at scheduledAt; QUEUE takes the brand's next free queue time (get_queue shows it); IMMEDIATE publishes now (the user may be asked to confirm); DRAFT only saves.",
    'scheduledAt is a wall-clock time in the BRAND\'s timezone (not UTC, not the user\'s), format Y-m-d H:i:s, e.g. "2026-11-24 09:00:00", and must be in the future.',
    'caption (1-3000 characters) is required unless a poll is given. Attach media by id (from upload_media) or by public url.',
    'dryRun: true checks everything and tells what would happen, storing nothing. Pass an idempotencyKey to make a retry safe: the same key returns the first post.',
    "The result states the resolved time in the brand's timezone and in UTC: tell the user.",
  ].join(' '),
  input: CreatePostRequest,
  output: CreatedPost,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async handle(service, args, context) {
    if (args.publishMode === 'IMMEDIATE' && args.dryRun !== true) {
      await requireConfirmation(context, async () => {
        // The dry run reports every validation error before the user is asked anything.
        const preview = await service.createPost({ ...args, dryRun: true });
        return {
          question: await describeNewPost(service, args, preview),
          notDone: 'Not published: the user did not confirm, so no post was created.',
        };
      });
    }
    const created = await service.createPost(args);
    return {
      body: { status: 'success', data: created },
      summary: [...warningLines(created.warnings), created.message].join('\n'),
    };
  },
});
