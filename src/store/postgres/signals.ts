/**
 * The PlanSignal and EventRelay ports on PostgreSQL: LISTEN/NOTIFY on two channels of the store's
 * database, one for "the plan changed" and one for publishing events (MCP logging). An instance sends
 * with `pg_notify` on a pooled connection; it listens on one connection of its own, opened when the first
 * listener comes, and opened again (with a pause doubling from 0.5 s up to 30 s) whenever it drops: a
 * server restart, a network cut, a terminated backend. Notifications sent while it was down are lost, so
 * the plan's listeners are woken once it is back, as if one had come (until then the engines poll); lost
 * events are lost, as a log line can be. Each notification carries this instance's id, so that its own
 * are not heard back.
 */
import { randomBytes } from 'node:crypto';
import { Client, type Pool } from 'pg';
import type { EventRelay, PlanSignal, PublishingEvent, PublishingEventSink } from '../../ports.js';

/** The channel of every instance's announcements (one per database: PostgreSQL scopes channels so). */
export const PLAN_CHANNEL = 'social_publisher_plan';
/** The channel of publishing events, as JSON: `{"from": instanceId, "events": PublishingEvent[]}`. */
export const EVENT_CHANNEL = 'social_publisher_event';

/** What an operator sees in pg_stat_activity for the listening connection. */
export const LISTENER_NAME = 'social-publisher-mcp listener';

/** A notification's payload must stay under 8000 bytes: an event's message is cut well before. */
const EVENT_MESSAGE_CHARS = 2_000;
/** The most a notification of ours carries, in bytes (PostgreSQL's limit is 8000). */
const PAYLOAD_BYTES = 7_900;
/** Events relayed within this long go out together. */
const RELAY_EVERY_MS = 20;

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 30_000;

export interface PostgresSignalsOptions {
  url: string;
  /** Announcements go out on the store's pool. */
  pool: Pool;
  /** The store's id of this instance, which its transactions' notifications carry too. */
  instanceId?: string;
  log: (message: string) => void;
}

