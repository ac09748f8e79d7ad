/**
 * The PlanSignal port on PostgreSQL: LISTEN/NOTIFY on one channel of the store's database. An instance
 * announces with `pg_notify` on a pooled connection; it listens on one connection of its own, opened
 * when its engine first listens, and opened again (with a pause doubling from 0.5 s up to 30 s) whenever
 * it drops: a server restart, a network cut, a terminated backend. Notifications sent while it was down
 * are lost, so the listeners are woken once it is back, as if one had come; until then the engines
 * poll. Each announcement carries this instance's id, so that its own notifications are not heard back.
 */
import { randomBytes } from 'node:crypto';
import { Client, type Pool } from 'pg';
import type { PlanSignal } from '../../ports.js';

/** The channel of every instance's announcements (one per database: PostgreSQL scopes channels so). */
export const PLAN_CHANNEL = 'social_publisher_plan';

/** What an operator sees in pg_stat_activity for the listening connection. */
export const LISTENER_NAME = 'social-publisher-mcp plan listener';

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 30_000;

export interface PostgresPlanSignalOptions {
  url: string;
  /** Announcements go out on the store's pool. */
  pool: Pool;
  log: (message: string) => void;
}

export class PostgresPlanSignal implements PlanSignal {
  /** Unique to this instance: its own announcements come back to it and are ignored. */
  readonly instanceId = randomBytes(8).toString('hex');
  private readonly listeners = new Set<() => void>();
  private client: Client | undefined;
  /** The connection whose LISTEN has succeeded. */
  private listeningOn: Client | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = FIRST_RETRY_MS;
  /** Since when the listening connection has been down (logged once per outage); 0 while up. */
  private downSince = 0;
  private closed = false;

  constructor(private readonly options: PostgresPlanSignalOptions) {}

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
    this.listeners.add(wake);
    if (!this.client && !this.retryTimer && !this.closed) void this.connect();
    return () => {
      this.listeners.delete(wake);
      if (this.listeners.size === 0) this.disconnect();
    };
  }

  /** Whether the listening connection is up and LISTENing. */
  get listening(): boolean {
    return this.listeningOn !== undefined && this.listeningOn === this.client;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
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
      if (!this.closed && this.listeners.size > 0) this.retryLater(error);
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === PLAN_CHANNEL && message.payload !== this.instanceId) this.wakeAll();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${PLAN_CHANNEL}`);
    } catch (error) {
      onLost(error as Error);
      return;
    }
    if (lost || this.closed || this.client !== client) {
      void client.end().catch(() => undefined);
      return;
    }
    this.listeningOn = client;
    this.retryMs = FIRST_RETRY_MS;
    if (this.downSince !== 0) {
      this.options.log(
        `listening for the other instances' plan changes again, after ${Math.round((Date.now() - this.downSince) / 1000)} s`,
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
        `the connection listening for the other instances' plan changes is down (${error?.message ?? 'closed by the server'}); reconnecting, and polling meanwhile`,
      );
    }
    const delayMs = this.retryMs;
    this.retryMs = Math.min(LAST_RETRY_MS, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.closed && this.listeners.size > 0) void this.connect();
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
