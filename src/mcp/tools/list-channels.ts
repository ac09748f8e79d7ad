import { BrandPageRequest, Channel } from '../../domain/schemas.js';
import { listBody, pageSummary } from '../results.js';
import { defineTool } from '../tool.js';

export const listChannels = defineTool({
  name: 'list_channels',
  title: 'List channels',
  toolset: 'workspace',
  description:
    "Lists a brand's channels (connected social accounts), ACTIVE and INACTIVE, with their platform type. " +
    'An INACTIVE channel needs re-authorization and will not receive posts. Posts are created in a collection, ' +
    'not a channel: see list_collections.',
  input: BrandPageRequest,
  output: Channel.array(),
  paginated: true,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handle(service, args) {
    const page = await service.listChannels(args);
    const lines = page.data.map(
      (channel) => `- ${channel.id}: ${channel.name} [${channel.type}, ${channel.status}]`,
    );
    return {
      body: listBody(page, `/v1/brands/${String(args.brandId)}/channels`),
      summary: [pageSummary(page, 'channel'), ...lines].join('\n'),
    };
  },
});
