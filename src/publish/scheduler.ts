/**
 * The publishing loop inside a running server: it runs a `PublishingPass` whenever something falls due,
 * sleeping in between (at most `maxSleepMs`, to notice posts other processes planned). Ticks never
 * overlap; start and stop are idempotent; errors are logged, never thrown out of the loop, and a tick
 * that fails (a full disk, a busy or closing store) is retried with a growing pause, its error logged
 * once rather than on every retry.
 */
import type { Clock, Publisher, PublishingEventSink, Store } from '../ports.js';
import { ClaimLease } from './claim-lease.js';
import { type ConnectorRouter, PublishingPass, type TickSummary } from './publishing-pass.js';

export type { TickSummary };

export interface SchedulerOptions {
  store: Store;
  clock: Clock;
  /** Sends to channels without a connection of their own (the sandbox or the webhook). */
  publisher: Publisher;
  /** Which connector sends to each channel; default: `publisher` for every channel. */
  connectors?: ConnectorRouter;
  log?: (message: string) => void;
  /** Told what happens to each post, for the users of its brand (MCP logging). */
  events?: PublishingEventSink;
  /** How many due posts (or expired claims) one step reads from the store at a time. */
  batchSize?: number;
  /** How many deliveries are sent at once. Default DEFAULT_SENDS_IN_FLIGHT. */
  concurrency?: number;
  /** Longest sleep between ticks, to notice posts planned by other processes. */
  maxSleepMs?: number;
  /**
   * How long a claim on a delivery or comment lasts unless its owner renews it (every third of it):
   * how long a stopped process's claims wait before another process takes them over. Default 30 s.
   */
  leaseMs?: number;
  /** Told when a pass started due posts: their deliveries are pending, for any process to send. */
  onStarted?: () => void;
}

/**
 * The pause after a tick that left due posts to another process starting them. That process announces
 * what it started (engine.ts), which wakes this one earlier; the pause covers its stopping midway.
 */
const LEFT_TO_OTHERS_PAUSE_MS = 250;

import { DEFAULT_SENDS_IN_FLIGHT } from '../config-values.js';

export { DEFAULT_SENDS_IN_FLIGHT };

/** The default lease on a claim: a stopped process's deliveries are taken over this long after it stopped. */
export const DEFAULT_LEASE_MS = 30_000;

export class Scheduler {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly log: (message: string) => void;
  private readonly maxSleepMs: number;
  private readonly lease: ClaimLease;
  private readonly pass: PublishingPass;
  /** Ticks that failed in a row, and the last error logged: a repeating failure is logged once. */
  private failedTicks = 0;
  private lastFailure: string | undefined;
  /** The last failure to plan a sleep, said once until a plan succeeds (a database down fails each). */
  private lastPlanFailure: string | undefined;
  private isRunning = false;
  /** A re-plan is reading the store; wakes meanwhile ask for one more after it (`replanAgain`). */
  private replanning = false;
  private replanAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private tick: Promise<unknown> | undefined;
  private wakeRequested = false;
  /** When the timer fires, on `performance.now()`'s scale. */
  private timerFiresAt = 0;

  constructor(options: SchedulerOptions) {
    this.store = options.store;
    this.clock = options.clock;
    this.log = options.log ?? (() => undefined);
    this.maxSleepMs = options.maxSleepMs ?? 30_000;
    this.lease = new ClaimLease({
      jobs: options.store.jobs,
      clock: options.clock,
      leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
      log: this.log,
    });
    this.pass = new PublishingPass({
      store: options.store,
      clock: options.clock,
      connectors: options.connectors ?? {
        forChannel: async () => options.publisher,
        idempotent: async () => options.publisher.idempotent,
      },
      lease: this.lease,
      log: this.log,
      events: options.events,
      batchSize: options.batchSize ?? 200,
      concurrency: options.concurrency ?? DEFAULT_SENDS_IN_FLIGHT,
      onStarted: options.onStarted,
    });
  }

  /** Who this scheduler's claims belong to. */
  get owner(): string {
    return this.lease.owner;
  }

  /** Between `start()` and `stop()`. */
  get running(): boolean {
    return this.isRunning;
  }

  start(): void {
    if (this.isRunning) return;
    this.isRunning = true;
    this.schedule(0);
  }

