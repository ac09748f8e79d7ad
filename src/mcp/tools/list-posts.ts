import { ListPostsRequest, Post } from '../../domain/post-schemas.js';
import { postLine } from '../post-summary.js';
import { listBody, pageSummary } from '../results.js';
import { defineTool } from '../tool.js';

export const listPosts = defineTool({
  name: 'list_posts',
  title: 'List posts',
  toolset: 'lifecycle',
  description: [
    "Lists a brand's posts: status, the time each goes (or went) out in the brand's timezone and UTC, content, and per channel",
    'the delivery outcome. Use it to find a postId, see what is planned, or check whether posts went out.',
  ].join(' '),
  input: ListPostsRequest,
  output: Post.array(),
  paginated: true,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handle(service, args) {
    const page = await service.listPosts(args);
    return {
      body: listBody(page, `/v1/brands/${String(args.brandId)}/posts`),
      summary: [pageSummary(page, 'post'), ...page.data.map(postLine)].join('\n'),
    };
  },
});
