/**
 * A token refreshed once, through the store, however many processes find it stale at once: three
 * schedulers (owners) on one store ask at the same moment with a refresh that rotates its token; the
 * platform's token endpoint (counted here, where it is called) is asked once, every caller gets the new
 * token, and it is stored sealed. A claim left by a process that died mid-refresh is taken over once its
 * lease ends. Runs on the store under test (SQLite, or PostgreSQL in the postgres project).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { PLATFORM_CAPABILITIES } from '../../src/domain/capabilities.js';
import { refreshSecret } from '../../src/publish/refresh-secret.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

let rt: TestRuntime;
let channelId: number;
beforeEach(async () => {
  rt = await openTestRuntime();
  channelId = (await rt.runtime.store.listChannels(1, { limit: 1, offset: 0 }))[0]!.id;
  const { store, secrets } = rt.runtime;
  await store.connections.save(
    channelId,
    {
      kind: 'mastodon',
      account: '@acme@example.social',
      accountId: '1',
      endpoint: 'https://example.social',
      profileUrl: null,
      settings: {},
      capabilities: PLATFORM_CAPABILITIES.Mastodon,
      sealedSecret: secrets.seal('token-1', channelId),
      secretEnv: null,
    },
    rt.clock.now(),
  );
});
afterEach(() => rt.close());

const coordination = (owner: string, leaseMs = 30_000) => ({
  store: rt.runtime.store,
  secrets: rt.runtime.secrets,
  channelId,
  owner,
  clock: rt.clock,
  leaseMs,
  pollMs: 10,
});

it('refreshes a token once when three processes find it stale at the same moment', async () => {
  let calls = 0;
  const refresh = async (current: string) => {
    calls++;
    expect(current).toBe('token-1');
    await new Promise((resolve) => setTimeout(resolve, 150));
    return `token-${calls + 1}`;
  };
  const got = await Promise.all(
    ['a', 'b', 'c'].map((owner) => refreshSecret(coordination(owner), { stale: 'token-1', refresh })),
  );
  expect(calls).toBe(1);
  expect(got).toEqual(['token-2', 'token-2', 'token-2']);
  const stored = await rt.runtime.store.connections.find(channelId);
  expect(rt.runtime.secrets.open(stored!.sealedSecret!, channelId)).toBe('token-2');
  // Asked again with the token that was stale: the stored one is newer, and no refresh is made.
  expect(await refreshSecret(coordination('d'), { stale: 'token-1', refresh })).toBe('token-2');
  expect(calls).toBe(1);
});

it('takes over a refresh claim whose process died, once its lease has ended', async () => {
  const { store } = rt.runtime;
  const nowMs = rt.clock.now();
  expect(
    await store.jobs.claimRefresh(channelId, { owner: 'dead', leaseUntilMs: nowMs + 1_000 }, nowMs),
  ).toBe(true);
  expect(
    await store.jobs.claimRefresh(channelId, { owner: 'other', leaseUntilMs: nowMs + 1_000 }, nowMs),
  ).toBe(false);
  rt.clock.advance(1_001);
  let calls = 0;
  const fresh = await refreshSecret(coordination('alive'), {
    stale: 'token-1',
    refresh: async () => `token-${++calls + 1}`,
  });
  expect([fresh, calls]).toEqual(['token-2', 1]);
  expect(await store.jobs.endRefresh(channelId, 'dead', rt.clock.now())).toBe(false);
});

it('ends the claim when the platform refuses the refresh, and says why', async () => {
  const refused = refreshSecret(coordination('a'), {
    stale: 'token-1',
    refresh: async () => {
      throw new Error('invalid_grant');
    },
  });
  await expect(refused).rejects.toThrow('invalid_grant');
  // The next one is not held up by a claim left behind.
  const nowMs = rt.clock.now();
  expect(
    await rt.runtime.store.jobs.claimRefresh(channelId, { owner: 'b', leaseUntilMs: nowMs + 1 }, nowMs),
  ).toBe(true);
});
