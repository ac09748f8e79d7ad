/**
 * Prepare ahead, commit on time. A connector that can split a delivery (`Publisher.prepare`: upload the
 * media, create a container or an upload session) has it prepared before the post is due, within the
 * lead its platform allows (`prepareLeadMs`: how long it keeps what was uploaded), so that at the due
 * second only the commit is sent. A prepare job is keyed by post and channel and remembers the content
 * it prepared; when the post starts, a finished one made for the same content hands its state to the
 * delivery's send (service/publishing.ts), and any other is dropped. A prepare that fails costs nothing
 * but the head start: the commit then does everything itself.
 */
import { planDelivery } from '../domain/platform-rules.js';
import type {
  CheckOutcome,
  ClaimedJob,
  DeliveryJob,
  PostRecord,
  PrepareOutcome,
  Publisher,
} from '../ports.js';
import { contentKey } from '../service/publishing.js';
import { crashed, handBack, type JobContext, recordJob } from './job-context.js';
import type { JobResult } from './job-runner.js';
import { RETRY_POLICY } from './retry-policy.js';

/** How far ahead the engine looks for posts to prepare (each platform's lead is at most this). */
export const PREPARE_HORIZON_MS = 15 * 60_000;
/** How often, at most, it looks while busy. */
const PLAN_EVERY_MS = 10_000;
/** Posts looked at per look. */
const PLAN_BATCH = 500;

export class PrepareAhead {
  private lastPlanMs = Number.NEGATIVE_INFINITY;
  /** Posts (at a version) already looked at by this process. */
  private readonly planned = new Set<string>();

  constructor(private readonly context: JobContext) {}

  /** Adds prepare jobs for the posts soon due whose channels' connectors prepare, within each lead. */
  async plan(): Promise<void> {
    const { store, clock, connectors } = this.context;
    const nowMs = clock.now();
    if (nowMs - this.lastPlanMs < PLAN_EVERY_MS) return;
    this.lastPlanMs = nowMs;
    const soon = await store.posts.due(nowMs + PREPARE_HORIZON_MS, PLAN_BATCH);
    // Only posts still ahead are kept: the set stays the size of the horizon's posts.
    if (this.planned.size > 4 * PLAN_BATCH) this.planned.clear();
    for (const post of soon) {
      const key = `${post.id}@${post.updatedAtMs}`;
      if (post.dueAtMs === null || post.dueAtMs <= nowMs || this.planned.has(key)) continue;
      const channels = await this.channelsOf(post);
      // An OAuth token that would be stale at the due second is refreshed now, not then.
      await this.freshen(
        channels.map(({ channel }) => channel.id),
        post.dueAtMs,
      );
      if (!post.payload.media?.length) {
        this.planned.add(key);
        continue;
      }
      const jobs = [];
      let later = false;
      for (const { channel, content } of channels) {
        const publisher = await connectors.forChannel(channel.id);
        if (!publisher.prepare) continue;
        if (post.dueAtMs - nowMs > (publisher.prepareLeadMs ?? 0)) {
          later = true;
          continue;
        }
        jobs.push({
          kind: 'prepare' as const,
          postId: post.id,
          channelId: channel.id,
          dueAtMs: nowMs,
          step: 'prepare' as const,
          state: { content: contentKey(content) },
        });
      }
      if (jobs.length > 0) await store.jobs.add(jobs);
      if (!later) this.planned.add(key);
    }
  }

  private async freshen(channelIds: readonly number[], dueAtMs: number): Promise<void> {
    const { connectors, log } = this.context;
    if (!connectors.freshen) return;
    // The channels' connections in one read (most have no OAuth token: nothing more to do for them).
    await connectors.prefetch?.(channelIds);
    for (const channelId of channelIds) {
      try {
        await connectors.freshen(channelId, dueAtMs);
      } catch (error) {
        // The send refreshes again, or fails with the reason: nothing is lost by failing here.
        log(
          `refreshing the token of channel ${channelId} ahead of a post failed: ${(error as Error).message}`,
        );
      }
    }
  }

