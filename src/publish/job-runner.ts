/**
 * Runs due jobs of every kind with up to `inFlight` at once: free slots are filled by one claim (a burst
 * is in flight after one transaction), each job claimed only as it is about to run, so a process that
 * dies leaves in doubt only what it was running; a slot claims its next job in the transaction that
 * records the one it ran. A job waits on the network only for its own request: a step that takes time
 * at the platform (processing) answers `pending` and gives its slot back until it is checked again.
 *
 * While jobs are in flight, the runner looks again every `lookMs` for jobs that fell due meanwhile (a
 * retry, a comment, a pending step's check, a post planned elsewhere), so a request that hangs holds up
 * only its own job.
 */
import type { ClaimedJob, Clock, Store } from '../ports.js';
import type { ClaimLease } from './claim-lease.js';

/** What running one claimed job came to, once recorded. */
export interface JobResult {
  /** A job handed back unrun (the runner was halted): nothing to count. */
  handedBack?: boolean;
  /** The job's work succeeded (a delivery sent, a comment posted, a step done). */
  ok: boolean;
  /** The job waits again (a pending step, a rate limit): neither a success nor a failure yet. */
  waiting?: boolean;
  /** The next job, claimed in the transaction that recorded this one. */
  next: ClaimedJob | undefined;
}

export interface JobRunnerOptions {
  store: Store;
  clock: Clock;
  lease: ClaimLease;
  inFlight: number;
  log: (message: string) => void;
  /** Runs one claimed job and records it, claiming the next one unless `halted`. */
  run: (claimed: ClaimedJob, claimNext: boolean) => Promise<JobResult>;
  /** Called with the jobs one claim took, before they run (their channels' connections read at once). */
  afterClaim?: (claimed: readonly ClaimedJob[]) => Promise<void>;
  /** Called between looks for due work while jobs run (due posts are started then). */
  beforeLook?: () => Promise<void>;
  lookMs?: number;
}

export class JobRunner {
  private halted = false;
  /** The latest claim found no more due jobs than it took. */
  private drained = false;
  private fill: (() => void) | undefined;

  constructor(private readonly options: JobRunnerOptions) {}

  /** Claims nothing more; what is running finishes and is recorded. */
  halt(): void {
    this.halted = true;
  }

  get isHalted(): boolean {
    return this.halted;
  }

  /** More may be due than when the run began: free slots claim it now. */
  moreWork(): void {
    this.drained = false;
    this.fill?.();
  }

  /** A new pass: claims may be taken again after a `halt()`. */
  resume(): void {
    this.halted = false;
  }

  /**
   * Runs due jobs until none is due and none is running, and not before `until` settles (work that
   * makes jobs, such as due posts starting: `moreWork` claims what each step of it made).
   */
  async runDue(until?: Promise<unknown>): Promise<{ ok: number; failed: number }> {
    const { store, lease, clock, inFlight } = this.options;
    let [ok, failed, slots, claiming, claimAgain] = [0, 0, 0, false, false];
    const running = new Set<Promise<void>>();
    const track = (work: Promise<void>): void => {
      running.add(work);
      const forget = () => running.delete(work);
      work.then(forget, forget);
    };
    const fill = (): void => {
      claimAgain ||= claiming;
      if (claiming || this.halted || slots >= inFlight) return;
      claiming = true;
      track(
        (async () => {
          try {
            const limit = inFlight - slots;
            const claimed = await store.jobs.claim(limit, lease.claim(), clock.now());
            // Fewer than asked: nothing else is due. A slot that ends claims its next job again only
            // once more work may be there (woken, or the next look), not in every record.
            this.drained = claimed.length < limit;
            lease.hold(claimed.map((c) => c.job.id));
            if (claimed.length > 1) {
              await this.options.afterClaim?.(claimed).catch((error: unknown) => {
                this.options.log(`reading the claimed jobs' connections failed: ${(error as Error).message}`);
              });
            }
            for (const job of claimed) {
              slots++;
              track(slot(job).finally(() => slots--));
            }
          } finally {
            claiming = false;
            if (claimAgain) {
              claimAgain = false;
              fill();
            }
          }
        })(),
      );
    };
    const slot = async (first: ClaimedJob) => {
      let claimed: ClaimedJob | undefined = first;
      while (claimed) {
        const { id } = claimed.job;
        lease.hold([id]);
        try {
          const claimNext = !this.halted && !this.drained;
          const result = await this.options.run(claimed, claimNext);
          if (claimNext && !result.next && !result.handedBack) this.drained = true;
          if (result.handedBack) return;
          if (result.waiting) {
            // Neither sent nor failed yet.
          } else if (result.ok) ok++;
          else failed++;
          claimed = result.next;
        } catch (error) {
          // The store failed us (full, busy, closing). The claim is left to expire: once its lease is
          // over, whoever runs next takes it over as the platform's idempotency allows.
          lease.release(id);
          this.options.log(`job ${id} could not be recorded: ${(error as Error).stack ?? String(error)}`);
          failed++;
          return;
        }
      }
    };
    const look = setInterval(() => {
      if (this.halted || slots >= inFlight || running.size === 0) return;
      track(
        (async () => {
          try {
            await this.options.beforeLook?.();
          } catch (error) {
            this.options.log(`starting due posts failed: ${(error as Error).message}`);
          }
          fill();
        })(),
      );
    }, this.options.lookMs ?? 250);
    look.unref();
    this.fill = fill;
    if (until) track(until.then(fill, () => undefined));
    fill();
    try {
      while (running.size > 0) await Promise.all([...running]);
    } finally {
      clearInterval(look);
      this.fill = undefined;
    }
    return { ok, failed };
  }
}
