/** A platform stand-in for scheduler tests: counts every send, and can hold sends mid-send. */
import type { CommentJob, DeliveryJob, Publisher, PublishOutcome } from '../../src/ports.js';

/** A send held by `hold()`: when it has begun, and how to let it finish. */
export interface HeldSend {
  started: Promise<void>;
  open(): void;
}

/** An idempotent platform that counts what it is asked to send, and can hold sends until released. */
export class HeldPlatform implements Publisher {
  readonly name = 'held';
  readonly idempotent = true;
  readonly sends = new Map<number, number>();
  /** The holds not yet taken by a send, in order: each holds the next send that arrives. */
  private readonly holds: Array<{ begin(): void; gate: Promise<void> }> = [];
  private latest: HeldSend | undefined;
  /** Resolves when the send held by the latest `hold()` has begun. */
  sendStarted: Promise<void> = Promise.resolve();

  /** The next send not held yet waits for `open()` (of the returned hold); the others go through. */
  hold(): HeldSend {
    let begin!: () => void;
    let open!: () => void;
    const started = new Promise<void>((resolve) => {
      begin = resolve;
    });
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    this.holds.push({ begin, gate });
    this.latest = { started, open };
    this.sendStarted = started;
    return this.latest;
  }

  /** Lets the send of the latest `hold()` finish. */
  open(): void {
    this.latest?.open();
  }

  async deliver(job: DeliveryJob): Promise<PublishOutcome> {
    this.sends.set(job.deliveryId, (this.sends.get(job.deliveryId) ?? 0) + 1);
    const held = this.holds.shift();
    if (held) {
      held.begin();
      await held.gate;
    }
    return { ok: true, externalId: `held-${job.deliveryId}` };
  }

  async comment(_job: CommentJob): Promise<PublishOutcome> {
    return { ok: true, externalId: null };
  }
}
