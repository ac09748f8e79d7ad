/**
 * The one small interface every connector implements, one folder each under src/publish/connectors/
 * (listed once in connectors/registry.ts): what its platform takes (capabilities), the steps of a
 * delivery and commenting (a `Publisher`), and every platform answer turned into one of a few outcome
 * kinds (`FailureKind` in ports.ts, decided in connectors/http.ts) that the engine acts on.
 *
 * A connected channel has a connection: the account, the platform's address, settings that are not
 * secret, and a secret (a token, an app password) kept encrypted at rest and handed to the connector
 * only as it opens. Each module's `connect.verify` checks credentials against the platform before a
 * channel is connected (the `connect` command) and says what to store.
 */
import type { Capabilities } from '../domain/capabilities.js';
import type { PlatformMedia } from '../domain/delivery.js';
import type { Clock, Publisher } from '../ports.js';
import type { OAuthClient } from './connectors/module.js';
import type { ConnectedKind } from './connectors/registry.js';

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

/**
 * A media file of a post, ready to upload and never read whole into memory: an uploaded file is read
 * from the media directory as it is sent, a file given by URL was downloaded to a temporary file first.
 */
export interface MediaSource {
  /** MIME type, detected from the first bytes. */
  type: string;
  /** A file name to send (platforms want one): `<media id>.<ext>` or the URL's last segment. */
  name: string;
  /** Bytes. */
  size: number;
  /**
   * The file as a Blob backed by the file on disk (`fs.openAsBlob`): undici's FormData streams it, and
   * `blob.slice()` reads a part only when it is read.
   */
  blob(): Promise<Blob>;
  /** Bytes `start` to `endExclusive` of the file (a chunk of a chunked upload, a header to read). */
  range(start: number, endExclusive: number): Promise<Uint8Array>;
  /**
   * Tells that the connector is done with the file: a downloaded file is deleted. Idempotent; what a
   * connector leaves unreleased is released when it closes.
   */
  release(): Promise<void>;
}

/**
 * Refreshes an OAuth token of this connection, coordinated by the engine through the store so that two
 * processes never refresh one token at once (a refresh token that rotates is spent by its first use:
 * a second refresh with it would fail and disconnect the channel).
 *
 * The connector calls it with the secret it holds and found stale (refused with 401, or past its
 * expiry) and the refresh itself (its module's `oauth.refresh`, which returns the new secret, a new
 * refresh token replacing the old one). The engine takes the connection's refresh claim (waiting while
 * another process holds it), reads the stored secret: if it differs from `stale`, another process has
 * refreshed it already and it is returned without calling `refresh`; otherwise `refresh(current)` runs,
 * its result is sealed and stored, the claim released, and the new secret returned. A refresh that the
 * platform refuses rejects: the connector answers `reconnect`.
 */
export type RefreshSecret = (request: {
  stale: string;
  refresh(current: string): Promise<string>;
}) => Promise<string>;

/** What the engine gives a connector it opens. */
export interface ConnectorContext {
  /** A post's media element: an uploaded file of the brand, or a public URL (downloaded). */
  loadMedia(brandId: number, media: PlatformMedia): Promise<MediaSource>;
  /**
   * A public address the platform can fetch a media element from (Threads, Instagram: no byte upload):
   * a URL element as it is, an uploaded file as a signed address on serve's public URL
   * (SOCIAL_PUBLISHER_PUBLIC_URL). Undefined, or absent, when an uploaded file has none.
   */
  publicMediaUrl?(brandId: number, media: PlatformMedia): string | undefined;
  /** Stores a changed secret of this connection (a refreshed Bluesky session), encrypted. */
  saveSecret(secret: string): Promise<void>;
  /** For connectors whose tokens expire (OAuth with refresh): see RefreshSecret (refresh-secret.ts). */
  refreshSecret?: RefreshSecret;
  /**
   * The operator's app credentials for this connection's platform (its module's `app`: src/oauth-apps.ts),
   * to refresh its tokens; undefined when none are configured.
   */
  oauthClient?(): OAuthClient | undefined;
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
