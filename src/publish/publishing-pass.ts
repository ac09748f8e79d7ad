/**
 * One pass of the publishing loop, over the store as it is now: claims whose lease ended are taken over,
 * due posts start publishing (one delivery per channel), pending deliveries are claimed and sent, due
 * auto-comments are posted.
 *
 * Exactly once: a delivery is claimed (pending → sending) by one scheduler, its owner, for a lease the
 * owner renews while it works (`ClaimLease`), so no other loop, in this process or another on the same
 * store, sends it. Every later change names the owner: one whose claim was taken over changes nothing,
 * settles nothing and reports nothing. Only an expired lease is taken over (its owner stopped, or stalled
 * longer than a lease); the outcome of that send is unknown, so an idempotent publisher (the sandbox)
 * sends it again and any other fails it with a reason rather than risk sending it twice. Comments are
 * claimed the same way.
 */
import { TIMESTAMP_END_MS } from '../domain/timestamps.js';
import type {
  Clock,
  DeliveryRecord,
  PostRecord,
  PostStatus,
  Publisher,
  PublishingEvent,
  PublishingEventSink,
  PublishOutcome,
  StepOutcome,
  Store,
} from '../ports.js';
import { settlePost } from '../service/publishing.js';
import type { ClaimLease } from './claim-lease.js';
import { startDuePosts } from './due-posts.js';
import { FollowUps } from './follow-ups.js';
import { deliveryFailed, postSettled, sendRecorded } from './publishing-events.js';
import { decideAfterFailure, type FailureDecision, recordChannelFailure } from './retry-policy.js';

export interface TickSummary {
  started: number;
  sent: number;
  failed: number;
  comments: number;
  /** Brands with due posts left to another process that was starting them. */
  leftToOthers: number;
}

/** Which connector sends to a channel: its connection's, or the default publisher. */
export interface ConnectorRouter {
  forChannel(channelId: number): Promise<Publisher>;
  /** Whether the channel's connector deduplicates (`Publisher.idempotent`), known without opening it. */
  idempotent(channelId: number): Promise<boolean>;
}

export interface PublishingPassOptions {
  store: Store;
  clock: Clock;
  connectors: ConnectorRouter;
  lease: ClaimLease;
  log: (message: string) => void;
  events: PublishingEventSink | undefined;
  batchSize: number;
  concurrency: number;
  /** Told when due posts were started (their deliveries are pending now): other processes may send them. */
  onStarted?: () => void;
}

/** What `sendOne` answers for a delivery it handed back instead of sending (the pass was halted). */
const HANDED_BACK = Symbol('handed back');

const IN_DOUBT_REASON =
  'The server stopped while sending this delivery, so whether it arrived is unknown; it was not sent again, to avoid a duplicate. Check the channel, then publish again if it is missing.';
const COMMENT_IN_DOUBT_REASON =
  'The server stopped while posting this comment, so whether it arrived is unknown; it was not posted again, to avoid a duplicate.';

export class PublishingPass {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly connectors: ConnectorRouter;
  private readonly lease: ClaimLease;
  private readonly log: (message: string) => void;
  private readonly events: PublishingEventSink | undefined;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly followUps: FollowUps;
  private readonly onStarted: (() => void) | undefined;
  /** Set by `halt()`: the pass under way finishes what it is sending and claims nothing more. */
  private halted = false;
  /** While deliveries are being sent: claims pending deliveries for the free workers. */
  private startWorker: (() => void) | undefined;

  constructor(options: PublishingPassOptions) {
    this.store = options.store;
    this.clock = options.clock;
    this.connectors = options.connectors;
    this.lease = options.lease;
    this.log = options.log;
    this.events = options.events;
    this.batchSize = options.batchSize;
    this.concurrency = options.concurrency;
    this.onStarted = options.onStarted;
    this.followUps = new FollowUps({
      ...options,
      crashed: (...args) => this.crashed(...args),
      tell: (event) => this.tell(event),
    });
  }

