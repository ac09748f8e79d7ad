import { EDITABLE_STATUSES, Post, PostRequest } from '../../domain/post-schemas.js';
import { describeStoredPost, requireConfirmation } from '../confirm.js';
import { describePostState, postSummary } from '../post-summary.js';
import { defineTool } from '../tool.js';

export const publishPost = defineTool({
  name: 'publish_post',
  title: 'Publish post now',
  toolset: 'lifecycle',
  description: [
    'Publishes a draft, queued or scheduled post now to every channel of its collection, checked as for IMMEDIATE.',
    'It cannot be unpublished; the user may be asked to confirm. To move it to another time, use update_post.',
  ].join(' '),
  input: PostRequest,
  output: Post,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async handle(service, args, context) {
    await requireConfirmation(context, async () => {
      const post = await service.getPost(args);
      // A post past publishing is refused by the service, with the reason: nothing to ask.
      if (!EDITABLE_STATUSES.has(post.status)) return undefined;
      return {
        question: await describeStoredPost(
          service,
          post,
          `Publish post ${post.id} now, instead of at its planned time? It cannot be unpublished from here.`,
        ),
        notDone: `Not published: the user did not confirm, so post ${post.id} is unchanged (${describePostState(post)}).`,
      };
    });
    const post = await service.publishPost(args);
    return { body: { status: 'success', data: post }, summary: postSummary(post) };
  },
});
