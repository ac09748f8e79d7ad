/**
 * The default publisher: it stands in for the platforms and records exactly what each would have
 * received, in the store's outbox. Recording is keyed by delivery, so sending a delivery again after a
 * crash records nothing new: the sandbox is idempotent.
 */
import type { Clock, CommentJob, DeliveryJob, Publisher, PublishOutcome, SandboxOutbox } from '../ports.js';

export class SandboxPublisher implements Publisher {
  readonly name = 'sandbox';
  readonly idempotent = true;

  constructor(
    private readonly outbox: SandboxOutbox,
    private readonly clock: Clock,
  ) {}

  async deliver(job: DeliveryJob): Promise<PublishOutcome> {
    await this.outbox.record(
      'delivery',
      job.deliveryId,
      job.channel.type,
      { postId: job.postId, brandId: job.brandId, channel: job.channel, content: job.content },
      this.clock.now(),
    );
    return { ok: true, externalId: `sandbox-${job.deliveryId}` };
  }

  async comment(job: CommentJob): Promise<PublishOutcome> {
    await this.outbox.record(
      'comment',
      job.deliveryId,
      job.channel.type,
      { postId: job.postId, channel: job.channel, replyTo: job.externalId, comment: job.comment },
      this.clock.now(),
    );
    return { ok: true, externalId: null };
  }
}
