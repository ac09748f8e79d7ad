import { BrandPageRequest, Collection } from '../../domain/schemas.js';
import { listBody, pageSummary } from '../results.js';
import { defineTool } from '../tool.js';

export const listCollections = defineTool({
  name: 'list_collections',
  title: 'List collections',
  toolset: 'workspace',
  description:
    "Lists a brand's collections, each with its channels. A post is created in one collection and goes to " +
    'every channel in it, so pick the collection whose channels match where the post should appear, then ' +
    'call create_post with its id. A collection without channels only accepts DRAFT posts.',
  input: BrandPageRequest,
  output: Collection.array(),
  paginated: true,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handle(service, args) {
    const page = await service.listCollections(args);
    const lines = page.data.map((collection) => {
      const channels = collection.channels.map(
        (c) => `${c.type}${c.status === 'INACTIVE' ? ' (INACTIVE)' : ''}`,
      );
      return `- ${collection.id}: ${collection.title}: ${channels.length} channel${channels.length === 1 ? '' : 's'}${channels.length ? ` (${channels.join(', ')})` : ''}`;
    });
    return {
      body: listBody(page, `/v1/brands/${String(args.brandId)}/collections`),
      summary: [
        pageSummary(page, 'collection'),
        ...lines,
        'Next: create_post with brandId and collectionId.',
      ].join('\n'),
    };
  },
});
