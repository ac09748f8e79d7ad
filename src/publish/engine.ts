/**
 * The publishing engine of a running server: the connectors (each connected channel's own, and the
 * configured default for the others) and the loop that drives them.
 */

import type { PublisherConfig } from '../config.js';
import type { OAuthApps } from '../oauth-apps.js';
import type {
  Clock,
  MediaDownloader,
  MediaStore,
  PlanSignal,
  Publisher,
  PublishingEventSink,
  Store,
} from '../ports.js';
import type { SecretBox } from '../store/secret-box.js';
import { ChannelConnectors } from './channel-connectors.js';
import type { ConnectorContext } from './connector.js';
import { mediaLoader, storeMediaAddresses } from './media-loader.js';
import { SandboxPublisher } from './sandbox-publisher.js';
import { Scheduler } from './scheduler.js';

export interface PublishingEngine {
  /** The default publisher, for channels without a connection of their own. */
  readonly publisher: Publisher;
  readonly connectors: ChannelConnectors;
  readonly scheduler: Scheduler;
  /** `running` until `stop()` is called, `stopping` until it has returned, then `stopped`. */
  readonly state: 'running' | 'stopping' | 'stopped';
  /**
   * Stops the loop (after the sends under way; what it claimed but had not begun to send is handed
   * back), tells the other processes on the store that there may be work for them, and releases the
   * connectors.
   */
  stop(): Promise<void>;
}

/** The webhook publisher (and undici with it) is loaded only when configured. */
export async function startPublishingEngine(options: {
  store: Store;
  clock: Clock;
  publisher: PublisherConfig;
  /** Unseals the secrets of connected channels. */
  secrets: SecretBox;
  /** Uploaded media files, for connectors that upload them. */
  media?: Pick<MediaStore, 'open' | 'presign'>;
  /** Downloads media given by URL for connectors that upload it. */
  downloader?: MediaDownloader;
  /** Reads an environment variable that a workspace file named as a channel's secret. */
  readEnv?: (name: string) => string | undefined;
  /** The operator's OAuth apps, whose credentials refresh the connections' tokens. */
  oauthApps?: Pick<OAuthApps, 'get'>;
  /**
   * A public address of a post's media element, where `serve` has a public URL (ConnectorContext);
   * absent, the media store's presigned addresses where it gives them (object storage).
   */
  publicMediaUrl?: ConnectorContext['publicMediaUrl'];
  /** Deadline of one request to a platform. Default 30 s. */
  platformTimeoutMs?: number;
  /** How long a claim on a delivery lasts unless renewed. */
  claimLeaseMs?: number;
  /** How many deliveries are sent at once (SchedulerOptions.concurrency). */
  sendsInFlight?: number;
  version: string;
  log: (message: string) => void;
  /** Told what happens to each post, for the users of its brand (MCP logging). */
  events?: PublishingEventSink;
  /** Wakes the loop when another process on the store plans a post; told when this engine stops. */
  planSignal?: PlanSignal;
}): Promise<PublishingEngine> {
  const publisher: Publisher =
    options.publisher.kind === 'webhook'
      ? new (await import('./webhook-publisher.js')).WebhookPublisher({
          ...options.publisher,
          version: options.version,
          log: options.log,
          events: options.events,
        })
      : new SandboxPublisher(options.store.sandbox, options.clock);
  const publicMediaUrl = options.publicMediaUrl ?? storeMediaAddresses(options.media, options.clock);
  const connectors = new ChannelConnectors({
    store: options.store,
    secrets: options.secrets,
    fallback: publisher,
    readEnv: options.readEnv ?? (() => undefined),
    ...(options.oauthApps ? { oauthApps: options.oauthApps } : {}),
    context: {
      loadMedia: mediaLoader(options.store, options.media, options.downloader),
      ...(publicMediaUrl ? { publicMediaUrl } : {}),
      clock: options.clock,
      log: options.log,
      timeoutMs: options.platformTimeoutMs ?? 30_000,
      userAgent: `social-publisher-mcp/${options.version}`,
    },
  });
  const scheduler = new Scheduler({
    store: options.store,
    clock: options.clock,
    publisher,
    connectors,
    log: options.log,
    events: options.events,
    leaseMs: options.claimLeaseMs,
    concurrency: options.sendsInFlight,
    // Deliveries this process created: the other processes' idle workers may send them at once.
    onStarted: () => void options.planSignal?.announce(),
  });
  scheduler.start();
  const stopListening = options.planSignal?.listen(() => scheduler.wake());
  let state: PublishingEngine['state'] = 'running';
  let stopping: Promise<void> | undefined;
  return {
    publisher,
    connectors,
    scheduler,
    get state() {
      return state;
    },
    stop() {
      stopping ??= (async () => {
        state = 'stopping';
        stopListening?.();
        await scheduler.stop();
        // What this process handed back or left due is the others' now: they need not wait for a poll.
        await options.planSignal?.announce();
        await connectors.close();
        state = 'stopped';
      })();
      return stopping;
    },
  };
}