  /**
   * Stops the loop; resolves when the tick under way (if any) has finished sending what it had claimed.
   * It claims nothing more: what is left stays pending for the next process.
   */
  async stop(): Promise<void> {
    this.isRunning = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.tick) this.pass.halt();
    await this.tick;
    // A tick leaves no claim held; a runOnce a caller started by hand may still run and renews its own.
    if (!this.tick) this.lease.stop();
  }

  /**
   * The plan changed (a post was planned, or set to publish now): re-plans the sleep from the store,
   * so that a tick runs at once when something is due now, else when the earliest due time comes. A
   * tick under way re-plans so when it ends. (A full tick costs a dozen queries and a transaction; this,
   * three index reads.)
   */
  wake(): void {
    if (!this.isRunning) return;
    if (this.tick) {
      this.wakeRequested = true;
      this.pass.moreWork();
      return;
    }
    // A burst of wakes (several posts planned at once, here or in other processes) reads the store
    // twice, not once per wake: the re-plan under way, then one that sees everything since.
    if (this.replanning) {
      this.replanAgain = true;
      return;
    }
    this.replanning = true;
    void this.replan().finally(() => {
      this.replanning = false;
      if (this.replanAgain) {
        this.replanAgain = false;
        this.wake();
      }
    });
  }

  private async replan(): Promise<void> {
    let delayMs = 0;
    try {
      delayMs = await this.wokenSleepMs();
    } catch (error) {
      // The caller's change is committed; a tick at once finds whatever it was.
      this.planFailed('re-planning the publishing loop', error);
    }
    if (!this.isRunning) return;
    // A tick began while the store was read: it re-plans when it ends (ticks never overlap).
    if (this.tick) {
      this.wakeRequested = true;
      return;
    }
    if (performance.now() + delayMs < this.timerFiresAt) this.schedule(delayMs);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timerFiresAt = performance.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.tick = this.tickThenSleep().finally(() => {
        this.tick = undefined;
        // Woken while the next sleep was being planned: plan again with what changed.
        if (this.wakeRequested) {
          this.wakeRequested = false;
          this.wake();
        }
      });
    }, delayMs);
    this.timer.unref?.();
  }

  /**
   * One tick, then the sleep until the next: planned before the tick counts as over, so that a wake
   * meanwhile is taken into account rather than overtaken by a plan read before it.
   */
  private async tickThenSleep(): Promise<void> {
    let leftToOthers = 0;
    try {
      leftToOthers = (await this.runOnce()).leftToOthers;
      this.tickSucceeded();
    } catch (error) {
      this.tickFailed(error);
    }
    if (!this.isRunning) return;
    const woken = this.wakeRequested;
    this.wakeRequested = false;
    let delayMs = this.maxSleepMs;
    try {
      delayMs = woken ? await this.wokenSleepMs() : await this.sleepMs();
      this.lastPlanFailure = undefined;
    } catch (error) {
      // A store that cannot be read now (busy, closing, a database down) is tried again on the longest sleep.
      this.planFailed('planning the next publishing tick', error);
    }
    // Posts another process is starting stay due: look again shortly rather than at once over and over
    // (woken sooner when it announces the deliveries it created).
    if (leftToOthers > 0) delayMs = Math.max(delayMs, Math.min(this.maxSleepMs, LEFT_TO_OTHERS_PAUSE_MS));
    // After a failed tick, whatever is due waits a pause that doubles up to the longest sleep.
    if (this.failedTicks > 0) {
      delayMs = Math.max(delayMs, Math.min(this.maxSleepMs, 1000 * 2 ** (this.failedTicks - 1)));
    }
    if (this.isRunning) this.schedule(delayMs);
  }

  private tickSucceeded(): void {
    if (this.failedTicks > 0) this.log(`publishing works again after ${this.failedTicks} failed ticks`);
    this.failedTicks = 0;
    this.lastFailure = undefined;
  }

  private planFailed(what: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (message === this.lastPlanFailure) return;
    this.lastPlanFailure = message;
    this.log(`${what} failed (the same error is not logged again): ${(error as Error).stack ?? message}`);
  }

  private tickFailed(error: unknown): void {
    this.failedTicks++;
    const message = error instanceof Error ? error.message : String(error);
    if (message === this.lastFailure) return;
    this.lastFailure = message;
    this.log(
      `publishing tick failed (retrying with a growing pause; the same error is not logged again): ${(error as Error).stack ?? message}`,
    );
  }

  /** After a change of plan: deliveries waiting to be sent (a post started at once) are due now. */
  private async wokenSleepMs(): Promise<number> {
    return (await this.store.jobs.hasDue(this.clock.now())) ? 0 : this.sleepMs();
  }

  private async sleepMs(): Promise<number> {
    const { posts, jobs } = this.store;
    // A post falling due, a job falling due (a retry, a comment, a check), or a lease ending (a claim
    // whose owner stopped can be taken over then).
    const [dueAt, jobAt] = await Promise.all([posts.nextDueAtMs(), jobs.nextWakeAtMs()]);
    const next = [dueAt, jobAt].filter((t): t is number => t !== undefined);
    if (next.length === 0) return this.maxSleepMs;
    return Math.min(this.maxSleepMs, Math.max(0, Math.min(...next) - this.clock.now()));
  }

  /** One full pass. Tests call it directly after moving their clock. */
  runOnce(): Promise<TickSummary> {
    return this.pass.run();
  }
}
