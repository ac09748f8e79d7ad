/**
 * Scripted trouble of a fake platform: what the next requests of a route (or of any route) meet instead
 * of the platform's own answer. Kept in the order it was scripted; a request meets the first trouble
 * aimed at its route, and each trouble lasts `count` requests.
 */
import type { FakeAnswer } from './kit.js';

export type Trouble =
  /** Answered this way instead of being carried out (failNext, rateLimitNext, answerNext). */
  | { kind: 'answer'; answer: FakeAnswer }
  /** Never answered and not carried out ('forever'), or carried out and answered `ms` late. */
  | { kind: 'hang'; ms: number | 'forever' }
  /** The connection is cut once the request has arrived: not carried out, no answer. */
  | { kind: 'drop' }
  /**
   * Carried out, and then the answer is lost (none comes) or replaced by `answer` (a 500 after the
   * commit). Waits for a request that succeeds: one the platform refuses is answered as it is.
   */
  | { kind: 'after-success'; answer?: FakeAnswer }
  /** Carried out and answered, and then the platform goes away: later connections are refused. */
  | { kind: 'close-after' };

/** The troubles met before the request is carried out; the others come after it. */
export function isBefore(
  trouble: Trouble,
): trouble is Extract<Trouble, { kind: 'answer' | 'hang' | 'drop' }> {
  return trouble.kind === 'answer' || trouble.kind === 'hang' || trouble.kind === 'drop';
}

export interface TroubleTarget {
  /** The route's pattern (`/api/v1/statuses`); any route when absent. */
  route?: string;
  /** How many requests meet it. Default 1. */
  count?: number;
}

interface Scripted {
  trouble: Trouble;
  route: string | undefined;
  left: number;
}

export class TroubleScript {
  private readonly queue: Scripted[] = [];

  add(trouble: Trouble, target: TroubleTarget = {}): void {
    const count = target.count ?? 1;
    if (count > 0) this.queue.push({ trouble, route: target.route, left: count });
  }

  /** The first trouble aimed at `route`, left in place until `take`n. */
  next(route: string | undefined): Trouble | undefined {
    return this.find(route)?.trouble;
  }

  /** Uses up one request of the first trouble aimed at `route`. */
  take(route: string | undefined): void {
    const scripted = this.find(route);
    if (!scripted) return;
    scripted.left -= 1;
    if (scripted.left <= 0) this.queue.splice(this.queue.indexOf(scripted), 1);
  }

  /** No trouble left. */
  clear(): void {
    this.queue.length = 0;
  }

  private find(route: string | undefined): Scripted | undefined {
    return this.queue.find((scripted) => scripted.route === undefined || scripted.route === route);
  }
}
