import { DeletedPost, EDITABLE_STATUSES, PostRequest } from '../../domain/post-schemas.js';
import { describeStoredPost, requireConfirmation } from '../confirm.js';
import { describePostState } from '../post-summary.js';
import { defineTool } from '../tool.js';

export const deletePost = defineTool({
  name: 'delete_post',
  title: 'Delete or cancel post',
  toolset: 'lifecycle',
  description: [
    'Cancels a queued or scheduled post (its queue time is freed) or deletes a draft. Not for a post publishing or',
    'published. The user may be asked to confirm. Cannot be undone; to change a post, use update_post.',
  ].join(' '),
  input: PostRequest,
  output: DeletedPost,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handle(service, args, context) {
    await requireConfirmation(context, async () => {
      const post = await service.getPost(args);
      // A post past publishing is refused by the service, with the reason: nothing to ask.
      if (!EDITABLE_STATUSES.has(post.status)) return undefined;
      const question =
        post.status === 'draft'
          ? `Delete draft ${post.id} for good?`
          : `Cancel post ${post.id}? It is ${post.status} and will then not be published.`;
      return {
        question: await describeStoredPost(service, post, question),
        notDone: `Not ${post.status === 'draft' ? 'deleted' : 'cancelled'}: the user did not confirm, so post ${post.id} is unchanged (${describePostState(post)}).`,
      };
    });
    const deleted = await service.deletePost(args);
    return { body: { status: 'success', data: deleted }, summary: deleted.message };
  },
});
