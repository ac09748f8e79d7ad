/**
 * Which connector sends a channel's deliveries: the channel's own connection (Mastodon, Bluesky,
 * Telegram), or, for a channel without one, the configured default (the sandbox or the webhook). A
 * connector is opened on first use, with its secret unsealed only then, and kept while its connection is
 * unchanged; `connect` or a refreshed session changes the connection, and the next delivery opens it
 * anew. Each connector's code is loaded only when a channel of its platform publishes (its module's
 * `load`, connectors/registry.ts). The media files a connector is handed and does not release are
 * released when it closes (a downloaded file deleted).
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { OAuthApps } from '../oauth-apps.js';
import type { ConnectionRecord, Publisher, PublishOutcome, Store } from '../ports.js';
import type { SecretBox } from '../store/secret-box.js';
import type { ConnectorContext } from './connector.js';
import { signInOf } from './connectors/module.js';
import { REFRESH_AHEAD_MS, renewedSecret, tokensOf } from './connectors/oauth-tokens.js';
import { connectorModule, IDEMPOTENT_PLATFORMS, isConnectedKind } from './connectors/registry.js';
import { heldMedia } from './media-loader.js';
import type { ConnectorRouter } from './publishing-pass.js';
import { refreshSecret } from './refresh-secret.js';

/** How long connections read for a batch of claimed jobs are used (ms). */
const PREFETCH_KEPT_MS = 1_000;

/** The parts of a ConnectorContext that are the same for every connection. */
export type SharedContext = Omit<ConnectorContext, 'saveSecret' | 'refreshSecret'>;

export interface ChannelConnectorsOptions {
  store: Store;
  secrets: SecretBox;
  /** For channels without a connection. */
  fallback: Publisher;
  context: SharedContext;
  /** Reads an environment variable named by a workspace file's connection. */
  readEnv: (name: string) => string | undefined;
  /** The operator's OAuth apps: a connector refreshes its tokens with its platform's. */
  oauthApps?: Pick<OAuthApps, 'get'>;
}

export class ChannelConnectors implements ConnectorRouter {
  /** Who claims this process's token refreshes (refresh-secret.ts). */
  private prefetched = new Map<number, ConnectionRecord | undefined>();
  private prefetchedAtMs = 0;
  private readonly owner = `${hostname()}:${process.pid}:refresh-${randomBytes(4).toString('hex')}`;
  private readonly open = new Map<number, { updatedAtMs: number; publisher: Publisher }>();

  constructor(private readonly options: ChannelConnectorsOptions) {}

  get fallback(): Publisher {
    return this.options.fallback;
  }

  /**
   * Reads the connections of a batch of claimed jobs in one query: `forChannel` takes them from there
   * for a second instead of one query per job (a burst's 1,100 sends). A secret this process stores
   * drops its channel from it.
   */
  async prefetch(channelIds: readonly number[]): Promise<void> {
    const ids = [...new Set(channelIds)];
    const found = await this.options.store.connections.ofChannels(ids);
    this.prefetched = new Map(ids.map((id) => [id, found.get(id)]));
    this.prefetchedAtMs = Date.now();
  }

  private connectionOf(channelId: number): Promise<ConnectionRecord | undefined> {
    if (Date.now() - this.prefetchedAtMs < PREFETCH_KEPT_MS && this.prefetched.has(channelId)) {
      return Promise.resolve(this.prefetched.get(channelId));
    }
    return this.options.store.connections.find(channelId);
  }

  async idempotent(channelId: number): Promise<boolean> {
    const connection = await this.connectionOf(channelId);
    return connection ? IDEMPOTENT_PLATFORMS[connection.kind] === true : this.options.fallback.idempotent;
  }

  /** The connector that sends to this channel now. */
  async forChannel(channelId: number): Promise<Publisher> {
    const connection = await this.connectionOf(channelId);
    if (!connection) return this.options.fallback;
    const kept = this.open.get(channelId);
    if (kept?.updatedAtMs === connection.updatedAtMs) return kept.publisher;
    if (kept) await kept.publisher.close?.();
    const publisher = await this.openConnection(connection);
    this.open.set(channelId, { updatedAtMs: connection.updatedAtMs, publisher });
    return publisher;
  }

  async close(): Promise<void> {
    const publishers = [...this.open.values()].map((kept) => kept.publisher);
    this.open.clear();
    await Promise.all(publishers.map((publisher) => publisher.close?.()));
    await this.options.fallback.close?.();
  }

