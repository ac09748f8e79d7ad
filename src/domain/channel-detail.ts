/**
 * One channel with its connection, as `get_channel` and `GET /v1/brands/{brandId}/channels/{channelId}`
 * show it: the Channel resource of http-interface.md (unchanged), why it is INACTIVE, and who publishes
 * to it. Never a secret: only where the secret is kept.
 */
import { z } from 'zod';
import { CONNECTOR_KINDS } from './capabilities.js';
import { Channel, Id, Timestamp } from './schemas.js';

export const ChannelRequest = z.strictObject({
  brandId: Id.describe('Brand id, from list_brands'),
  channelId: Id.describe('Channel id, from list_channels or list_collections'),
});

export const ChannelLimits = z.object({
  textLimit: z.number().int(),
  captionLimit: z.number().int().optional(),
  textUnit: z.enum(['characters', 'graphemes']),
  linkLength: z.number().int().optional(),
  maxMedia: z.number().int(),
  mediaTypes: z.array(z.string()),
  maxImageBytes: z.number().int().optional(),
  maxVideoBytes: z.number().int().optional(),
  requiresMedia: z.boolean(),
  polls: z.boolean(),
  pollWithMedia: z.boolean(),
  maxPollOptions: z.number().int().optional(),
  maxPollOptionLength: z.number().int().optional(),
});

export const ChannelConnection = z.object({
  connector: z.enum(CONNECTOR_KINDS).describe('Who publishes to this channel'),
  account: z.string().nullable().describe('The connected account, e.g. @name@instance'),
  accountId: z.string().nullable(),
  instance: z
    .string()
    .nullable()
    .describe("The platform's address (Mastodon instance, Bluesky PDS, Bot API)"),
  profileUrl: z.string().nullable(),
  connectedAt: Timestamp.nullable(),
  credentials: z
    .enum(['stored', 'environment', 'erased', 'none'])
    .describe('stored: encrypted in the store; environment: read from a variable; erased: disconnected'),
  lastError: z.string().nullable(),
  lastErrorAt: Timestamp.nullable(),
  lastPublishedAt: Timestamp.nullable(),
  limits: ChannelLimits.describe("What the platform takes from this channel's posts"),
});

export const ChannelDetail = Channel.extend({
  statusReason: z.string().nullable().describe('Why the channel is INACTIVE, and how to fix it'),
  connection: ChannelConnection,
});
export type ChannelDetail = z.infer<typeof ChannelDetail>;
