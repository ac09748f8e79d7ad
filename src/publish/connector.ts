/**
 * The one small interface every connector implements, one file each under src/publish/: what its
 * platform takes (capabilities), publishing and commenting (a `Publisher`), and every platform answer
 * turned into one of a few outcome kinds (`FailureKind` in ports.ts) that the scheduler acts on.
 *
 * A connected channel has a connection: the account, the platform's address, settings that are not
 * secret, and a secret (a token, an app password) kept encrypted at rest and handed to the connector
 * only as it opens. `verify…` functions of each connector file check credentials against the platform
 * before a channel is connected (the `connect` command) and say what to store.
 */
import type { Capabilities, ConnectorKind } from '../domain/capabilities.js';
import type { PlatformMedia } from '../domain/delivery.js';
import type { ChannelType } from '../domain/schemas.js';
import type { Clock, Publisher } from '../ports.js';

export { CONNECTOR_KINDS, type ConnectorKind } from '../domain/capabilities.js';

/** The platforms that have a connector of their own, and the channel type they publish as. */
export const CONNECTED_PLATFORMS = {
  mastodon: 'Mastodon',
  bluesky: 'Bluesky',
  telegram: 'Telegram',
} as const satisfies Partial<Record<ConnectorKind, ChannelType>>;
export type ConnectedKind = keyof typeof CONNECTED_PLATFORMS;

/**
 * Whether each platform deduplicates a repeated send (each connector's `Publisher.idempotent`), known
 * without opening the connector: Mastodon by Idempotency-Key, Bluesky by a record key derived from the
 * delivery; the Telegram Bot API cannot.
 */
export const IDEMPOTENT_PLATFORMS: Readonly<Record<ConnectedKind, boolean>> = {
  mastodon: true,
  bluesky: true,
  telegram: false,
};

/** What `connect` stores for a channel, and what a connector is opened with. */
export interface ConnectionDetails {
  kind: ConnectedKind;
  /** The account as people write it: `@name@instance`, `handle.bsky.social`, `@channel`. */
  account: string;
  /** The platform's id of the account (Mastodon account id, Bluesky DID, Telegram chat id). */
  accountId: string;
  /** The platform's base URL: the Mastodon instance, the Bluesky PDS (service), the Telegram API root. */
  endpoint: string;
  /** The account's public page, when it has one. */
  profileUrl: string | null;
  /** What the connector needs that is not secret (a chat's username, the instance's URL length…). */
  settings: Record<string, unknown>;
  /** What the platform takes from this account (the instance's character limit…). */
  capabilities: Capabilities;
}

/** A verified account: what to store, and the secret to encrypt (a token, or JSON of a session). */
export interface VerifiedConnection extends ConnectionDetails {
  secret: string;
}

/** A media file of a post, read for upload. */
export interface LoadedMedia {
  bytes: Uint8Array;
  /** MIME type, detected from the bytes. */
  type: string;
  /** A file name to send (platforms want one): `<media id>.<ext>` or the URL's last segment. */
  name: string;
}

/** What the engine gives a connector it opens. */
export interface ConnectorContext {
  /** Reads a post's media element: an uploaded file of the brand, or a public URL (downloaded). */
  loadMedia(brandId: number, media: PlatformMedia): Promise<LoadedMedia>;
  /** Stores a changed secret of this connection (a refreshed Bluesky session), encrypted. */
  saveSecret(secret: string): Promise<void>;
  clock: Clock;
  /** The operator's log; never given a secret. */
  log: (message: string) => void;
  /** Deadline of one request to the platform, connecting and reading the answer included. */
  timeoutMs: number;
  /** `social-publisher-mcp/<version>`, sent as the user-agent. */
  userAgent: string;
}

/** Opens the connector of one connected channel; `secret` is the decrypted secret. */
export type OpenConnector = (
  connection: ConnectionDetails & { channelId: number; secret: string },
  context: ConnectorContext,
) => Publisher;
