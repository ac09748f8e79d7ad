/**
 * The publishing loop inside a running server. Each tick: due posts start publishing (one delivery per
 * channel), pending deliveries are claimed and sent, due auto-comments are posted. Ticks never overlap;
 * start and stop are idempotent; errors are logged, never thrown out of the loop.
 *
 * Exactly once: a delivery is claimed (pending → sending) in a transaction before it is sent, so no two
 * loops send it. If the process dies while a delivery is `sending`, its outcome is unknown: with an
 * idempotent publisher (the sandbox) it is sent again, which records nothing new; with any other it is
 * marked failed rather than risk sending it twice.
 */
import type {
  Clock,
  DeliveryRecord,
  PostRecord,
  Publisher,
  PublishingEvent,
  PublishingEventSink,
  Store,
} from '../ports.js';
import { settlePost, startPublishing } from '../service/publishing.js';
import {
  commentFailed,
  commentPosted,
  deliveryFailed,
  postSettled,
  postStarted,
} from './publishing-events.js';

export interface SchedulerOptions {
  store: Store;
  clock: Clock;
  publisher: Publisher;
  log?: (message: string) => void;
  /** Told what happens to each post, for the users of its brand (MCP logging). */
  events?: PublishingEventSink;
  /** How many posts or deliveries one step takes from the store at a time. */
  batchSize?: number;
  /** How many deliveries are sent at once. */
  concurrency?: number;
  /** Longest sleep between ticks, to notice posts planned by other processes. */
  maxSleepMs?: number;
  /**
   * How long a non-idempotent delivery may stay `sending` before it counts as left behind by a stopped
   * process; longer than a publisher's own retries can take.
   */
  sendingLeaseMs?: number;
}

export interface TickSummary {
  started: number;
  sent: number;
  failed: number;
  comments: number;
}

const IN_DOUBT_REASON =
  'The server stopped while sending this delivery, so whether it arrived is unknown; it was not sent again, to avoid a duplicate. Check the channel, then publish again if it is missing.';

export class Scheduler {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly publisher: Publisher;
  private readonly log: (message: string) => void;
  private readonly events: PublishingEventSink | undefined;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly maxSleepMs: number;
  private readonly sendingLeaseMs: number;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private tick: Promise<unknown> | undefined;
  private wakeRequested = false;
  /** When the timer fires, on `performance.now()`'s scale. */
  private timerFiresAt = 0;

  constructor(options: SchedulerOptions) {
    this.store = options.store;
    this.clock = options.clock;
    this.publisher = options.publisher;
    this.log = options.log ?? (() => undefined);
    this.events = options.events;
    this.batchSize = options.batchSize ?? 200;
    this.concurrency = options.concurrency ?? 8;
    this.maxSleepMs = options.maxSleepMs ?? 30_000;
    this.sendingLeaseMs = options.sendingLeaseMs ?? 10 * 60_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops the loop; resolves when the tick under way (if any) has finished. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.tick;
  }

