import { Post, PostRequest } from '../../domain/post-schemas.js';
import { postSummary } from '../post-summary.js';
import { defineTool } from '../tool.js';

export const getPost = defineTool({
  name: 'get_post',
  title: 'Get post',
  description: [
    "Returns one post: its status, the time it goes (or went) out in the brand's timezone and in UTC, its content,",
    'and one delivery per channel with its outcome (pending, sent, failed with the reason, skipped).',
    'Call it after create_post or publish_post to tell the user how publishing went, or before update_post to see',
    'the current content. postId comes from create_post or list_posts.',
  ].join(' '),
  input: PostRequest,
  output: Post,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handle(service, args) {
    const post = await service.getPost(args);
    return { body: { status: 'success', data: post }, summary: postSummary(post) };
  },
});
