/**
 * The claims one scheduler holds on jobs (sends, comments, …), and the lease it keeps renewing on them
 * while it works. Another process takes a claim over only once its lease has ended, so a live owner
 * must renew well before that: every third of the lease, which leaves two renewals' worth of slack for
 * an event loop held up by a busy database.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Claim, Clock, JobStore } from '../ports.js';

export interface ClaimLeaseOptions {
  jobs: JobStore;
  clock: Clock;
  leaseMs: number;
  log: (message: string) => void;
}

export class ClaimLease {
  /** Unique to this scheduler, and says where it runs (for an operator reading the database). */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
  private readonly held = new Set<number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ClaimLeaseOptions) {}

  /** A claim taken now: this owner, until one lease from now. */
  /** How long a claim lasts unless renewed. */
  get leaseMs(): number {
    return this.options.leaseMs;
  }

  claim(): Claim {
    return { owner: this.owner, leaseUntilMs: this.options.clock.now() + this.options.leaseMs };
  }

  holds(jobId: number): boolean {
    return this.held.has(jobId);
  }

  /** Starts renewing the lease on these claims. */
  hold(jobIds: Iterable<number>): void {
    for (const id of jobIds) this.held.add(id);
    if (this.held.size > 0 && !this.timer) {
      this.timer = setInterval(() => this.renew(), Math.max(1, Math.floor(this.options.leaseMs / 3)));
      this.timer.unref();
    }
  }

  /** The claim is settled (or lost): no more renewals for it. */
  release(jobId: number): void {
    this.held.delete(jobId);
    if (this.held.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private renew(): void {
    this.options.jobs.renew([...this.held], this.claim()).catch((error: unknown) => {
      // A busy or closing database: the next renewal comes a third of a lease later, in time.
      this.options.log(`renewing the lease on ${this.held.size} claims failed: ${(error as Error).message}`);
    });
  }
}
