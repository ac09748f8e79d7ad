/** The publishing engine of a running server: the configured publisher and the loop that drives it. */
import type { PublisherConfig } from '../config.js';
import type { Clock, Publisher, PublishingEventSink, Store } from '../ports.js';
import { SandboxPublisher } from './sandbox-publisher.js';
import { Scheduler } from './scheduler.js';

export interface PublishingEngine {
  readonly publisher: Publisher;
  readonly scheduler: Scheduler;
  /** Stops the loop (after the tick under way) and releases the publisher. */
  stop(): Promise<void>;
}

/** The webhook publisher (and undici with it) is loaded only when configured. */
export async function startPublishingEngine(options: {
  store: Store;
  clock: Clock;
  publisher: PublisherConfig;
  /** How long a claim on a delivery lasts unless renewed. */
  claimLeaseMs?: number;
  version: string;
  log: (message: string) => void;
  /** Told what happens to each post, for the users of its brand (MCP logging). */
  events?: PublishingEventSink;
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
  const scheduler = new Scheduler({
    store: options.store,
    clock: options.clock,
    publisher,
    log: options.log,
    events: options.events,
    leaseMs: options.claimLeaseMs,
  });
  scheduler.start();
  return {
    publisher,
    scheduler,
    async stop() {
      await scheduler.stop();
      await publisher.close?.();
    },
  };
}
