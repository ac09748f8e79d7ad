/**
 * Connecting channels to accounts (the `connect` and `disconnect` commands) and showing a channel's
 * connection. The account was verified against its platform before any of this runs; here it becomes a
 * channel of the brand: found again by its account when it was connected before (a reconnect), else
 * created, ACTIVE, with its secret sealed to it.
 */
import { type Capabilities, capabilitiesOf } from '../domain/capabilities.js';
import type { ChannelType } from '../domain/schemas.js';
import { formatTimestamp } from '../domain/time.js';
import type { ChannelRecord, Clock, ConnectionUpsert, Store } from '../ports.js';
import type { DefaultPublisher } from '../publish/connectors/registry.js';
import type { ChannelDetail } from '../publish/connectors/schemas.js';
import type { SecretBox } from '../store/secret-box.js';
import { presentChannel } from './resources.js';

/** A brand by its title, or by its id. */
export async function findBrandId(store: Store, brand: string): Promise<number | undefined> {
  const byTitle = await store.findBrandIdByTitle(brand);
  if (byTitle !== undefined) return byTitle;
  return /^\d+$/.test(brand) && (await store.findBrand(Number(brand))) ? Number(brand) : undefined;
}

export interface ConnectChannel {
  brandId: number;
  type: ChannelType;
  /** The channel's name; default: the account's name on its platform. */
  name?: string | undefined;
  connection: Omit<ConnectionUpsert, 'sealedSecret' | 'secretEnv'>;
  /** Sealed to the channel; or `secretEnv`, the variable the server reads it from. */
  secret: { value: string } | { env: string };
  /** Collection ids of the brand to add the channel to. */
  collectionIds: readonly number[];
}

/**
 * Creates or reconnects the channel in one transaction; returns its id. A channel already connected to
 * this account is reconnected (its name kept); otherwise the channel named `name` (default: the
 * account) is connected, created if missing. The caller checked that a channel of that name, if any, is
 * of the platform's type.
 */
export async function connectChannel(
  store: Store,
  secrets: SecretBox,
  clock: Clock,
  request: ConnectChannel,
): Promise<number> {
  const nowMs = clock.now();
  const { connection } = request;
  return store.transaction(async (tx) => {
    const known = await tx.connections.findByAccount(
      request.brandId,
      connection.kind,
      connection.endpoint,
      connection.accountId,
    );
    const channelId =
      known ??
      (await tx.upsertChannel(
        request.brandId,
        { name: request.name ?? connection.account, type: request.type, status: 'ACTIVE' },
        nowMs,
      ));
    await tx.setChannelStatus(channelId, 'ACTIVE', null, nowMs);
    await tx.connections.save(
      channelId,
      {
        ...connection,
        sealedSecret: 'value' in request.secret ? secrets.seal(request.secret.value, channelId) : null,
        secretEnv: 'env' in request.secret ? request.secret.env : null,
      },
      nowMs,
    );
    for (const collectionId of request.collectionIds) {
      const collection = (await tx.findCollection(request.brandId, collectionId))!;
      const channelIds = collection.channels.map((channel) => channel.id);
      if (channelIds.includes(channelId)) continue;
      await tx.upsertCollection(
        request.brandId,
        {
          title: collection.title,
          description: collection.description,
          channelIds: [...channelIds, channelId],
        },
        nowMs,
      );
    }
    return channelId;
  });
}

/** Makes the channel INACTIVE and erases its secret; false when the channel has no connection. */
export async function disconnectChannel(
  store: Store,
  clock: Clock,
  channel: ChannelRecord,
): Promise<boolean> {
  const nowMs = clock.now();
  return store.transaction(async (tx) => {
    const erased = await tx.connections.erase(channel.id, nowMs);
    await tx.setChannelStatus(
      channel.id,
      'INACTIVE',
      'Disconnected: run social-publisher-mcp connect to connect an account again.',
      nowMs,
    );
    return erased;
  });
}

const limitsOf = (capabilities: Capabilities) => ({
  ...capabilities,
  mediaTypes: [...capabilities.mediaTypes],
});

const timestampOrNull = (ms: number | null) => (ms === null ? null : formatTimestamp(ms));

/** The channel with its connection; `defaultConnector` publishes to channels without one. */
export async function presentChannelDetail(
  store: Store,
  channel: ChannelRecord,
  defaultConnector: DefaultPublisher,
): Promise<ChannelDetail> {
  const [connection, activity] = await Promise.all([
    store.connections.find(channel.id),
    store.connections.activity(channel.id),
  ]);
  let credentials: ChannelDetail['connection']['credentials'] = 'none';
  if (connection?.sealedSecret) credentials = 'stored';
  else if (connection?.secretEnv) credentials = 'environment';
  else if (connection) credentials = 'erased';
  return {
    ...presentChannel(channel),
    statusReason: channel.status === 'INACTIVE' ? activity.statusReason : null,
    connection: {
      connector: connection?.kind ?? defaultConnector,
      account: connection?.account ?? null,
      accountId: connection?.accountId ?? null,
      instance: connection?.endpoint ?? null,
      profileUrl: connection?.profileUrl ?? null,
      connectedAt: connection ? formatTimestamp(connection.connectedAtMs) : null,
      credentials,
      lastError: activity.lastError,
      lastErrorAt: timestampOrNull(activity.lastErrorAtMs),
      lastPublishedAt: timestampOrNull(activity.lastPublishedAtMs),
      limits: limitsOf(capabilitiesOf(channel.type, connection?.capabilities)),
    },
  };
}