  /**
   * Ends the pass under way early (a server stopping): deliveries and comments being sent finish and are
   * recorded, nothing more is claimed, one claimed but not yet begun is handed back (pending again, for
   * any process to send at once rather than after its lease), and what is left stays pending.
   */
  halt(): void {
    this.halted = true;
  }

  /**
   * More may be pending than when the pass began (a post planned here or in another process): while it
   * sends, the free workers (up to `concurrency`) claim what is pending. Workers that found nothing have
   * ended; without this, the pass would go on with fewer.
   */
  moreWork(): void {
    this.startWorker?.();
  }

  async run(): Promise<TickSummary> {
    this.halted = false;
    const summary: TickSummary = { started: 0, sent: 0, failed: 0, comments: 0, leftToOthers: 0 };
    await this.takeOverExpired();
    const starts = await startDuePosts({
      store: this.store,
      nowMs: () => this.clock.now(),
      batchSize: this.batchSize,
      tell: this.events && ((event) => this.tell(event)),
      onStarted: this.onStarted,
    });
    summary.started = starts.started;
    summary.leftToOthers = starts.leftToOthers;
    const outcomes = await this.sendPending();
    summary.sent = outcomes.sent;
    summary.failed = outcomes.failed;
    summary.comments = await this.followUps.sendDueComments(() => this.halted);
    await this.followUps.closeDuePolls(() => this.halted);
    return summary;
  }

  /**
   * Claims whose lease ended: their owner stopped (or stalled longer than a lease), so whether they went
   * out is unknown. An idempotent publisher gets them again (back to pending); any other fails them.
   */
  private async takeOverExpired(): Promise<void> {
    const { store } = this;
    const nowMs = this.clock.now();
    for (const delivery of await store.deliveries.expiredClaims(nowMs, this.batchSize * 5)) {
      // Our own claim, late to be renewed: still ours, being sent right now.
      if (this.lease.holds(delivery.id)) continue;
      if (await this.connectors.idempotent(delivery.channelId)) {
        await store.deliveries.releaseExpired(delivery.id, nowMs);
        continue;
      }
      const stored = await store.posts.get(delivery.postId);
      const outcome = await store.transaction(async (tx) => {
        if (!(await tx.deliveries.failExpired(delivery.id, IN_DOUBT_REASON, nowMs))) return undefined;
        return { settled: await settlePost(tx, delivery.postId, nowMs) };
      }, stored && { brandId: stored.brandId, postId: stored.id });
      if (!outcome) continue;
      const post = stored ?? { id: delivery.postId, brandId: 0 };
      this.announce(post, [
        deliveryFailed(post, delivery, IN_DOUBT_REASON),
        ...(outcome.settled ? [postSettled(post, outcome.settled)] : []),
      ]);
    }
    for (const delivery of await store.deliveries.expiredCommentClaims(nowMs, this.batchSize * 5)) {
      if (this.lease.holds(delivery.id)) continue;
      if (await this.connectors.idempotent(delivery.channelId))
        await store.deliveries.releaseExpiredComment(delivery.id, nowMs);
      else await store.deliveries.failExpiredComment(delivery.id, COMMENT_IN_DOUBT_REASON, nowMs);
    }
  }

