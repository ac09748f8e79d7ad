/**
 * The pre-flight of a post over the channels of its collection (domain/preflight.ts), with what the
 * store knows: each channel's connection (its connector and the limits its account has), why an INACTIVE
 * channel is INACTIVE, and the type and size of the post's uploaded media.
 */
import { PLATFORM_CAPABILITIES } from '../domain/capabilities.js';
import type { PostPayload } from '../domain/post-schemas.js';
import { type PreflightWarning, preflightChannel } from '../domain/preflight.js';
import type { CollectionRecord, Store } from '../ports.js';

export async function preflightPost(
  store: Store,
  collection: CollectionRecord,
  payload: PostPayload,
  defaultConnector: string,
): Promise<PreflightWarning[]> {
  const channelIds = collection.channels.map((channel) => channel.id);
  const connections = await store.connections.ofChannels(channelIds);
  const mediaIds = (payload.media ?? []).flatMap((element) => (element.id ? [element.id] : []));
  const found = await store.findMedia(collection.brandId, mediaIds);
  const media = new Map(found.map((m) => [m.id, { type: m.type, size: m.size }]));
  const perChannel = collection.channels.map(async (channel) => {
    const connection = connections.get(channel.id);
    const warnings = preflightChannel(
      payload,
      {
        ...channel,
        connector: connection?.kind ?? defaultConnector,
        capabilities: connection?.capabilities ?? PLATFORM_CAPABILITIES[channel.type],
      },
      media,
    );
    if (channel.status !== 'INACTIVE') return warnings;
    // Say why it is INACTIVE when the engine or `disconnect` recorded it.
    const why = (await store.connections.activity(channel.id)).statusReason;
    return warnings.map((warning) =>
      why ? { ...warning, message: `The channel "${channel.name}" is INACTIVE: ${why}` } : warning,
    );
  });
  return (await Promise.all(perChannel)).flat();
}
