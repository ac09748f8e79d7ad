/**
 * Publishing events as resource updates: when a post is published or a delivery fails, its resource
 * (`social-publisher://brands/{b}/posts/{p}`) and its brand's calendar change, and the clients that asked
 * to hear of them are told `notifications/resources/updated`; they read the resource for what changed.
 * On MCP 2025-11-25 a client subscribes to each resource (resources/subscribe); on 2026-07-28 it opens
 * a `subscriptions/listen` stream naming them, which the SDK's serving entry keeps: stdio passes on this
 * server's updates to the streams that asked, and HTTP takes them from a bus per user (PublishingEventBus).
 * Only the events of brands the user may see are passed on. (2025 clients also get them as log messages:
 * logging.ts.)
 */
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerEvent,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import type { PublishingEvent } from '../ports.js';
import { EventFeed, type PublishingLog } from './logging.js';
import { brandResourceUri, parseResourceUri, postResourceUri } from './resources.js';
import { resourceNotFound } from './workspace-lookup.js';

/** The resources an event changes: the post's own, and its brand's calendar. */
export function updatedUris(event: PublishingEvent): string[] {
  return [postResourceUri(event.brandId, event.postId), brandResourceUri(event.brandId, 'calendar')];
}

/** Calls `send` with each event of a brand the user may see, in the order they happened. */
function visibleEvents(log: PublishingLog, send: (event: PublishingEvent) => void) {
  let previous: Promise<void> = Promise.resolve();
  return (event: PublishingEvent) => {
    previous = previous
      .then(async () => {
        if (await log.canSeeBrand(event.brandId)) send(event);
      })
      .catch(() => undefined);
  };
}

/**
 * Lets the server's clients hear of changes to its resources. 2025-11-25: resources/subscribe and
 * resources/unsubscribe, from initialization until the session closes. 2026-07-28 (stdio, where one
 * server serves the connection): every update goes to the SDK, which keeps those a listen stream asked for.
 */
export function forwardResourceUpdates(
  server: McpServer,
  log: PublishingLog,
  era: 'legacy' | 'modern',
): void {
  let unsubscribe: (() => void) | undefined;
  const subscribed = new Set<string>();
  const send = (event: PublishingEvent) => {
    for (const uri of updatedUris(event)) {
      if (era === 'modern' || subscribed.has(uri))
        server.server.sendResourceUpdated({ uri }).catch(() => undefined);
    }
  };
  const listen = () => {
    unsubscribe ??= log.feed.subscribe(visibleEvents(log, send));
  };
  const closed = server.server.onclose;
  server.server.onclose = () => {
    unsubscribe?.();
    unsubscribe = undefined;
    closed?.();
  };
  if (era === 'modern') {
    listen();
    return;
  }
  server.server.setRequestHandler('resources/subscribe', async (request) => {
    const uri = request.params.uri;
    const named = parseResourceUri(uri);
    if (!named || !(await log.canSeeBrand(named.brandId))) {
      throw resourceNotFound(
        uri,
        `Resource ${uri} not found: resources/list and resources/templates/list show what can be subscribed to.`,
      );
    }
    subscribed.add(uri);
    listen();
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async (request) => {
    if (!subscribed.delete(request.params.uri)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Not subscribed to ${request.params.uri}: nothing to unsubscribe.`,
      );
    }
    return {};
  });
}

/**
 * The events of one user's brands, as the bus of that user's 2026-07-28 HTTP endpoint: the publishing
 * feed is heard only while a listen stream is open, and each event becomes its resources' updates.
 */
export class PublishingEventBus implements ServerEventBus {
  private readonly streams: EventFeed<ServerEvent>;

  constructor(log: PublishingLog) {
    this.streams = new EventFeed((emit) =>
      log.feed.subscribe(
        visibleEvents(log, (event) => {
          for (const uri of updatedUris(event)) emit({ kind: 'resource_updated', uri });
        }),
      ),
    );
  }

  publish(event: ServerEvent): void {
    this.streams.emit(event);
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    return this.streams.subscribe(listener);
  }

  /** Streams listening (tests). */
  get size(): number {
    return this.streams.size;
  }
}
