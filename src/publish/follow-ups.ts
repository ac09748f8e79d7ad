/**
 * What follows a sent delivery, in each publishing pass: its auto-comment when due, and closing its poll
 * when the poll's period ends on a platform that cannot close it by itself (Telegram). Both are claimed
 * one at a time, like deliveries; a failed comment is retried as the retry policy says.
 */
import type { Clock, DeliveryRecord, Publisher, PublishingEvent, PublishOutcome, Store } from '../ports.js';
import type { ClaimLease } from './claim-lease.js';
import { channelNeedsReconnect, commentFailed, commentPosted, sendRetrying } from './publishing-events.js';
import type { ConnectorRouter } from './publishing-pass.js';
import { decideAfterFailure, recordChannelFailure } from './retry-policy.js';

export interface FollowUpOptions {
  store: Store;
  clock: Clock;
  connectors: ConnectorRouter;
  lease: ClaimLease;
  /** Tells the post's brand (the pass's sink, which never throws). */
  tell: (event: PublishingEvent) => void;
  crashed: (publisher: Publisher | undefined, delivery: DeliveryRecord, error: unknown) => PublishOutcome;
}

export class FollowUps {
  constructor(private readonly options: FollowUpOptions) {}

  async sendDueComments(halted: () => boolean): Promise<number> {
    const { store } = this.options;
    let posted = 0;
    while (!halted()) {
      // One at a time, claimed as it is posted: a process that dies leaves only that one in doubt.
      const [delivery] = await store.deliveries.claimDueComments(
        1,
        this.options.lease.claim(),
        this.options.clock.now(),
      );
      if (!delivery) break;
      this.options.lease.hold([delivery.id]);
      const post = await store.posts.get(delivery.postId);
      const text = post?.payload.comment?.comment;
      let outcome: PublishOutcome | undefined;
      let publisher: Publisher | undefined;
      try {
        publisher = await this.options.connectors.forChannel(delivery.channelId);
        const idempotencyKey = `${await store.connections.storeId()}-${delivery.id}-comment`;
        // Claimed, not begun, and the server is stopping: handed back below, for another process.
        if (!halted())
          outcome = text
            ? await publisher.comment({
                deliveryId: delivery.id,
                postId: delivery.postId,
                brandId: post!.brandId,
                channel: { id: delivery.channelId, name: delivery.channelName, type: delivery.channelType },
                externalId: delivery.externalId,
                comment: text,
                idempotencyKey,
              })
            : { ok: false, reason: 'The post no longer has a comment.' };
      } catch (error) {
        outcome = this.options.crashed(publisher, delivery, error);
      }
      if (!outcome) {
        await this.handBack(delivery);
        break;
      }
      const nowMs = this.options.clock.now();
      // The comment's own attempts (counted as it is claimed), not its delivery's: with the delivery's, a
      // comment that kept failing was retried for ever, each time as its first attempt.
      const decision = outcome.ok
        ? undefined
        : decideAfterFailure(outcome, delivery.commentAttempts, publisher?.idempotent ?? false, nowMs);
      let mine: boolean;
      try {
        mine = await store.transaction(async (tx) => {
          const { owner } = this.options.lease;
          const done =
            decision?.action === 'retry'
              ? await tx.deliveries.retryComment(delivery.id, owner, decision.reason, decision.atMs)
              : await tx.deliveries.markComment(
                  delivery.id,
                  owner,
                  outcome.ok ? 'sent' : 'failed',
                  nowMs,
                  decision?.reason ?? null,
                );
          if (done && decision) await recordChannelFailure(tx, delivery.channelId, decision, nowMs);
          return done;
        }, post && { brandId: post.brandId, postId: post.id });
      } finally {
        this.options.lease.release(delivery.id);
      }
      if (!mine) continue;
      if (outcome.ok) posted++;
      if (!post) continue;
      const { tell } = this.options;
      if (outcome.ok) tell(commentPosted(post, delivery.channelName));
      else if (decision?.action === 'retry') {
        tell(sendRetrying(post, `auto-comment on ${delivery.channelName}`, decision.reason));
      } else {
        tell(commentFailed(post, delivery.channelName, decision!.reason));
        if (decision?.reconnect) tell(channelNeedsReconnect(post, delivery.channelName, decision.reason));
      }
    }
    return posted;
  }

  private async handBack(delivery: DeliveryRecord): Promise<void> {
    const { store, lease } = this.options;
    try {
      await store.deliveries.handBackComment(delivery.id, lease.owner);
    } finally {
      lease.release(delivery.id);
    }
  }

  /**
   * Closes the polls that a platform cannot keep open for their whole period by itself (Telegram), when
   * their period ends. Closing a closed poll is harmless, so a closing whose lease ended is repeated.
   */
  async closeDuePolls(halted: () => boolean): Promise<void> {
    const { store } = this.options;
    while (!halted()) {
      const nowMs = this.options.clock.now();
      const [delivery] = await store.deliveries.claimDuePollCloses(
        1,
        nowMs + this.options.lease.leaseMs,
        nowMs,
      );
      if (!delivery) return;
      let outcome: PublishOutcome;
      try {
        const publisher = await this.options.connectors.forChannel(delivery.channelId);
        outcome = publisher.closePoll
          ? await publisher.closePoll({
              deliveryId: delivery.id,
              postId: delivery.postId,
              brandId: (await store.posts.get(delivery.postId))?.brandId ?? 0,
              channel: { id: delivery.channelId, name: delivery.channelName, type: delivery.channelType },
              externalId: delivery.externalId,
            })
          : { ok: true, externalId: null };
      } catch (error) {
        outcome = { ok: false, reason: (error as Error).message };
      }
      if (!outcome.ok && (outcome.kind === 'transient' || outcome.kind === 'rate_limited')) {
        // Left `sending`: its lease ends and the closing is tried again then.
        continue;
      }
      await store.deliveries.markPollClosed(
        delivery.id,
        outcome.ok ? 'closed' : 'failed',
        outcome.ok ? null : `The poll could not be closed when its period ended: ${outcome.reason}`,
      );
    }
  }
}