  /**
   * Sends pending deliveries, up to `concurrency` at a time: free workers are filled by one claim (a
   * burst is in flight after one transaction), each delivery claimed only as it is about to be sent, so
   * a process that dies leaves in doubt only what it was sending; a worker claims its next delivery in
   * the transaction that records the one it sent.
   */
  private async sendPending(): Promise<{ sent: number; failed: number }> {
    let sent = 0;
    let failed = 0;
    /** What the pass waits for (and fails with): the workers and a claim under way. */
    const running = new Set<Promise<void>>();
    const track = (work: Promise<void>): void => {
      running.add(work);
      const forget = () => running.delete(work);
      work.then(forget, forget);
    };
    let [workers, claiming, claimAgain] = [0, false, false];
    const fill = (): void => {
      claimAgain ||= claiming;
      if (claiming || this.halted || workers >= this.concurrency) return;
      claiming = true;
      track(
        (async () => {
          try {
            const claimed = await this.store.deliveries.claimPending(
              this.concurrency - workers,
              this.lease.claim(),
              this.clock.now(),
            );
            this.lease.hold(claimed.map((delivery) => delivery.id));
            for (const delivery of claimed) {
              workers++;
              track(worker(delivery).finally(() => workers--));
            }
          } finally {
            claiming = false;
            if (claimAgain) {
              claimAgain = false;
              fill();
            }
          }
        })(),
      );
    };
    const worker = async (first: DeliveryRecord) => {
      let delivery: DeliveryRecord | undefined = first;
      while (delivery) {
        const claimed: DeliveryRecord = delivery;
        this.lease.hold([claimed.id]);
        try {
          const result = await this.sendOne(claimed, await this.store.posts.get(claimed.postId));
          if (result === HANDED_BACK) return;
          if (result.ok) sent++;
          else failed++;
          delivery = result.next;
        } catch (error) {
          // The store failed us (full, busy, closing). The claim is left to expire: once its lease is
          // over, whoever runs next settles it as the publisher's idempotency allows.
          this.lease.release(claimed.id);
          this.log(
            `delivery ${claimed.id} could not be recorded: ${(error as Error).stack ?? String(error)}`,
          );
          failed++;
          return;
        }
      }
    };
    fill();
    this.startWorker = fill;
    try {
      while (running.size > 0) await Promise.all([...running]);
    } finally {
      this.startWorker = undefined;
    }
    return { sent, failed };
  }

  /**
   * Sends one claimed delivery through its channel's connector and records the outcome: sent, failed, or
   * back to pending for a retry (`retry-policy.ts`); bad credentials also turn the channel INACTIVE. The
   * same transaction claims the worker's next delivery (one commit per delivery instead of two).
   */
  private async sendOne(
    delivery: DeliveryRecord,
    post: PostRecord | undefined,
  ): Promise<{ ok: boolean; next: DeliveryRecord | undefined } | typeof HANDED_BACK> {
    const { store } = this;
    let outcome: PublishOutcome | undefined;
    let publisher: Publisher | undefined;
    if (!post || !delivery.content) {
      outcome = { ok: false, reason: 'The post of this delivery no longer exists.' };
    } else {
      try {
        publisher = await this.connectors.forChannel(delivery.channelId);
        const job = {
          deliveryId: delivery.id,
          postId: post.id,
          brandId: post.brandId,
          channel: { id: delivery.channelId, name: delivery.channelName, type: delivery.channelType },
          content: delivery.content,
          idempotencyKey: `${await store.connections.storeId()}-${delivery.id}`,
          dueAtMs: post.dueAtMs ?? post.createdAtMs,
          attempt: delivery.attempts,
          state: {},
        };
        // Halted since the claim (taken with the previous delivery's outcome): nothing was sent yet.
        if (!this.halted) outcome = settledOutcome(await publisher.deliver(job));
      } catch (error) {
        outcome = this.crashed(publisher, delivery, error);
      }
      if (!outcome) {
        await this.handBack(delivery);
        return HANDED_BACK;
      }
    }
    const nowMs = this.clock.now();
    const decision = outcome.ok
      ? undefined
      : decideAfterFailure(outcome, delivery.attempts, publisher?.idempotent ?? false, nowMs);
    const { owner } = this.lease;
    let marked: { mine: boolean; settled: PostStatus | undefined; next: DeliveryRecord | undefined };
    try {
      marked = await store.transaction(async (tx) => {
        const comment = post?.payload.comment;
        const mine = outcome.ok
          ? await tx.deliveries.markSent(
              delivery.id,
              owner,
              {
                externalId: outcome.externalId,
                url: outcome.url ?? null,
                // Bounded for a post stored before the delay had a limit (post-schemas.ts).
                commentDueAtMs: comment ? Math.min(nowMs + comment.delay * 1000, TIMESTAMP_END_MS - 1) : null,
                pollCloseAtMs: outcome.closePollAtMs ?? null,
              },
              nowMs,
            )
          : await this.markFailure(tx, delivery, owner, decision!);
        // The delivery's row, the next one's, the post's, then the channel's: the rows that other
        // transactions also change are locked as late as can be, in one order for all.
        const [next] = this.halted ? [] : await tx.deliveries.claimPending(1, this.lease.claim(), nowMs);
        if (!mine) return { mine, settled: undefined, next };
        const settled = await settlePost(tx, delivery.postId, nowMs);
        if (outcome.ok) await tx.connections.recordPublished(delivery.channelId, nowMs);
        else await recordChannelFailure(tx, delivery.channelId, decision!, nowMs);
        return { mine, settled, next };
      }, post && { brandId: post.brandId, postId: post.id });
    } finally {
      this.lease.release(delivery.id);
    }
    const { next } = marked;
    if (!marked.mine) {
      // Our lease ended before we were done (a stall longer than a lease) and another process took the
      // delivery over: its outcome is that process's to record and announce.
      this.log(
        `delivery ${delivery.id} was taken over by another process after its lease ended; this process's outcome (${outcome.ok ? 'sent' : outcome.reason}) was not recorded.`,
      );
      return { ok: outcome.ok, next };
    }
    const about = post ?? { id: delivery.postId, brandId: 0 };
    this.announce(about, sendRecorded(about, delivery, decision, marked.settled));
    return { ok: outcome.ok, next };
  }

