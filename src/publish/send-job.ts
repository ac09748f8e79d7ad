/**
 * A send job: one delivery through its channel's connector, in steps. `commit` publishes; a platform
 * that needs time answers `pending` and the job waits, holding no slot, until `check` (any process may
 * run it: the state is in the store); a commit whose outcome is unknown is `confirm`ed by reading the
 * platform's state where the connector can (never resent blind to a platform without idempotency),
 * resent with its key where the platform deduplicates, and failed with the reason otherwise.
 */
import { TIMESTAMP_END_MS } from '../domain/timestamps.js';
import type {
  CheckOutcome,
  ClaimedJob,
  ConfirmOutcome,
  DeliveryJob,
  DeliveryRecord,
  JobRecord,
  NewJob,
  PostRecord,
  Publisher,
  Store,
} from '../ports.js';
import { settlePost } from '../service/publishing.js';
import { crashed, handBack, type JobContext, type Recorded, recordJob } from './job-context.js';
import type { JobResult } from './job-runner.js';
import { sendRecorded } from './publishing-events.js';
import { decideAfterFailure, type FailureDecision, recordChannelFailure } from './retry-policy.js';

/** How soon a commit whose outcome is unknown is read back from the platform. */
const CONFIRM_AFTER_MS = 5_000;

export async function runSend(
  context: JobContext,
  claimed: ClaimedJob,
  claimNext: boolean,
  halted: () => boolean,
): Promise<JobResult> {
  const { store, connectors, clock, pacer } = context;
  const { job, delivery } = claimed;
  const post = delivery && (await context.postOf(delivery.postId));
  let publisher: Publisher | undefined;
  let outcome: CheckOutcome | ConfirmOutcome;
  if (!post || !delivery?.content) {
    outcome = { ok: false, reason: 'The post of this delivery no longer exists.' };
  } else {
    try {
      publisher = await connectors.forChannel(job.channelId);
      const blockedUntil = await pacer.blockedUntil(job.channelId, clock.now());
      if (blockedUntil !== undefined)
        return await waitForLimit(context, claimed, post, claimNext, blockedUntil);
      const step: DeliveryJob = {
        deliveryId: delivery.id,
        postId: post.id,
        brandId: post.brandId,
        channel: { id: delivery.channelId, name: delivery.channelName, type: delivery.channelType },
        content: delivery.content,
        idempotencyKey: `${await store.connections.storeId()}-${delivery.id}`,
        dueAtMs: post.dueAtMs ?? post.createdAtMs,
        attempt: job.attempts,
        state: job.state,
      };
      // Halted since the claim (taken with the previous job's outcome): nothing was sent yet.
      if (halted()) return await handBack(context, claimed);
      pacer.spend(job.channelId);
      outcome = await runStep(publisher, job, step);
    } catch (error) {
      outcome = crashed(context, publisher, job.id, error);
    }
  }
  const idempotent = publisher?.idempotent ?? false;
  const canConfirm = publisher?.confirm !== undefined;
  return recordJob(context, claimed, post, claimNext, async (tx, nowMs) => {
    const recorded = await recordStep(context, tx, nowMs, {
      job,
      delivery,
      post,
      outcome,
      idempotent,
      canConfirm,
    });
    if (recorded.mine) await learnLimit(context, tx, job.channelId, outcome, nowMs);
    return recorded;
  });
}

function runStep(
  publisher: Publisher,
  job: JobRecord,
  step: DeliveryJob,
): Promise<CheckOutcome | ConfirmOutcome> {
  switch (job.step) {
    case 'check':
      return publisher.check
        ? publisher.check(step)
        : Promise.resolve({
            ok: false,
            reason: `The ${publisher.name} connector cannot check a pending step.`,
          });
    case 'confirm':
      return publisher.confirm
        ? publisher.confirm(step)
        : Promise.resolve({
            ok: false,
            kind: 'unknown',
            reason: 'Whether the post was published is unknown.',
          });
    default:
      return publisher.deliver(step);
  }
}