  /** Runs a prepare job (its `prepare` step, or the `check` of a pending one) and records it. */
  async run(claimed: ClaimedJob, claimNext: boolean, halted: () => boolean): Promise<JobResult> {
    const { store, connectors } = this.context;
    const { job } = claimed;
    const post = job.postId === null ? undefined : await store.posts.get(job.postId);
    const { content: preparedFor, ...state } = job.state as { content?: string };
    let outcome: PrepareOutcome | CheckOutcome;
    let publisher: Publisher | undefined;
    const found = post && (await this.channelsOf(post)).find(({ channel }) => channel.id === job.channelId);
    if (!post || (post.status !== 'scheduled' && post.status !== 'queued') || !found) {
      outcome = { ok: false, kind: 'refused', reason: 'The post is no longer waiting to be published.' };
    } else if (contentKey(found.content) !== preparedFor) {
      outcome = { ok: false, kind: 'refused', reason: 'The post changed since it was prepared.' };
    } else {
      try {
        publisher = await connectors.forChannel(job.channelId);
        const step: DeliveryJob = {
          deliveryId: 0,
          postId: post.id,
          brandId: post.brandId,
          channel: { id: found.channel.id, name: found.channel.name, type: found.channel.type },
          content: found.content,
          idempotencyKey: `${await store.connections.storeId()}-prepare-${post.id}-${job.channelId}`,
          dueAtMs: post.dueAtMs ?? post.createdAtMs,
          attempt: job.attempts,
          state,
        };
        if (halted()) return await handBack(this.context, claimed);
        outcome =
          job.step === 'check' && publisher.check
            ? await publisher.check(step)
            : publisher.prepare
              ? await publisher.prepare(step)
              : { ok: false, kind: 'refused', reason: 'The connector no longer prepares.' };
      } catch (error) {
        outcome = crashed(this.context, publisher, job.id, error);
      }
    }
    return recordJob(this.context, claimed, undefined, claimNext, async (tx, nowMs) => {
      const { owner } = this.context.lease;
      if (outcome.ok === 'prepared') {
        // The platform's own deadline for what was prepared goes with it (`preparedState`).
        const kept = { ...outcome.state, content: preparedFor, keptUntilMs: outcome.expiresAtMs };
        const mine = await tx.jobs.finish(
          job.id,
          owner,
          { status: 'done', reason: null, state: kept },
          nowMs,
        );
        return { mine, ok: true, events: [], outcome: 'prepared' };
      }
      if (outcome.ok === 'pending') {
        const mine = await tx.jobs.reschedule(job.id, owner, {
          dueAtMs: Math.max(nowMs, outcome.checkAtMs),
          reason: outcome.reason,
          step: 'check',
          state: { ...outcome.state, content: preparedFor },
          countAttempt: false,
        });
        return { mine, ok: true, waiting: true, events: [], outcome: outcome.reason };
      }
      if (outcome.ok === true) {
        // A connector that published while preparing would be a bug: nothing is recorded as sent.
        const reason = 'The connector answered sent to a prepare step.';
        const mine = await tx.jobs.finish(job.id, owner, { status: 'failed', reason }, nowMs);
        return { mine, ok: false, events: [], outcome: reason };
      }
      const again =
        outcome.kind === 'transient' || outcome.kind === 'rate_limited' || outcome.kind === 'unknown';
      if (again && job.attempts < RETRY_POLICY.transientAttempts) {
        const dueAtMs = nowMs + Math.max(1000, outcome.retryAfterMs ?? RETRY_POLICY.baseDelayMs / 6);
        const mine = await tx.jobs.reschedule(job.id, owner, { dueAtMs, reason: outcome.reason });
        return { mine, ok: false, waiting: true, events: [], outcome: outcome.reason };
      }
      const mine = await tx.jobs.finish(job.id, owner, { status: 'failed', reason: outcome.reason }, nowMs);
      this.context.log(
        `preparing post ${job.postId} for channel ${job.channelId} ahead failed: ${outcome.reason}`,
      );
      return { mine, ok: false, events: [], outcome: outcome.reason };
    });
  }

  /** The post's channels and what each will receive, as its start will plan them. */
  private async channelsOf(post: PostRecord) {
    const { store } = this.context;
    const collection = await store.findCollection(post.brandId, post.collectionId);
    const mediaIds = (post.payload.media ?? []).flatMap((element) => (element.id ? [element.id] : []));
    const mediaTypes = new Map((await store.findMedia(post.brandId, mediaIds)).map((m) => [m.id, m.type]));
    return (collection?.channels ?? []).flatMap((channel) => {
      const plan = planDelivery(post.payload, channel, mediaTypes);
      return plan.action === 'send' ? [{ channel, content: plan.content }] : [];
    });
  }
}
