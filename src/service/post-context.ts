import type { Clock, Store, UserRecord } from '../ports.js';

/** What the post operations work with: the store, the clock, the acting user. */
export interface PostContext {
  store: Store;
  clock: Clock;
  user: UserRecord;
  /** Told when a post is planned or starts publishing: the scheduler re-plans its sleep at once. */
  onPlanChanged?: (() => void) | undefined;
  /** Who publishes to channels without a connection of their own (`sandbox` or `webhook`). */
  defaultConnector?: string;
  /** This server hands out public addresses of uploaded media (`serve` with a public URL). */
  publicMedia?: boolean;
}