interface StepRecord {
  job: JobRecord;
  delivery: DeliveryRecord | undefined;
  post: PostRecord | undefined;
  outcome: CheckOutcome | ConfirmOutcome;
  idempotent: boolean;
  canConfirm: boolean;
}

async function recordStep(
  context: JobContext,
  tx: Store,
  nowMs: number,
  step: StepRecord,
): Promise<Recorded> {
  const { job, post, outcome } = step;
  const { owner } = context.lease;
  const { deliveryId, about, channel } = subjectOf(step);
  if (outcome.ok === 'prepared') {
    // What the commit needs is ready now (a video the platform finished processing): commit it now.
    const reason = 'Ready to publish.';
    const dueAtMs = nowMs;
    const mine = await tx.jobs.reschedule(job.id, owner, {
      dueAtMs,
      reason,
      step: 'commit',
      state: outcome.state,
      countAttempt: false,
    });
    return { mine, ok: true, waiting: true, events: [], outcome: reason };
  }
  if (outcome.ok === 'absent') {
    // Read back after an unknown outcome: it is not there, so sending it again cannot make a duplicate.
    const reason = 'The platform does not have the post whose answer was lost: sending it again.';
    const mine = await tx.jobs.reschedule(job.id, owner, {
      dueAtMs: nowMs,
      reason,
      step: 'commit',
      countAttempt: false,
    });
    if (mine) await tx.deliveries.markWaiting(deliveryId, 'pending', reason);
    return { mine, ok: false, waiting: true, events: [], outcome: 'absent' };
  }
  if (outcome.ok === 'pending') {
    if (outcome.deadlineAtMs === undefined || nowMs <= outcome.deadlineAtMs) {
      const mine = await tx.jobs.reschedule(job.id, owner, {
        dueAtMs: Math.max(nowMs, outcome.checkAtMs),
        reason: outcome.reason,
        step: job.step === 'commit' || job.step === 'confirm' ? 'check' : job.step,
        state: outcome.state,
        countAttempt: false,
      });
      if (mine) await tx.deliveries.markWaiting(deliveryId, 'sending', outcome.reason);
      return { mine, ok: true, waiting: true, events: [], outcome: `pending: ${outcome.reason}` };
    }
    return recordFailure(tx, nowMs, step, { action: 'fail', reason: outcome.reason, reconnect: false });
  }
  if (outcome.ok === true) {
    const mine = await tx.jobs.finish(job.id, owner, { status: 'done', reason: null }, nowMs);
    if (!mine) return { mine, ok: true, events: [], outcome: 'sent' };
    await tx.deliveries.markSent(
      deliveryId,
      { externalId: outcome.externalId, url: outcome.url ?? null },
      nowMs,
    );
    await tx.jobs.add(followUps(job, post, outcome.closePollAtMs ?? null, nowMs));
    const settled = await settlePost(tx, about.id, nowMs);
    await tx.connections.recordPublished(job.channelId, nowMs);
    return { mine, ok: true, events: sendRecorded(about, channel, undefined, settled), outcome: 'sent' };
  }
  if (outcome.kind === 'unknown' && !step.idempotent && step.canConfirm && job.step === 'commit') {
    const reason = `${outcome.reason.trim()} Reading the platform to see whether it was published.`;
    const mine = await tx.jobs.reschedule(job.id, owner, {
      dueAtMs: nowMs + CONFIRM_AFTER_MS,
      reason,
      step: 'confirm',
    });
    if (mine) await tx.deliveries.markWaiting(deliveryId, 'sending', reason);
    return { mine, ok: false, waiting: true, events: [], outcome: reason };
  }
  // A check or a confirmation only reads: it may be repeated whatever the platform deduplicates.
  const repeatable = step.idempotent || job.step !== 'commit';
  return recordFailure(tx, nowMs, step, decideAfterFailure(outcome, job.attempts, repeatable, nowMs));
}

/** The delivery a step records, and its post and channel as events name them. */
function subjectOf({ job, delivery, post }: StepRecord) {
  const deliveryId = job.deliveryId!;
  const about = post ?? { id: delivery?.postId ?? 0, brandId: 0 };
  const channel = { id: deliveryId, channelName: delivery?.channelName ?? `channel ${job.channelId}` };
  return { deliveryId, about, channel };
}

