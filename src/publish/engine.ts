/** The publishing engine of a running server: the configured publisher and the loop that drives it. */
import type { PublisherConfig } from '../config.js';
import type { Clock, Publisher, PublishingEventSink, Store } from '../ports.js';
import { SandboxPublisher } from './sandbox-publisher.js';
import { Scheduler } from './scheduler.js';
import { WebhookPublisher } from './webhook-publisher.js';

export interface PublishingEngine {
  readonly publisher: Publisher;
  readonly scheduler: Scheduler;
  /** Stops the loop (after the tick under way) and releases the publisher. */
  stop(): Promise<void>;
}

export function startPublishingEngine(options: {
  store: Store;
  clock: Clock;
  publisher: PublisherConfig;
  version: string;
  log: (message: string) => void;
  /** Told what happens to each post, for the users of its brand (MCP logging). */
  events?: PublishingEventSink;
}): PublishingEngine {
  const publisher: Publisher =
    options.publisher.kind === 'webhook'
      ? new WebhookPublisher({
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