  private async openConnection(connection: ConnectionRecord): Promise<Publisher> {
    if (!isConnectedKind(connection.kind)) {
      // A connection made by a newer version of the program, sharing the store.
      const reason = `This version of social-publisher-mcp has no ${connection.kind} connector: upgrade it, or run social-publisher-mcp connect to connect the channel again.`;
      return unusable(connection.kind, reason);
    }
    let secret: string;
    try {
      secret = this.secretOf(connection);
    } catch (error) {
      return unusable(connection.kind, (error as Error).message);
    }
    const { store, secrets, context } = this.options;
    const { channelId } = connection;
    const module = connectorModule(connection.kind);
    const open = await module.load();
    const { oauthApps } = this.options;
    const media = heldMedia(context.loadMedia);
    const publisher = open(
      { ...connection, channelId, secret },
      {
        ...context,
        loadMedia: media.loadMedia,
        saveSecret: async (changed) => {
          await store.connections.setSecret(channelId, secrets.seal(changed, channelId), context.clock.now());
          await this.keepCurrent(channelId);
        },
        oauthClient: () => {
          const { app } = signInOf(module, connection.settings.login);
          return app ? oauthApps?.get(app.name) : undefined;
        },
        // Coordinated through the store: one refresh of a token, whichever processes find it stale.
        refreshSecret: async (request) => {
          const leaseMs = Math.max(30_000, 2 * context.timeoutMs);
          const coordination = {
            store,
            secrets,
            channelId,
            owner: this.owner,
            clock: context.clock,
            leaseMs,
          };
          const fresh = await refreshSecret(coordination, request);
          await this.keepCurrent(channelId);
          return fresh;
        },
      },
    );
    return withMediaReleased(publisher, media);
  }

  /**
   * Refreshes an OAuth connection's access token now when it would be stale at `untilMs` (a post due
   * then), so that the send at the due second does not wait for a refresh. Coordinated like any
   * refresh (one per token across processes); the channel's connector is opened again with the new
   * secret. False when nothing was needed or possible (the send then refreshes, or says why not).
   */
  async freshen(channelId: number, untilMs: number): Promise<boolean> {
    const connection = await this.connectionOf(channelId);
    if (!connection || !isConnectedKind(connection.kind)) return false;
    const { app, oauth } = signInOf(connectorModule(connection.kind), connection.settings.login);
    if (!app || !oauth) return false;
    let stale: string;
    try {
      stale = this.secretOf(connection);
      const { expiresAtMs, refreshToken } = tokensOf(stale);
      if (!refreshToken || expiresAtMs === undefined || expiresAtMs - REFRESH_AHEAD_MS >= untilMs)
        return false;
    } catch {
      return false;
    }
    const { store, secrets, context, oauthApps } = this.options;
    const authRoot =
      typeof connection.settings.authRoot === 'string' ? connection.settings.authRoot : app.authRoot;
    const hooks = await oauth();
    const coordination = {
      store,
      secrets,
      channelId,
      owner: this.owner,
      clock: context.clock,
      leaseMs: Math.max(30_000, 2 * context.timeoutMs),
    };
    await refreshSecret(coordination, {
      stale,
      refresh: (current) =>
        renewedSecret(current, {
          hooks,
          authRoot,
          client: oauthApps?.get(app.name),
          platform: connectorModule(connection.kind).displayName,
          http: { userAgent: context.userAgent, timeoutMs: context.timeoutMs },
        }),
    });
    this.prefetched.delete(channelId);
    return true;
  }

  /** The connector that stored the secret is current: it keeps the secret it has in memory. */
  private async keepCurrent(channelId: number): Promise<void> {
    this.prefetched.delete(channelId);
    const updated = await this.options.store.connections.find(channelId);
    const kept = this.open.get(channelId);
    if (updated && kept) kept.updatedAtMs = updated.updatedAtMs;
  }

  private secretOf(connection: ConnectionRecord): string {
    const command = `social-publisher-mcp connect ${connection.kind}`;
    if (connection.secretEnv) {
      const value = this.options.readEnv(connection.secretEnv);
      if (!value) {
        throw new Error(
          `The channel's secret is read from the environment variable ${connection.secretEnv}, which is not set in the server's environment: set it and restart, or run ${command}.`,
        );
      }
      return value;
    }
    if (!connection.sealedSecret) {
      throw new Error(`The channel was disconnected: run ${command} to connect it again.`);
    }
    return this.options.secrets.open(connection.sealedSecret, connection.channelId);
  }
}

/** The publisher, whose `close` also releases the media files it was handed and kept. */
function withMediaReleased(publisher: Publisher, media: { releaseAll(): Promise<void> }): Publisher {
  const close = publisher.close?.bind(publisher);
  publisher.close = async () => {
    await media.releaseAll();
    await close?.();
  };
  return publisher;
}

/** A connection that cannot be used (no secret, an unreadable one): every send asks to reconnect. */
function unusable(kind: string, reason: string): Publisher {
  const outcome: PublishOutcome = { ok: false, kind: 'reconnect', reason };
  return {
    name: kind,
    idempotent: false,
    deliver: async () => outcome,
    comment: async () => outcome,
    closePoll: async () => outcome,
  };
}
