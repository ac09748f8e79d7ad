/**
 * A connection's OAuth token refreshed once, whichever processes find it stale at the same moment: a
 * refresh token that rotates is spent by its first use, so a second refresh with it would fail and
 * disconnect the channel. The refresh is claimed through the store (a `refresh` job of the channel,
 * under a lease: `JobStore.claimRefresh`); the claimant reads the stored secret again and refreshes only
 * if it is still the stale one, stores the new secret sealed, and ends the claim. The others wait for
 * the claim to end and take the stored secret. A process that dies mid-refresh leaves a claim whose
 * lease ends; the next refresh takes it over.
 */
import type { Clock, Store } from '../ports.js';
import type { SecretBox } from '../store/secret-box.js';

export interface RefreshCoordination {
  store: Store;
  secrets: SecretBox;
  channelId: number;
  /** This process's scheduler (the claim's owner). */
  owner: string;
  clock: Clock;
  /** How long a claim lasts: longer than a refresh takes (a request to the platform). */
  leaseMs: number;
  /** How often a process waiting for another's refresh looks again (real ms). */
  pollMs?: number;
}

export async function refreshSecret(
  coordination: RefreshCoordination,
  request: { stale: string; refresh(current: string): Promise<string> },
): Promise<string> {
  const { store, secrets, channelId, owner, clock, leaseMs } = coordination;
  const stored = async (): Promise<string | undefined> => {
    const connection = await store.connections.find(channelId);
    return connection?.sealedSecret ? secrets.open(connection.sealedSecret, channelId) : undefined;
  };
  const giveUpAt = Date.now() + 2 * leaseMs;
  for (;;) {
    const nowMs = clock.now();
    if (await store.jobs.claimRefresh(channelId, { owner, leaseUntilMs: nowMs + leaseMs }, nowMs)) {
      let failure: string | undefined;
      try {
        const current = (await stored()) ?? request.stale;
        // Another process refreshed it while this one waited for the claim.
        if (current !== request.stale) return current;
        const fresh = await request.refresh(current);
        await store.connections.setSecret(channelId, secrets.seal(fresh, channelId), clock.now());
        return fresh;
      } catch (error) {
        failure = (error as Error).message;
        throw error;
      } finally {
        await store.jobs.endRefresh(channelId, owner, clock.now(), failure);
      }
    }
    // Another process is refreshing: its secret, once stored, is the one to use.
    const current = await stored();
    if (current !== undefined && current !== request.stale) return current;
    if (Date.now() > giveUpAt) {
      throw new Error('Another process has been refreshing this channel’s token for too long.');
    }
    await new Promise((resolve) => setTimeout(resolve, coordination.pollMs ?? 100));
  }
}
