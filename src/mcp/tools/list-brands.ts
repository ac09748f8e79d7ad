import { Brand, ListBrandsRequest } from '../../domain/schemas.js';
import { listBody, pageSummary } from '../results.js';
import { defineTool } from '../tool.js';

export const listBrands = defineTool({
  name: 'list_brands',
  title: 'List brands',
  toolset: 'workspace',
  description:
    'Lists the brands you can publish for, with their ids and timezones. Call this first: every other ' +
    'operation needs a brandId. Each brand has its own timezone, in which scheduledAt is read, and its own queue.',
  input: ListBrandsRequest,
  output: Brand.array(),
  paginated: true,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handle(service, args) {
    const page = await service.listBrands(args);
    const lines = page.data.map(
      (brand) =>
        `- ${brand.id}: ${brand.title} (timezone ${brand.timezone})${brand.description ? `: ${brand.description}` : ''}`,
    );
    return {
      body: listBody(page, '/v1/brands'),
      summary: [pageSummary(page, 'brand'), ...lines, 'Next: list_collections with a brandId.'].join('\n'),
    };
  },
});
