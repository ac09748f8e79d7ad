/**
 * One pass of the publishing loop, over the store as it is now: jobs whose lease ended are taken over,
 * due posts start publishing (one delivery per channel, each with its send job), media of posts soon
 * due is prepared ahead, and due jobs of every kind run (`JobRunner`) until none is left.
 *
 * Exactly once: a job is claimed by one scheduler, its owner, for a lease the owner renews while it
 * works (`ClaimLease`), so no other loop, in this process or another on the same store, runs it. Every
 * later change names the owner: one whose claim was taken over changes nothing, settles nothing and
 * reports nothing. Only an expired lease is taken over (its owner stopped, or stalled longer than a
 * lease); a commit in that state may have gone out, so it is confirmed with the platform where the
 * connector can read it back, sent again where the platform deduplicates, and failed with a reason
 * otherwise rather than risk sending it twice.
 */
import type { ClaimedJob, Clock, JobRecord, PublishingEventSink, Store } from '../ports.js';
import { settlePost } from '../service/publishing.js';
import { AccountPacer } from './account-pacer.js';
import type { ClaimLease } from './claim-lease.js';
import { startDuePosts } from './due-posts.js';
import { runClosePoll, runComment } from './follow-up-jobs.js';
import { announce, type ConnectorRouter, type JobContext, postReader, tell } from './job-context.js';
import { type JobResult, JobRunner } from './job-runner.js';
import { KeepSignedIn } from './keep-signed-in.js';
import { PrepareAhead } from './prepare-ahead.js';
import { deliveryFailed, postSettled } from './publishing-events.js';
import { runSend } from './send-job.js';

export type { ConnectorRouter } from './job-context.js';

export interface TickSummary {
  started: number;
  sent: number;
  failed: number;
  comments: number;
  /** Brands with due posts left to another process that was starting them. */
  leftToOthers: number;
}

export interface PublishingPassOptions {
  store: Store;
  clock: Clock;
  connectors: ConnectorRouter;
  lease: ClaimLease;
  log: (message: string) => void;
  events: PublishingEventSink | undefined;
  batchSize: number;
  /** Jobs in flight at once (`SOCIAL_PUBLISHER_SENDS_IN_FLIGHT`). */
  concurrency: number;
  /** Told when due posts were started (their deliveries are pending now): other processes may send them. */
  onStarted?: () => void;
}

const IN_DOUBT_REASON =
  'The server stopped while sending this delivery, so whether it arrived is unknown; it was not sent again, to avoid a duplicate. Check the channel, then publish again if it is missing.';
const COMMENT_IN_DOUBT_REASON =
  'The server stopped while posting this comment, so whether it arrived is unknown; it was not posted again, to avoid a duplicate.';

export class PublishingPass {
  private readonly context: JobContext;
  private readonly runner: JobRunner;
  private readonly prepare: PrepareAhead;
  private readonly keepSignedIn: KeepSignedIn;
  private readonly counts = { sent: 0, comments: 0 };
  private starting: Promise<{ started: number; leftToOthers: number }> | undefined;

  constructor(private readonly options: PublishingPassOptions) {
    this.context = {
      ...options,
      pacer: new AccountPacer(options.store.jobs),
      postOf: postReader(options.store),
    };
    this.prepare = new PrepareAhead(this.context);
    this.keepSignedIn = new KeepSignedIn(this.context);
    this.runner = new JobRunner({
      store: options.store,
      clock: options.clock,
      lease: options.lease,
      inFlight: options.concurrency,
      log: options.log,
      run: (claimed, claimNext) => this.runJob(claimed, claimNext),
      afterClaim: async (claimed) => {
        await options.connectors.prefetch?.(claimed.map((c) => c.job.channelId));
      },
      beforeLook: async () => {
        await this.startDue();
        await this.prepare.plan();
      },
    });
  }

  /**
   * Ends the pass under way early (a server stopping): jobs running finish and are recorded, nothing
   * more is claimed, one claimed but not yet begun is handed back (waiting again, for any process to run
   * at once rather than after its lease), and what is left stays waiting.
   */
  halt(): void {
    this.runner.halt();
  }

  /** More may be due than when the pass began (a post planned here or elsewhere): free slots claim it. */
  moreWork(): void {
    this.runner.moreWork();
  }

