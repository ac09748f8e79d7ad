import { ChannelRequest } from '../../domain/channel-detail.js';
import { videoLengthsTaken } from '../../domain/preflight.js';
import { CONNECTED_KINDS } from '../../publish/connectors/registry.js';
import { ChannelDetail } from '../../publish/connectors/schemas.js';
import { defineTool } from '../tool.js';

export const getChannel = defineTool({
  name: 'get_channel',
  title: 'Get channel',
  toolset: 'workspace',
  description: [
    `Returns one channel with its connection (${CONNECTED_KINDS.join(', ')}, or the sandbox/webhook default): account,`,
    'why it is INACTIVE, last error, last publication, and its platform limits. Call it when a delivery failed or a',
    'channel is INACTIVE. Accounts are connected with connect_channel (OAuth platforms) or on the command line (social-publisher-mcp connect).',
  ].join(' '),
  input: ChannelRequest,
  output: ChannelDetail,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handle(service, args) {
    const channel = await service.getChannel(args);
    const { connection } = channel;
    const videos = videoLengthsTaken(connection.limits);
    const lines = [
      `${channel.name} [${channel.type}, ${channel.status}]: published by ${connection.connector}${connection.account ? ` as ${connection.account}` : ''}${connection.instance ? ` on ${connection.instance}` : ''}.`,
      ...(channel.statusReason ? [`Why INACTIVE: ${channel.statusReason}`] : []),
      ...(connection.lastError ? [`Last error (${connection.lastErrorAt}): ${connection.lastError}`] : []),
      `Last published: ${connection.lastPublishedAt ?? 'never'}.`,
      `Limits: ${connection.limits.textLimit} ${connection.limits.textUnit}, up to ${connection.limits.maxMedia} media${videos ? `, videos ${videos}` : ''}, polls ${connection.limits.polls ? 'yes' : 'no'}.`,
    ];
    return { body: { status: 'success', data: channel }, summary: lines.join('\n') };
  },
});