  /**
   * A delivery claimed but not begun, in a halted pass: back to pending, so that another process sends it
   * now instead of once the lease has run out. If the store cannot be told, the lease runs out as usual.
   */
  private async handBack(delivery: DeliveryRecord): Promise<void> {
    try {
      if (await this.store.deliveries.handBack(delivery.id, this.lease.owner)) {
        this.log(`stopping: delivery ${delivery.id} handed back unsent, for another process to send now`);
      }
    } finally {
      this.lease.release(delivery.id);
    }
  }

  /** Records a failed send as the decision says, in the transaction `tx`; false when the claim is no longer ours. */
  private markFailure(
    tx: Store,
    delivery: DeliveryRecord,
    owner: string,
    decision: FailureDecision,
  ): Promise<boolean> {
    return decision.action === 'retry'
      ? tx.deliveries.markRetry(delivery.id, owner, decision.reason, decision.atMs)
      : tx.deliveries.markFailed(delivery.id, owner, decision.reason);
  }

  /**
   * A connector that threw instead of answering (connectors classify every platform answer, so this is
   * a bug, which sending again would not fix): the send fails with the error's message.
   */
  crashed(publisher: Publisher | undefined, delivery: DeliveryRecord, error: unknown): PublishOutcome {
    const name = publisher?.name ?? 'channel';
    this.log(`publisher ${name} failed on delivery ${delivery.id}: ${(error as Error).stack}`);
    return { ok: false, reason: `The ${name} publisher failed: ${(error as Error).message}` };
  }

  /**
   * A delivery's end and its post's: in the operator's log, and told to the post's brand (a post that
   * no longer exists, brand 0, has no brand left to tell).
   */
  private announce(post: { brandId: number }, events: readonly PublishingEvent[]): void {
    for (const event of events) {
      this.log(event.message);
      if (post.brandId !== 0) this.tell(event);
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

/** Until the job engine carries pending steps: a pending answer is a failure of its own kind. */
function settledOutcome(outcome: StepOutcome): PublishOutcome {
  return outcome.ok === 'pending' ? { ok: false, kind: 'transient', reason: outcome.reason } : outcome;
}
