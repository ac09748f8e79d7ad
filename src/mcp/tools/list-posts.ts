import { ListPostsRequest, Post } from '../../domain/post-schemas.js';
import { postLine } from '../post-summary.js';
import { listBody, pageSummary } from '../results.js';
import { defineTool } from '../tool.js';

export const listPosts = defineTool({
  name: 'list_posts',
  title: 'List posts',
  description: [
    "Lists a brand's posts with their status, the time each goes (or went) out in the brand's timezone and in UTC,",
    'their content and, once publishing has started, one delivery per channel with its outcome.',
    'Use it to find a postId, to see what is planned on a day, or to check whether posts went out.',
    'Filters: status (draft, queued, scheduled, publishing, published, partially_published, failed, cancelled),',
    "collectionId, from and to (local times in the brand's timezone, Y-m-d H:i:s; from inclusive, to exclusive).",
    'order: newest (latest planned time first, the default) or calendar (soonest first).',
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
