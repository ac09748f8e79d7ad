import { Post, PostRequest } from '../../domain/post-schemas.js';
import { postSummary } from '../post-summary.js';
import { defineTool } from '../tool.js';

export const getPost = defineTool({
  name: 'get_post',
  title: 'Get post',
  toolset: 'lifecycle',
  description: [
    "Returns one post: status, time (brand's timezone and UTC), content, and per channel the delivery (pending, sent,",
    'failed with the reason, skipped). Call it after create_post or publish_post to report how publishing went.',
  ].join(' '),
  input: PostRequest,
  output: Post,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handle(service, args) {
    const post = await service.getPost(args);
    return { body: { status: 'success', data: post }, summary: postSummary(post) };
  },
});
