/**
 * The jobs that follow a sent delivery: its auto-comment when due (retried by failure kind, with
 * attempts of its own), and closing its poll when the poll's period ends on a platform that cannot close
 * it by itself (Telegram). Both run in the same slots, claimed the same way, as sends.
 */
import type { ClaimedJob, Publisher, PublishOutcome } from '../ports.js';
import { crashed, handBack, type JobContext, recordJob } from './job-context.js';
import type { JobResult } from './job-runner.js';
import { channelNeedsReconnect, commentFailed, commentPosted, sendRetrying } from './publishing-events.js';
import { decideAfterFailure, RETRY_POLICY, recordChannelFailure } from './retry-policy.js';

export async function runComment(
  context: JobContext,
  claimed: ClaimedJob,
  claimNext: boolean,
  halted: () => boolean,
): Promise<JobResult> {
  const { store, connectors } = context;
  const { job, delivery } = claimed;
  const post = delivery && (await context.postOf(delivery.postId));
  const text = post?.payload.comment?.comment;
  let outcome: PublishOutcome;
  let publisher: Publisher | undefined;
  if (!post || !delivery || !text) {
    outcome = { ok: false, reason: 'The post no longer has a comment.' };
  } else {
    try {
      publisher = await connectors.forChannel(job.channelId);
      const idempotencyKey = `${await store.connections.storeId()}-${delivery.id}-comment`;
      if (halted()) return await handBack(context, claimed);
      outcome = await publisher.comment({
        deliveryId: delivery.id,
        postId: delivery.postId,
        brandId: post.brandId,
        channel: { id: delivery.channelId, name: delivery.channelName, type: delivery.channelType },
        externalId: delivery.externalId,
        comment: text,
        idempotencyKey,
      });
    } catch (error) {
      outcome = crashed(context, publisher, job.id, error);
    }
  }
  const channelName = delivery?.channelName ?? `channel ${job.channelId}`;
  return recordJob(context, claimed, post, claimNext, async (tx, nowMs) => {
    const { owner } = context.lease;
    if (outcome.ok) {
      const mine = await tx.jobs.finish(job.id, owner, { status: 'done', reason: null }, nowMs);
      const events = post ? [commentPosted(post, channelName)] : [];
      return { mine, ok: true, events, brandOnly: true, outcome: 'posted' };
    }
    // The comment's own attempts, not its delivery's.
    const decision = decideAfterFailure(outcome, job.attempts, publisher?.idempotent ?? false, nowMs);
    const mine =
      decision.action === 'retry'
        ? await tx.jobs.reschedule(job.id, owner, { dueAtMs: decision.atMs, reason: decision.reason })
        : await tx.jobs.finish(job.id, owner, { status: 'failed', reason: decision.reason }, nowMs);
    if (!mine) return { mine, ok: false, events: [], outcome: decision.reason };
    await recordChannelFailure(tx, job.channelId, decision, nowMs);
    const events = !post
      ? []
      : decision.action === 'retry'
        ? [sendRetrying(post, `auto-comment on ${channelName}`, decision.reason)]
        : [
            commentFailed(post, channelName, decision.reason),
            ...(decision.reconnect ? [channelNeedsReconnect(post, channelName, decision.reason)] : []),
          ];
    return { mine, ok: false, events, brandOnly: true, outcome: decision.reason };
  });
}

/**
 * Closes a poll when its period ends. Closing a closed poll is harmless, so a closing in doubt is simply
 * done again; one the platform keeps refusing is noted on the delivery.
 */
export async function runClosePoll(
  context: JobContext,
  claimed: ClaimedJob,
  claimNext: boolean,
  halted: () => boolean,
): Promise<JobResult> {
  const { connectors } = context;
  const { job, delivery } = claimed;
  let outcome: PublishOutcome;
  try {
    const publisher = await connectors.forChannel(job.channelId);
    if (halted()) return await handBack(context, claimed);
    outcome =
      publisher.closePoll && delivery
        ? await publisher.closePoll({
            deliveryId: delivery.id,
            postId: delivery.postId,
            brandId: (await context.postOf(delivery.postId))?.brandId ?? 0,
            channel: { id: delivery.channelId, name: delivery.channelName, type: delivery.channelType },
            externalId: delivery.externalId,
          })
        : { ok: true, externalId: null };
  } catch (error) {
    outcome = { ok: false, reason: (error as Error).message };
  }
  return recordJob(context, claimed, undefined, claimNext, async (tx, nowMs) => {
    const { owner } = context.lease;
    if (outcome.ok) {
      const mine = await tx.jobs.finish(job.id, owner, { status: 'done', reason: null }, nowMs);
      return { mine, ok: true, events: [], outcome: 'closed' };
    }
    const again =
      outcome.kind === 'transient' || outcome.kind === 'rate_limited' || outcome.kind === 'unknown';
    if (again && job.attempts < RETRY_POLICY.transientAttempts) {
      const dueAtMs = nowMs + Math.max(1000, outcome.retryAfterMs ?? RETRY_POLICY.baseDelayMs);
      const mine = await tx.jobs.reschedule(job.id, owner, { dueAtMs, reason: outcome.reason });
      return { mine, ok: false, events: [], outcome: outcome.reason };
    }
    const reason = `The poll could not be closed when its period ended: ${outcome.reason}`;
    const mine = await tx.jobs.finish(job.id, owner, { status: 'failed', reason }, nowMs);
    if (mine && job.deliveryId !== null) await tx.deliveries.addNote(job.deliveryId, reason);
    return { mine, ok: false, events: [], outcome: reason };
  });
}
