import { CreatedPost, CreatePostRequest } from '../../domain/post-schemas.js';
import { describeNewPost, requireConfirmation } from '../confirm.js';
import { warningLines } from '../post-summary.js';
import { defineTool } from '../tool.js';

export const createPost = defineTool({
  name: 'create_post',
  title: 'Create post',
  toolset: 'posting',
  description: [
    "Creates a post in a collection: it goes to every channel of the collection. brandId and the brand's timezone come from list_brands, collectionId from list_collections.",
    'IMMEDIATE may ask the user to confirm. dryRun checks everything and says what would happen, per channel too, storing nothing.',
    "The result gives the time in the brand's timezone and in UTC: tell the user.",
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
