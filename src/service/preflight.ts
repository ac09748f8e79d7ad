/**
 * The pre-flight of a post over the channels of its collection (domain/preflight.ts), with what the
 * store knows: each channel's connection (its connector and the limits its account has), why an INACTIVE
 * channel is INACTIVE, and the type and size of the post's uploaded media.
 */
import { capabilitiesOf } from '../domain/capabilities.js';
import type { PostPayload } from '../domain/post-schemas.js';
import { type PreflightWarning, preflightChannel } from '../domain/preflight.js';
import type { CollectionRecord, ConnectionRecord, MediaRecord, Store } from '../ports.js';
import { connectorModule, isConnectedKind } from '../publish/connectors/registry.js';

/**
 * The pre-flight's warnings. Every read is issued before this returns, so that a caller may await the
 * answer inside a transaction it opened meanwhile (create_post does, to overlap the reads with its own):
 * on SQLite a read issued on the store once a transaction is open would wait for that transaction.
 */
export function preflightPost(
  store: Store,
  collection: CollectionRecord,
  payload: PostPayload,
  defaultConnector: string,
  /** The server hands out public addresses of uploaded media (serve with a public URL, object storage). */
  publicMedia = false,
  /** The request's time: accounts whose platform said they have nothing left until later are told. */
  nowMs?: number,
): Promise<PreflightWarning[]> {
  const channelIds = collection.channels.map((channel) => channel.id);
  const mediaIds = (payload.media ?? []).flatMap((element) => (element.id ? [element.id] : []));
  const inactive = collection.channels.filter((channel) => channel.status === 'INACTIVE');
  // Read side by side: each channel's connection, the media, why each INACTIVE channel is INACTIVE.
  const reads = Promise.all([
    store.connections.ofChannels(channelIds),
    store.findMedia(collection.brandId, mediaIds),
    Promise.all(
      inactive.map((channel) =>
        store.connections
          .activity(channel.id)
          .then((activity) => [channel.id, activity.statusReason] as const),
      ),
    ),
    nowMs === undefined ? Promise.resolve(new Map<number, number>()) : store.jobs.accountLimits(nowMs),
  ]);
  return reads.then(([connections, found, reasons, limited]) =>
    warningsOf(collection, payload, defaultConnector, connections, found, reasons).concat(
      fetchedMediaWarnings(collection, payload, connections, publicMedia),
      moduleNotes(collection, payload, connections, found, publicMedia),
      limitedAccountWarnings(collection, connections, limited),
    ),
  );
}

/**
 * An account whose platform said it has nothing left until a time (a rate limit, YouTube's daily quota
 * until midnight Pacific Time): its delivery waits until then, and pre-flight says so.
 */
function limitedAccountWarnings(
  collection: CollectionRecord,
  connections: Map<number, ConnectionRecord>,
  limited: Map<number, number>,
): PreflightWarning[] {
  return collection.channels.flatMap((channel) => {
    const untilMs = limited.get(channel.id);
    const kind = connections.get(channel.id)?.kind;
    if (untilMs === undefined || kind === undefined || !isConnectedKind(kind)) return [];
    const { displayName } = connectorModule(kind);
    return [
      {
        channelId: channel.id,
        channelName: channel.name,
        outcome: 'change' as const,
        message: `${displayName} said this account has nothing left of its limit or quota until ${new Date(untilMs).toISOString()}: its delivery waits until then.`,
      },
    ];
  });
}

function warningsOf(
  collection: CollectionRecord,
  payload: PostPayload,
  defaultConnector: string,
  connections: Map<number, ConnectionRecord>,
  found: readonly MediaRecord[],
  reasons: readonly (readonly [number, string | null])[],
): PreflightWarning[] {
  const media = new Map(found.map((m) => [m.id, { type: m.type, size: m.size, durationMs: m.durationMs }]));
  const whyInactive = new Map(reasons);
  const perChannel = collection.channels.map((channel) => {
    const connection = connections.get(channel.id);
    const warnings = preflightChannel(
      payload,
      {
        ...channel,
        connector: connection?.kind ?? defaultConnector,
        capabilities: capabilitiesOf(channel.type, connection?.capabilities),
      },
      media,
    );
    // Say why it is INACTIVE when the engine or `disconnect` recorded it.
    const why = whyInactive.get(channel.id);
    return warnings.map((warning) =>
      why ? { ...warning, message: `The channel "${channel.name}" is INACTIVE: ${why}` } : warning,
    );
  });
  return perChannel.flat();
}

/**
 * A platform that fetches media from a public address (Threads, Instagram) cannot take an uploaded file
 * from a server that hands out no such address: the channel's delivery would fail, so pre-flight says so
 * with the setting that fixes it.
 */
function fetchedMediaWarnings(
  collection: CollectionRecord,
  payload: PostPayload,
  connections: Map<number, ConnectionRecord>,
  publicMedia: boolean,
): PreflightWarning[] {
  if (publicMedia || !(payload.media ?? []).some((element) => element.id)) return [];
  return collection.channels.flatMap((channel) => {
    const kind = connections.get(channel.id)?.kind;
    if (kind === undefined || !isConnectedKind(kind)) return [];
    const module = connectorModule(kind);
    if (!module.fetchesMediaByUrl) return [];
    return [
      {
        channelId: channel.id,
        channelName: channel.name,
        outcome: 'fail' as const,
        message: `${module.displayName} fetches media from a public address, and this server gives uploaded files none: run serve with SOCIAL_PUBLISHER_PUBLIC_URL set to its public address, keep media in object storage (SOCIAL_PUBLISHER_MEDIA_S3_BUCKET), or give the media as URLs.`,
      },
    ];
  });
}

/** What each connected channel's module says of the post on its platform (`ConnectorModule.preflight`). */
function moduleNotes(
  collection: CollectionRecord,
  payload: PostPayload,
  connections: Map<number, ConnectionRecord>,
  found: readonly MediaRecord[],
  publicMedia: boolean,
): PreflightWarning[] {
  const types = new Map(found.map((m) => [m.id, m.type]));
  const media = (payload.media ?? []).map((element) =>
    element.id ? { type: types.get(element.id), uploaded: true } : { uploaded: false },
  );
  return collection.channels.flatMap((channel) => {
    const connection = connections.get(channel.id);
    if (!connection || !isConnectedKind(connection.kind)) return [];
    const notes = connectorModule(connection.kind).preflight?.({
      payload,
      settings: connection.settings,
      media,
      publicMedia,
    });
    return (notes ?? []).map((note) => ({ channelId: channel.id, channelName: channel.name, ...note }));
  });
}
