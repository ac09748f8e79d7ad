/**
 * One channel with its connection, as `get_channel` and `GET /v1/brands/{brandId}/channels/{channelId}`
 * show it: the Channel resource of http-interface.md (unchanged), why it is INACTIVE, and who publishes
 * to it. Never a secret: only where the secret is kept. Which connectors there are is the connector
 * registry's to say (publish/connectors/schemas.ts makes the schema from it): domain/ imports nothing
 * of ours outside it.
 */
import { z } from 'zod';
import { Channel, Id, Timestamp } from './schemas.js';

export const ChannelRequest = z.strictObject({
  brandId: Id.describe('Brand id, from list_brands'),
  channelId: Id.describe('Channel id, from list_channels or list_collections'),
});

export const ChannelLimits = z.object({
  textLimit: z.number().int(),
  captionLimit: z.number().int().optional(),
  textUnit: z.enum(['characters', 'graphemes', 'weighted', 'emoji-bytes']),
  linkLength: z.number().int().optional(),
  maxMedia: z.number().int(),
  mediaTypes: z.array(z.string()),
  maxImageBytes: z.number().int().optional(),
  maxVideoBytes: z.number().int().optional(),
  minVideoSeconds: z.number().optional(),
  maxVideoSeconds: z.number().optional(),
  requiresMedia: z.boolean(),
  polls: z.boolean(),
  pollWithMedia: z.boolean(),
  maxPollOptions: z.number().int().optional(),
  maxPollOptionLength: z.number().int().optional(),
  titleLimit: z.number().int().optional(),
  altLimit: z.number().int().optional(),
  linkLimit: z.number().int().optional(),
  comments: z.boolean().optional(),
});

/** The connectors a channel may have, and how each describes its account and address. */
export interface ChannelConnectors<K extends string> {
  /** The default publishers and every connector's kind. */
  kinds: readonly [K, ...K[]];
  /** `Mastodon @name@instance, Bluesky handle, …`. */
  accounts: string;
  /** `Mastodon instance, Bluesky PDS, …`. */
  addresses: string;
}

/** The channel with its connection, for these connectors. */
export function channelDetailSchema<const K extends string>(connectors: ChannelConnectors<K>) {
  const connection = z.object({
    connector: z.enum(connectors.kinds).describe('Who publishes to this channel'),
    account: z.string().nullable().describe(`The connected account (${connectors.accounts})`),
    accountId: z.string().nullable(),
    instance: z.string().nullable().describe(`The platform's address (${connectors.addresses})`),
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
  return Channel.extend({
    statusReason: z.string().nullable().describe('Why the channel is INACTIVE, and how to fix it'),
    connection,
  });
}
