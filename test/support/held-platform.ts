/** A platform stand-in for scheduler tests: counts every send, and can hold one mid-send. */
import type { CommentJob, DeliveryJob, Publisher, PublishOutcome } from '../../src/ports.js';

/** An idempotent platform that counts what it is asked to send, and can hold one send until released. */
export class HeldPlatform implements Publisher {
  readonly name = 'held';
  readonly idempotent = true;
  readonly sends = new Map<number, number>();
  private release: (() => void) | undefined;
  private gate: Promise<void> = Promise.resolve();
  private holdNext = false;
  private started: (() => void) | undefined;
  /** Resolves when the held send has begun (after `hold()`). */
  sendStarted: Promise<void> = Promise.resolve();

  /** The next send waits for `open()`; the others go through. */
  hold(): void {
    this.holdNext = true;
    this.gate = new Promise((resolve) => {
      this.release = resolve;
    });
    this.sendStarted = new Promise((resolve) => {
      this.started = resolve;
    });
  }

  open(): void {
    this.release?.();
  }

  async deliver(job: DeliveryJob): Promise<PublishOutcome> {
    this.sends.set(job.deliveryId, (this.sends.get(job.deliveryId) ?? 0) + 1);
    if (this.holdNext) {
      this.holdNext = false;
      this.started?.();
      await this.gate;
    }
    return { ok: true, externalId: `held-${job.deliveryId}` };
  }

  async comment(_job: CommentJob): Promise<PublishOutcome> {
    return { ok: true, externalId: null };
  }
}