  /**
   * The plan changed (a post was planned, or set to publish now): re-plans the sleep from the store,
   * so that a tick runs at once when something is due now, else when the earliest due time comes. A
   * tick under way re-plans so when it ends. (A full tick costs a dozen queries and a transaction; this,
   * three index reads.)
   */
  wake(): void {
    if (!this.running) return;
    if (this.tick) {
      this.wakeRequested = true;
      return;
    }
    let delayMs = 0;
    try {
      delayMs = this.wokenSleepMs();
    } catch (error) {
      // The caller's change is committed; a tick at once finds whatever it was.
      this.log(`re-planning the publishing loop failed: ${(error as Error).stack ?? String(error)}`);
    }
    if (performance.now() + delayMs < this.timerFiresAt) this.schedule(delayMs);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timerFiresAt = performance.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.tick = this.runOnce()
        .catch((error: unknown) =>
          this.log(`publishing tick failed: ${(error as Error).stack ?? String(error)}`),
        )
        .finally(() => {
          this.tick = undefined;
          if (!this.running) return;
          const woken = this.wakeRequested;
          this.wakeRequested = false;
          let delayMs = this.maxSleepMs;
          try {
            delayMs = woken ? this.wokenSleepMs() : this.sleepMs();
          } catch (error) {
            // A store that cannot be read now (busy, closing) is tried again on the longest sleep.
            this.log(`planning the next publishing tick failed: ${(error as Error).stack ?? String(error)}`);
          }
          this.schedule(delayMs);
        });
    }, delayMs);
    this.timer.unref?.();
  }

  /** After a change of plan: deliveries waiting to be sent (a post started at once) are due now. */
  private wokenSleepMs(): number {
    return this.store.deliveries.hasPending() ? 0 : this.sleepMs();
  }

  private sleepMs(): number {
    const next = [this.store.posts.nextDueAtMs(), this.store.deliveries.nextCommentDueAtMs()].filter(
      (t): t is number => t !== undefined,
    );
    if (next.length === 0) return this.maxSleepMs;
    return Math.min(this.maxSleepMs, Math.max(0, Math.min(...next) - this.clock.now()));
  }

  /** One full pass. Tests call it directly after moving their clock. */
  async runOnce(): Promise<TickSummary> {
    const summary: TickSummary = { started: 0, sent: 0, failed: 0, comments: 0 };
    this.recoverInDoubt();
    summary.started = this.startDuePosts();
    for (;;) {
      const claimed = this.store.deliveries.claimPending(this.batchSize, this.clock.now());
      if (claimed.length === 0) break;
      const outcomes = await this.sendAll(claimed);
      summary.sent += outcomes.sent;
      summary.failed += outcomes.failed;
    }
    summary.comments = await this.sendDueComments();
    return summary;
  }

  private recoverInDoubt(): void {
    const { store } = this;
    const nowMs = this.clock.now();
    // The sandbox may resend at once; others only once a claim is older than any live send can be.
    const claimedBefore = this.publisher.idempotent ? Number.MAX_SAFE_INTEGER : nowMs - this.sendingLeaseMs;
    for (const delivery of store.deliveries.inDoubt(claimedBefore)) {
      const settled = store.transaction(() => {
        if (this.publisher.idempotent) {
          store.deliveries.retry(delivery.id);
          return undefined;
        }
        store.deliveries.markFailed(delivery.id, IN_DOUBT_REASON);
        return settlePost(store, delivery.postId, nowMs);
      });
      const post = this.publisher.idempotent ? undefined : store.posts.get(delivery.postId);
      if (post) {
        this.tell(deliveryFailed(post, delivery, IN_DOUBT_REASON));
        if (settled) this.tell(postSettled(post, settled));
      }
    }
    for (const delivery of store.deliveries.commentsInDoubt()) {
      if (this.publisher.idempotent) store.deliveries.retryComment(delivery.id);
      else store.deliveries.markComment(delivery.id, 'failed', nowMs, IN_DOUBT_REASON);
    }
  }

  private startDuePosts(): number {
    const { store } = this;
    let started = 0;
    for (;;) {
      const nowMs = this.clock.now();
      const due = store.posts.due(nowMs, this.batchSize);
      if (due.length === 0) return started;
      const events: PublishingEvent[] = [];
      store.transaction(() => {
        for (const post of due) {
          // Another process may have started or cancelled it since it was read.
          const current = store.posts.get(post.id);
          if (current?.status !== 'queued' && current?.status !== 'scheduled') continue;
          const start = startPublishing(store, current, nowMs);
          started++;
          if (!this.events) continue;
          events.push(...postStarted(current, start.deliveries));
          if (start.settled) events.push(postSettled(current, start.settled));
        }
      });
      // Told once committed: a rolled-back start did not happen.
      for (const event of events) this.tell(event);
      if (due.length < this.batchSize) return started;
    }
  }

  private async sendAll(claimed: DeliveryRecord[]): Promise<{ sent: number; failed: number }> {
    const posts = new Map<number, PostRecord | undefined>();
    for (const delivery of claimed) {
      if (!posts.has(delivery.postId)) posts.set(delivery.postId, this.store.posts.get(delivery.postId));
    }
    let sent = 0;
    let failed = 0;
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const delivery = claimed[next++]!;
        const ok = await this.sendOne(delivery, posts.get(delivery.postId));
        if (ok) sent++;
        else failed++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, claimed.length) }, worker));
    return { sent, failed };
  }

  private async sendOne(delivery: DeliveryRecord, post: PostRecord | undefined): Promise<boolean> {
    const { store } = this;
    let outcome: Awaited<ReturnType<Publisher['deliver']>>;
    if (!post || !delivery.content) {
      outcome = { ok: false, reason: 'The post of this delivery no longer exists.' };
    } else {
      try {
        outcome = await this.publisher.deliver({
          deliveryId: delivery.id,
          postId: post.id,
          brandId: post.brandId,
          channel: { id: delivery.channelId, name: delivery.channelName, type: delivery.channelType },
          content: delivery.content,
        });
      } catch (error) {
        this.log(
          `publisher ${this.publisher.name} failed on delivery ${delivery.id}: ${(error as Error).stack}`,
        );
        outcome = {
          ok: false,
          reason: `The ${this.publisher.name} publisher failed: ${(error as Error).message}`,
        };
      }
    }
    const nowMs = this.clock.now();
    const settled = store.transaction(() => {
      if (outcome.ok) {
        const comment = post?.payload.comment;
        const commentDueAtMs = comment ? nowMs + comment.delay * 1000 : null;
        store.deliveries.markSent(delivery.id, outcome.externalId, nowMs, commentDueAtMs);
      } else {
        store.deliveries.markFailed(delivery.id, outcome.reason);
      }
      return settlePost(store, delivery.postId, nowMs);
    });
    const about = post ?? { id: delivery.postId, brandId: 0 };
    const events = [
      ...(outcome.ok ? [] : [deliveryFailed(about, delivery, outcome.reason)]),
      ...(settled ? [postSettled(about, settled)] : []),
    ];
    for (const event of events) {
      this.log(event.message);
      // A post that no longer exists has no brand left to tell.
      if (post) this.tell(event);
    }
    return outcome.ok;
  }

  private async sendDueComments(): Promise<number> {
    const { store } = this;
    let posted = 0;
    for (;;) {
      const due = store.deliveries.claimDueComments(this.batchSize, this.clock.now());
      if (due.length === 0) return posted;
      for (const delivery of due) {
        const post = store.posts.get(delivery.postId);
        const text = post?.payload.comment?.comment;
        let outcome: Awaited<ReturnType<Publisher['comment']>>;
        try {
          outcome = text
            ? await this.publisher.comment({
                deliveryId: delivery.id,
                postId: delivery.postId,
                brandId: post!.brandId,
                channel: { id: delivery.channelId, name: delivery.channelName, type: delivery.channelType },
                externalId: delivery.externalId,
                comment: text,
              })
            : { ok: false, reason: 'The post no longer has a comment.' };
        } catch (error) {
          outcome = {
            ok: false,
            reason: `The ${this.publisher.name} publisher failed: ${(error as Error).message}`,
          };
        }
        const nowMs = this.clock.now();
        store.deliveries.markComment(
          delivery.id,
          outcome.ok ? 'sent' : 'failed',
          nowMs,
          outcome.ok ? null : outcome.reason,
        );
        if (outcome.ok) posted++;
        if (post) {
          this.tell(
            outcome.ok
              ? commentPosted(post, delivery.channelName)
              : commentFailed(post, delivery.channelName, outcome.reason),
          );
        }
      }
    }
  }

  /** Tells the post's brand; the engine goes on whatever the sink does. */
  private tell(event: PublishingEvent): void {
    if (!this.events) return;
    try {
      this.events(event);
    } catch (error) {
      this.log(`publishing event not delivered: ${(error as Error).stack ?? String(error)}`);
    }
  }
}