  async run(): Promise<TickSummary> {
    this.counts.sent = 0;
    this.counts.comments = 0;
    this.runner.resume();
    await this.takeOverExpired();
    // Due jobs run while due posts start: a batch's deliveries go out as soon as its brands' starts
    // commit (`onStarted` wakes the runner), not once every brand of a burst has started. The runner
    // stays on until the starts are over, even when nothing was due as it began.
    const starting = this.startDue();
    const first = await this.runner.runDue(starting);
    const starts = await starting;
    await this.prepare.plan();
    // What started after the runner had found nothing left to run.
    const rest = await this.runner.runDue();
    // Last, so that a renewal never holds up a send: at most once in KEEP_SIGNED_IN_EVERY_MS.
    await this.keepSignedIn.look();
    return {
      ...starts,
      sent: this.counts.sent,
      failed: first.failed + rest.failed,
      comments: this.counts.comments,
    };
  }

  /** One start of due posts at a time: a look while the pass's own start runs joins it. */
  private startDue(): Promise<{ started: number; leftToOthers: number }> {
    this.starting ??= startDuePosts({
      store: this.options.store,
      nowMs: () => this.options.clock.now(),
      batchSize: this.options.batchSize,
      tell: this.options.events && ((event) => tell(this.context, event)),
      onStarted: () => {
        this.runner.moreWork();
        this.options.onStarted?.();
      },
    }).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async runJob(claimed: ClaimedJob, claimNext: boolean): Promise<JobResult> {
    const halted = () => this.runner.isHalted;
    switch (claimed.job.kind) {
      case 'send': {
        const result = await runSend(this.context, claimed, claimNext, halted);
        if (result.ok && !result.waiting) this.counts.sent++;
        return result;
      }
      case 'comment': {
        const result = await runComment(this.context, claimed, claimNext, halted);
        if (result.ok) this.counts.comments++;
        return result;
      }
      case 'close_poll':
        return runClosePoll(this.context, claimed, claimNext, halted);
      case 'prepare':
        return this.prepare.run(claimed, claimNext, halted);
      default:
        // A kind this version does not run (a newer version's): left for the lease to hand back.
        this.options.log(`job ${claimed.job.id} is of a kind this version does not run: ${claimed.job.kind}`);
        return { ok: false, waiting: true, next: undefined };
    }
  }

  /**
   * Jobs whose lease ended: their owner stopped (or stalled longer than a lease). Reads (a check, a
   * confirmation, a prepare, a poll to close) are run again; a commit or a comment whose outcome is
   * unknown is confirmed where the connector can read it back, sent again where the platform
   * deduplicates, and failed otherwise.
   */
  private async takeOverExpired(): Promise<void> {
    const { store, clock, lease, connectors } = this.options;
    const nowMs = clock.now();
    for (const job of await store.jobs.expired(nowMs, this.options.batchSize * 5)) {
      // Our own claim, late to be renewed: still ours, running right now.
      if (lease.holds(job.id)) continue;
      const sending = job.kind === 'send' && job.step === 'commit';
      if (job.kind === 'refresh') {
        // A refresh claim is a lock, not work: its process stopped mid-refresh; the next refresh takes it.
        await store.jobs.takeOver(job.id, nowMs, {
          status: 'failed',
          reason: 'The process refreshing the token stopped.',
        });
      } else if (!sending && job.kind !== 'comment') {
        await store.jobs.takeOver(job.id, nowMs, { status: 'waiting' });
      } else if (await connectors.idempotent(job.channelId)) {
        await store.jobs.takeOver(job.id, nowMs, { status: 'waiting' });
      } else if (sending && (await connectors.forChannel(job.channelId)).confirm) {
        await store.jobs.takeOver(job.id, nowMs, { status: 'waiting', step: 'confirm' });
      } else if (job.kind === 'comment') {
        await store.jobs.takeOver(job.id, nowMs, { status: 'failed', reason: COMMENT_IN_DOUBT_REASON });
      } else {
        await this.failInDoubt(job, nowMs);
      }
    }
  }

  private async failInDoubt(job: JobRecord, nowMs: number): Promise<void> {
    const { store } = this.options;
    const delivery = await store.deliveries.get(job.deliveryId!);
    if (!delivery) return;
    const stored = await store.posts.get(delivery.postId);
    const outcome = await store.transaction(async (tx) => {
      if (!(await tx.jobs.takeOver(job.id, nowMs, { status: 'failed', reason: IN_DOUBT_REASON })))
        return undefined;
      await tx.deliveries.markFailed(delivery.id, IN_DOUBT_REASON);
      return { settled: await settlePost(tx, delivery.postId, nowMs) };
    }, stored && { brandId: stored.brandId, postId: stored.id });
    if (!outcome) return;
    const post = stored ?? { id: delivery.postId, brandId: 0 };
    announce(this.context, post, [
      deliveryFailed(post, delivery, IN_DOUBT_REASON),
      ...(outcome.settled ? [postSettled(post, outcome.settled)] : []),
    ]);
  }
}