export class PostgresSignals implements PlanSignal, EventRelay {
  /** Unique to this instance: its own announcements come back to it and are ignored. */
  readonly instanceId: string;
  private readonly listeners = new Set<() => void>();
  private readonly hearers = new Set<PublishingEventSink>();
  private client: Client | undefined;
  /** The connection whose LISTEN has succeeded. */
  private listeningOn: Client | undefined;
  /** Whether the listening connection was last asked to LISTEN on the event channel (it has hearers). */
  private eventsAsked = false;
  /** The connection whose LISTEN on the event channel has succeeded (`hearing`). */
  private hearingOn: Client | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = FIRST_RETRY_MS;
  /** Since when the listening connection has been down (logged once per outage); 0 while up. */
  private downSince = 0;
  private closed = false;
  /** Events relayed and not yet sent, and the timer that sends them. */
  private readonly outgoing: PublishingEvent[] = [];
  private relayTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly options: PostgresSignalsOptions) {
    this.instanceId = options.instanceId ?? randomBytes(8).toString('hex');
  }

  async announce(): Promise<void> {
    if (this.closed) return;
    try {
      await this.options.pool.query('SELECT pg_notify($1, $2)', [PLAN_CHANNEL, this.instanceId]);
    } catch (error) {
      this.options.log(
        `telling the other instances that the plan changed failed (they see it when they next poll): ${(error as Error).message}`,
      );
    }
  }

  listen(wake: () => void): () => void {
    return this.subscribe(this.listeners, wake);
  }

  relay(event: PublishingEvent): void {
    if (this.closed) return;
    const message =
      event.message.length > EVENT_MESSAGE_CHARS
        ? `${event.message.slice(0, EVENT_MESSAGE_CHARS)}…`
        : event.message;
    this.outgoing.push({ ...event, message });
    this.relayTimer ??= setTimeout(() => void this.flush(), RELAY_EVERY_MS);
  }

  /** Sends what was relayed, after what earlier flushes send: the other instances hear events in order. */
  private flush(): Promise<void> {
    clearTimeout(this.relayTimer);
    this.relayTimer = undefined;
    const payloads = this.payloads(this.outgoing.splice(0));
    this.flushing = this.flushing.then(async () => {
      for (const payload of payloads) {
        try {
          await this.options.pool.query('SELECT pg_notify($1, $2)', [EVENT_CHANNEL, payload]);
        } catch (error) {
          this.options.log(
            `passing publishing events to the other instances failed: ${(error as Error).message}`,
          );
        }
      }
    });
    return this.flushing;
  }

  /**
   * The events as few notifications as fit them: one per event would wake every instance's listener
   * once per delivery, work that grows with the number of instances.
   */
  private payloads(events: readonly PublishingEvent[]): string[] {
    const payloads: string[] = [];
    // `{"from":…,"events":[` + the events, comma-separated + `]}`.
    const head = `{"from":${JSON.stringify(this.instanceId)},"events":[`;
    let batch: string[] = [];
    let bytes = Buffer.byteLength(head) + 2;
    for (const event of events) {
      const json = JSON.stringify(event);
      const size = Buffer.byteLength(json) + (batch.length > 0 ? 1 : 0);
      if (batch.length > 0 && bytes + size > PAYLOAD_BYTES) {
        payloads.push(`${head}${batch.join(',')}]}`);
        batch = [];
        bytes = Buffer.byteLength(head) + 2;
      }
      batch.push(json);
      bytes += Buffer.byteLength(json) + (batch.length > 1 ? 1 : 0);
    }
    if (batch.length > 0) payloads.push(`${head}${batch.join(',')}]}`);
    return payloads;
  }

  hear(listener: PublishingEventSink): () => void {
    const unsubscribe = this.subscribe(this.hearers, listener);
    this.followHearers();
    return () => {
      unsubscribe();
      this.followHearers();
    };
  }

  /** Whether the listening connection LISTENs on the event channel: hearers hear what is relayed now. */
  get hearing(): boolean {
    return this.listening && this.hearingOn === this.client;
  }

  /**
   * LISTEN on the event channel while this instance has hearers (its MCP sessions), UNLISTEN once it has
   * none: PostgreSQL wakes every listener of the channel for every batch any instance relays, work that
   * grows with the square of the instances, which an instance without sessions (REST only) need not do.
   */
  private followHearers(): void {
    const client = this.listeningOn;
    // Not connected yet, or reconnecting: `connect` LISTENs as the hearers are then.
    if (!client || client !== this.client) return;
    const wanted = this.hearers.size > 0;
    if (wanted === this.eventsAsked) return;
    this.eventsAsked = wanted;
    client.query(`${wanted ? 'LISTEN' : 'UNLISTEN'} ${EVENT_CHANNEL}`).then(
      () => {
        if (this.client === client && this.eventsAsked === wanted)
          this.hearingOn = wanted ? client : undefined;
      },
      // The connection is lost: its error handler reconnects, and LISTENs as the hearers are then.
      () => undefined,
    );
  }

  private get subscribers(): number {
    return this.listeners.size + this.hearers.size;
  }

  private subscribe<T>(set: Set<T>, listener: T): () => void {
    set.add(listener);
    if (!this.client && !this.retryTimer && !this.closed) void this.connect();
    return () => {
      set.delete(listener);
      if (this.subscribers === 0) this.disconnect();
    };
  }

  /** Whether the listening connection is up and LISTENing. */
  get listening(): boolean {
    return this.listeningOn !== undefined && this.listeningOn === this.client;
  }

  async close(): Promise<void> {
    // Events relayed before the end still go out (the pool is closed after this).
    await this.flush();
    this.closed = true;
    this.listeners.clear();
    this.hearers.clear();
    this.disconnect();
  }

  private async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.options.url,
      application_name: LISTENER_NAME,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    this.client = client;
    // Errors and the end of the connection are handled once, whichever comes first.
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      // A connection let go on purpose (disconnect) is not this instance's listener any more.
      if (this.client !== client) return;
      this.client = undefined;
      if (!this.closed && this.subscribers > 0) this.retryLater(error);
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === PLAN_CHANNEL && message.payload !== this.instanceId) this.wakeAll();
      if (message.channel === EVENT_CHANNEL) this.tellHearers(message.payload);
    });
    const hearing = this.hearers.size > 0;
    try {
      await client.connect();
      await client.query(`LISTEN ${PLAN_CHANNEL}${hearing ? `; LISTEN ${EVENT_CHANNEL}` : ''}`);
    } catch (error) {
      onLost(error as Error);
      return;
    }
    if (lost || this.closed || this.client !== client) {
      void client.end().catch(() => undefined);
      return;
    }
    this.listeningOn = client;
    this.eventsAsked = hearing;
    this.hearingOn = hearing ? client : undefined;
    // Sessions that came or went while it connected.
    this.followHearers();
    this.retryMs = FIRST_RETRY_MS;
    if (this.downSince !== 0) {
      this.options.log(
        `listening for the other instances' notifications again, after ${Math.round((Date.now() - this.downSince) / 1000)} s`,
      );
      this.downSince = 0;
      // Whatever was announced meanwhile was lost: look at the store once, as if told.
      this.wakeAll();
    }
  }

  private retryLater(error: Error | undefined): void {
    if (this.downSince === 0) {
      this.downSince = Date.now();
      this.options.log(
        `the connection listening for the other instances' notifications is down (${error?.message ?? 'closed by the server'}); reconnecting, and polling meanwhile`,
      );
    }
    const delayMs = this.retryMs;
    this.retryMs = Math.min(LAST_RETRY_MS, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.closed && this.subscribers > 0) void this.connect();
    }, delayMs);
    this.retryTimer.unref();
  }

  private disconnect(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const { client } = this;
    this.client = undefined;
    this.downSince = 0;
    if (client) void client.end().catch(() => undefined);
  }

  private tellHearers(payload: string | undefined): void {
    // This instance's own (it heard them at once), or nobody to tell: not worth parsing.
    if (this.hearers.size === 0 || payload?.startsWith(`{"from":"${this.instanceId}"`)) return;
    let parsed: { from?: unknown; events?: unknown; event?: unknown };
    try {
      parsed = JSON.parse(payload ?? '') as typeof parsed;
    } catch {
      return;
    }
    if (parsed.from === this.instanceId) return;
    // One event per notification (`event`) is what instances before 2026-11-23 send: during a rolling
    // upgrade both kinds arrive.
    const events = Array.isArray(parsed.events) ? parsed.events : parsed.event ? [parsed.event] : [];
    for (const event of events as PublishingEvent[]) {
      for (const hear of this.hearers) {
        try {
          hear(event);
        } catch {
          // A session that cannot take an event misses it; the others do not.
        }
      }
    }
  }

  private wakeAll(): void {
    for (const wake of this.listeners) {
      try {
        wake();
      } catch (error) {
        this.options.log(`waking the publishing engine failed: ${(error as Error).message}`);
      }
    }
  }
}
