/**
 * Keeps signed in the channels whose platform lets a token die unrenewed (Meta's 60-day Threads and
 * Instagram Login tokens, `ConnectorModule.keepSignedInMs`), whether or not they post: every few hours
 * the engine renews each such token that has less than that left, as a send of that month would. The
 * renewal is the engine's usual refresh (ChannelConnectors.freshen): one per token across the processes
 * on the store, the others taking what it stored. One that fails is left for the next look, and for the
 * channel's next send to tell (it says to connect again when the platform refuses for good).
 */
import { CONNECTOR_MODULES } from './connectors/registry.js';
import type { JobContext } from './job-context.js';

/** How often, at most, a process looks. */
export const KEEP_SIGNED_IN_EVERY_MS = 6 * 60 * 60_000;

/** The kinds to keep signed in, and how long before its expiry each renews its token. */
const RENEW_AHEAD = new Map(
  CONNECTOR_MODULES.flatMap((module) =>
    module.keepSignedInMs === undefined ? [] : [[module.kind as string, module.keepSignedInMs] as const],
  ),
);

export class KeepSignedIn {
  private lastLookMs = Number.NEGATIVE_INFINITY;

  constructor(private readonly context: Pick<JobContext, 'store' | 'clock' | 'connectors' | 'log'>) {}

  /** Renews what is due, at most once per KEEP_SIGNED_IN_EVERY_MS. */
  async look(): Promise<void> {
    const { store, clock, connectors, log } = this.context;
    const nowMs = clock.now();
    if (!connectors.freshen || nowMs - this.lastLookMs < KEEP_SIGNED_IN_EVERY_MS) return;
    this.lastLookMs = nowMs;
    for (const { channelId, kind } of await store.connections.signedInOfKinds([...RENEW_AHEAD.keys()])) {
      try {
        await connectors.freshen(channelId, nowMs + (RENEW_AHEAD.get(kind) ?? 0));
      } catch (error) {
        log(
          `Could not renew the sign-in of channel ${channelId} ahead of its expiry: ${(error as Error).message}`,
        );
      }
    }
  }
}
