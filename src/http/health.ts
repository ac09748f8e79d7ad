/**
 * `GET /health`: whether this one instance can do its work, for a load balancer or an orchestrator. 200
 * while its store answers a trivial query (within 2 s) and its publishing engine runs; 503 otherwise, and
 * from the moment it begins to shut down, so that traffic moves to the other instances before it stops
 * accepting. No key is asked, and the body says nothing about the data: only what is checked.
 */
import type { Store } from '../ports.js';
import type { PublishingEngine } from '../publish/engine.js';

export interface HealthBody {
  status: 'ok' | 'unavailable';
  /** The store answered `SELECT 1` in time. */
  store: 'ok' | 'failing';
  engine: PublishingEngine['state'];
  /** SIGTERM (or SIGINT) arrived: the instance is finishing what it has and leaving. */
  shuttingDown: boolean;
}

const STORE_DEADLINE_MS = 2_000;

export class HealthCheck {
  private shuttingDown = false;
  private lastStore: HealthBody['store'] = 'ok';

  constructor(
    private readonly options: {
      store: Store;
      /** Absent: this listener has no engine, so it is never healthy. */
      engine?: PublishingEngine | undefined;
      log: (message: string, error: unknown) => void;
    },
  ) {}

  /** From now on /health answers 503. */
  beginShutdown(): void {
    this.shuttingDown = true;
  }

  async check(): Promise<{ code: 200 | 503; body: HealthBody }> {
    const store = await this.pingStore();
    const engine = this.options.engine?.state ?? 'stopped';
    const ok = store === 'ok' && engine === 'running' && !this.shuttingDown;
    return {
      code: ok ? 200 : 503,
      body: { status: ok ? 'ok' : 'unavailable', store, engine, shuttingDown: this.shuttingDown },
    };
  }

  private async pingStore(): Promise<HealthBody['store']> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), STORE_DEADLINE_MS);
    });
    let failure: unknown;
    try {
      if ((await Promise.race([this.options.store.ping(), late])) === 'late') {
        failure = new Error(`no answer within ${STORE_DEADLINE_MS / 1000} s`);
      }
    } catch (error) {
      failure = error;
    } finally {
      clearTimeout(timer);
    }
    // A load balancer asks every few seconds: a change is logged, not every answer.
    const store = failure === undefined ? 'ok' : 'failing';
    if (store !== this.lastStore) {
      if (failure !== undefined) this.options.log('health check: the store is failing', failure);
      else if (this.lastStore === 'failing')
        this.options.log('health check: the store answers again', undefined);
      this.lastStore = store;
    }
    return store;
  }
}
