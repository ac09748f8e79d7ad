/**
 * MCP logging of publishing: the engine tells one feed what happens to posts (published, a delivery
 * failed, a webhook retried); each MCP session passes on, as `notifications/message`, the events of the
 * brands its user may see, at or above the level its client chose with `logging/setLevel` (the SDK's
 * Server keeps that level per session and drops what is below it).
 */
import type { McpServer } from '@modelcontextprotocol/server';
import type { PublishingEvent } from '../ports.js';

/**
 * Fans events out to the listeners subscribed at the time: a listener hears nothing from before.
 * `whileHeard` is started when the first listener subscribes and ended (by the function it returns) when
 * the last one leaves: hearing a source (another instance's relay, the publishing feed) costs only while
 * someone listens. A listener's failure is not the emitter's, nor the other listeners'.
 */
export class EventFeed<E> {
  private readonly listeners = new Set<(event: E) => void>();
  /** Ends what `whileHeard` started, while the feed has listeners. */
  private unheard: (() => void) | undefined;

  constructor(private readonly whileHeard?: (emit: (event: E) => void) => () => void) {}

  /** Never throws. */
  readonly emit = (event: E): void => {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener that cannot take an event (closing, its store gone) misses it; the others do not.
      }
    }
  };

  /** Returns the unsubscribe function (calling it again does nothing). */
  subscribe(listener: (event: E) => void): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.unheard ??= this.whileHeard?.(this.emit);
    return () => {
      if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
      this.unheard?.();
      this.unheard = undefined;
    };
  }

  /** How many listen. */
  get size(): number {
    return this.listeners.size;
  }
}

/** The engine's events, fanned out to the sessions open at the time (its `emit` is the engine's sink). */
export class PublishingEventFeed extends EventFeed<PublishingEvent> {}

/** What a session needs to log publishing: the feed, and whose events its user may hear. */
export interface PublishingLog {
  feed: PublishingEventFeed;
  /** True when the session's user may see the brand (a brand of another user answers false). */
  canSeeBrand(brandId: number): Promise<boolean>;
}

/** The `logger` name clients show beside each message. */
export const PUBLISHING_LOGGER = 'publishing';

/**
 * Passes the feed's events to the session's client from the moment it is initialized until it closes.
 * The server must declare the logging capability (in its constructor, where the SDK also installs the
 * `logging/setLevel` handler).
 */
export function forwardPublishingEvents(server: McpServer, log: PublishingLog): void {
  let unsubscribe: (() => void) | undefined;
  // Each event waits for the one before it: the client hears them in the order they happened.
  let previous: Promise<void> = Promise.resolve();
  const send = async (event: PublishingEvent) => {
    if (!(await log.canSeeBrand(event.brandId))) return;
    // Read once the brand is checked: the session may have closed meanwhile.
    const transport = server.server.transport;
    if (!transport) return;
    // The session id is the key under which the SDK keeps the level this session's client set.
    server.server
      .sendLoggingMessage(
        { level: event.level, logger: PUBLISHING_LOGGER, data: event.message },
        transport.sessionId,
      )
      .catch(() => undefined);
  };
  const forward = (event: PublishingEvent) => {
    previous = previous.then(() => send(event)).catch(() => undefined);
  };
  const initialized = server.server.oninitialized;
  server.server.oninitialized = () => {
    unsubscribe ??= log.feed.subscribe(forward);
    initialized?.();
  };
  const closed = server.server.onclose;
  server.server.onclose = () => {
    unsubscribe?.();
    unsubscribe = undefined;
    closed?.();
  };
}
