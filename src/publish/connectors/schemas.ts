/**
 * The schemas that name the registered connectors, made from the registry: the channel with its
 * connection that get_channel and the REST API show (its `connector` one of the default publishers or
 * a connector's kind), and the workspace file whose connections name a connector. The schemas
 * themselves are domain/'s; only the list is the registry's.
 */
import type { z } from 'zod';
import { channelDetailSchema } from '../../domain/channel-detail.js';
import { type WorkspaceOf, workspaceFileSchema } from '../../domain/workspace.js';
import {
  CONNECTED_KINDS,
  CONNECTED_PLATFORMS,
  CONNECTOR_KINDS,
  CONNECTOR_MODULES,
  type ConnectedKind,
} from './registry.js';

const accounts = CONNECTOR_MODULES.map((module) => `${module.displayName} ${module.describe.account}`).join(
  ', ',
);
const addresses = CONNECTOR_MODULES.map((module) => module.describe.address).join(', ');

export const ChannelDetail = channelDetailSchema({ kinds: CONNECTOR_KINDS, accounts, addresses });
export type ChannelDetail = z.infer<typeof ChannelDetail>;

export const WorkspaceFile = workspaceFileSchema({
  kinds: CONNECTED_KINDS,
  channelTypes: CONNECTED_PLATFORMS,
  accounts,
  addresses,
});
export type Workspace = WorkspaceOf<ConnectedKind>;