async function recordFailure(
  tx: Store,
  nowMs: number,
  step: StepRecord,
  decision: FailureDecision,
): Promise<Recorded> {
  const { job } = step;
  const owner = job.owner!;
  const { deliveryId, about, channel } = subjectOf(step);
  if (decision.action === 'retry') {
    const mine = await tx.jobs.reschedule(job.id, owner, { dueAtMs: decision.atMs, reason: decision.reason });
    if (!mine) return { mine, ok: false, events: [], outcome: decision.reason };
    await tx.deliveries.markWaiting(
      deliveryId,
      job.step === 'commit' ? 'pending' : 'sending',
      decision.reason,
    );
    await recordChannelFailure(tx, job.channelId, decision, nowMs);
    return {
      mine,
      ok: false,
      events: sendRecorded(about, channel, decision, undefined),
      outcome: decision.reason,
    };
  }
  const mine = await tx.jobs.finish(job.id, owner, { status: 'failed', reason: decision.reason }, nowMs);
  if (!mine) return { mine, ok: false, events: [], outcome: decision.reason };
  await tx.deliveries.markFailed(deliveryId, decision.reason);
  const settled = await settlePost(tx, about.id, nowMs);
  await recordChannelFailure(tx, job.channelId, decision, nowMs);
  return {
    mine,
    ok: false,
    events: sendRecorded(about, channel, decision, settled),
    outcome: decision.reason,
  };
}

/** The jobs a sent delivery leaves: its auto-comment, and closing its poll (Telegram). */
function followUps(
  job: JobRecord,
  post: PostRecord | undefined,
  closePollAtMs: number | null,
  nowMs: number,
): NewJob[] {
  const jobs: NewJob[] = [];
  const comment = post?.payload.comment;
  const subject = { deliveryId: job.deliveryId, channelId: job.channelId };
  // Bounded for a post stored before the delay had a limit (post-schemas.ts).
  if (comment)
    jobs.push({
      kind: 'comment',
      ...subject,
      dueAtMs: Math.min(nowMs + comment.delay * 1000, TIMESTAMP_END_MS - 1),
    });
  if (closePollAtMs !== null) jobs.push({ kind: 'close_poll', ...subject, dueAtMs: closePollAtMs });
  return jobs;
}

/**
 * What the answer said of the account's rate limit: a 429's wait, or limit headers with nothing left.
 * The account's other waiting jobs wait until its reset, in every process (the store's due times).
 */
async function learnLimit(
  context: JobContext,
  tx: Store,
  channelId: number,
  outcome: CheckOutcome | ConfirmOutcome,
  nowMs: number,
): Promise<void> {
  const limit =
    outcome.ok === false && outcome.kind === 'rate_limited'
      ? { remaining: 0, resetAtMs: nowMs + Math.max(1000, outcome.retryAfterMs ?? 60_000) }
      : 'limit' in outcome
        ? outcome.limit
        : undefined;
  const resetAtMs = context.pacer.learn(channelId, limit, nowMs);
  if (resetAtMs === undefined) return;
  await tx.jobs.limitAccount(channelId, resetAtMs);
  await tx.jobs.postponeChannel(channelId, resetAtMs);
}

/** The account has no request left until its reset: the job waits for it, its attempt not counted. */
function waitForLimit(
  context: JobContext,
  claimed: ClaimedJob,
  post: PostRecord,
  claimNext: boolean,
  untilMs: number,
): Promise<JobResult> {
  const { job } = claimed;
  const reason = `Waiting for the account's rate limit, which resets at ${new Date(untilMs).toISOString()}.`;
  return recordJob(context, claimed, post, claimNext, async (tx) => {
    const mine = await tx.jobs.reschedule(job.id, context.lease.owner, {
      dueAtMs: untilMs,
      reason,
      countAttempt: false,
    });
    if (mine && job.step === 'commit') await tx.deliveries.markWaiting(job.deliveryId!, 'pending', reason);
    return { mine, ok: false, waiting: true, events: [], outcome: reason };
  });
}
