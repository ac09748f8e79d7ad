/**
 * What every kind of job runs with, and the one way a job's outcome is recorded: in a transaction that
 * changes the job only if the claim is still this owner's, then whatever the kind changes with it
 * (the delivery, the post, the channel, follow-up jobs), and claims the slot's next job. What to tell
 * the post's brand is told once the transaction has committed, and only by the owner.
 */
import type {
  ClaimedJob,
  Clock,
  PostRecord,
  Publisher,
  PublishingEvent,
  PublishingEventSink,
  PublishOutcome,
  Store,
} from '../ports.js';
import type { AccountPacer } from './account-pacer.js';
import type { ClaimLease } from './claim-lease.js';
import type { JobResult } from './job-runner.js';

/** Which connector sends to a channel: its connection's, or the default publisher. */
export interface ConnectorRouter {
  forChannel(channelId: number): Promise<Publisher>;
  /** Whether the channel's connector deduplicates (`Publisher.idempotent`), known without opening it. */
  idempotent(channelId: number): Promise<boolean>;
  /** Reads the connections of a batch of channels at once, for the jobs just claimed. Optional. */
  prefetch?(channelIds: readonly number[]): Promise<void>;
  /** Refreshes the channel's OAuth token now if it would be stale at `untilMs` (ChannelConnectors). */
  freshen?(channelId: number, untilMs: number): Promise<boolean>;
}

export interface JobContext {
  store: Store;
  clock: Clock;
  connectors: ConnectorRouter;
  lease: ClaimLease;
  pacer: AccountPacer;
  log: (message: string) => void;
  events: PublishingEventSink | undefined;
  /**
   * The post of a delivery, read once for all its deliveries (eleven jobs of one post in a burst): what
   * a job reads of it (its payload, brand, due time) no longer changes once it is publishing.
   */
  postOf(postId: number): Promise<PostRecord | undefined>;
}

/** `postOf` over the store: each post read once, while at most `limit` are kept. */
export function postReader(store: Store, limit = 5_000): (postId: number) => Promise<PostRecord | undefined> {
  const read = new Map<number, Promise<PostRecord | undefined>>();
  return (postId) => {
    let post = read.get(postId);
    if (!post) {
      if (read.size >= limit) read.clear();
      post = store.posts.get(postId);
      read.set(postId, post);
      post.catch(() => read.delete(postId));
    }
    return post;
  };
}

/** What a job's record step did: whether the claim was still ours, and what to tell. */
export interface Recorded {
  mine: boolean;
  ok: boolean;
  /** The job waits again (a pending step, a rate limit). */
  waiting?: boolean;
  events: PublishingEvent[];
  /** The events are for the brand only, not the operator's log (an auto-comment's). */
  brandOnly?: boolean;
  /** The outcome, for the log line of a claim that was lost. */
  outcome: string;
}

/**
 * Records a job's outcome with `change` (which returns `mine: false`, changing nothing else, when the
 * job's own change found the claim gone), claims the slot's next job in the same transaction, then
 * tells the events. The post's brand is the transaction's target, so that a post's deliveries and its
 * settling are serialised with the brand's other changes.
 */
export async function recordJob(
  context: JobContext,
  claimed: ClaimedJob,
  post: PostRecord | undefined,
  claimNext: boolean,
  change: (tx: Store, nowMs: number) => Promise<Recorded>,
): Promise<JobResult> {
  const { store, lease } = context;
  const { job } = claimed;
  let recorded: Recorded;
  let next: ClaimedJob | undefined;
  try {
    [recorded, next] = await store.transaction(async (tx) => {
      const nowMs = context.clock.now();
      const result = await change(tx, nowMs);
      // The job's row, the next one's, then the post's and the channel's (locked by `change` after its
      // own): the rows other transactions also change are locked as late as can be.
      const [claimedNext] = claimNext ? await tx.jobs.claim(1, lease.claim(), nowMs) : [];
      return [result, claimedNext] as const;
    }, post && { brandId: post.brandId, postId: post.id });
  } finally {
    lease.release(job.id);
  }
  if (!recorded.mine) {
    // Our lease ended before we were done (a stall longer than a lease) and another process took the job
    // over: its outcome is that process's to record and announce.
    context.log(
      `${job.kind === 'send' ? `delivery ${job.deliveryId}` : `job ${job.id} (${job.kind})`} was taken over by another process after its lease ended; this process's outcome (${recorded.outcome}) was not recorded.`,
    );
    return { ok: recorded.ok, waiting: recorded.waiting, next };
  }
  if (recorded.brandOnly) for (const event of recorded.events) tell(context, event);
  else announce(context, post, recorded.events);
  return { ok: recorded.ok, waiting: recorded.waiting, next };
}

/** A job claimed but not begun, in a halted run: waiting again, for another process to run now. */
export async function handBack(context: JobContext, claimed: ClaimedJob): Promise<JobResult> {
  const { job, delivery } = claimed;
  try {
    const handedBack = await context.store.transaction(async (tx) => {
      if (!(await tx.jobs.handBack(job.id, context.lease.owner))) return false;
      // A send not begun is pending again, as it was.
      if (job.kind === 'send' && job.step === 'commit' && delivery) {
        await tx.deliveries.markWaiting(delivery.id, 'pending', delivery.reason);
      }
      return true;
    });
    if (handedBack) {
      context.log(
        job.kind === 'send' && delivery
          ? `stopping: delivery ${delivery.id} handed back unsent, for another process to send now`
          : `stopping: job ${job.id} (${job.kind}) handed back unrun, for another process to run now`,
      );
    }
  } finally {
    context.lease.release(claimed.job.id);
  }
  return { handedBack: true, ok: false, next: undefined };
}

/**
 * A connector that threw instead of answering (connectors classify every platform answer, so this is a
 * bug, which sending again would not fix): the job fails with the error's message.
 */
export function crashed(
  context: JobContext,
  publisher: Publisher | undefined,
  jobId: number,
  error: unknown,
): PublishOutcome {
  const name = publisher?.name ?? 'channel';
  context.log(`publisher ${name} failed on job ${jobId}: ${(error as Error).stack}`);
  return { ok: false, reason: `The ${name} publisher failed: ${(error as Error).message}` };
}

/**
 * Events in the operator's log, and told to the post's brand (a post that no longer exists, brand 0,
 * has no brand left to tell). The engine goes on whatever the sink does.
 */
export function announce(
  context: JobContext,
  post: { brandId: number } | undefined,
  events: readonly PublishingEvent[],
): void {
  for (const event of events) {
    context.log(event.message);
    if (!post || post.brandId === 0) continue;
    tell(context, event);
  }
}

export function tell(context: JobContext, event: PublishingEvent): void {
  if (!context.events) return;
  try {
    context.events(event);
  } catch (error) {
    context.log(`publishing event not delivered: ${(error as Error).stack ?? String(error)}`);
  }
}
