/**
 * The failed-key throttle's rules, on its own with a moved clock: what counts as one address (IPv4,
 * IPv4-mapped IPv6 as its IPv4 address, IPv6 per /64), the sliding window and the Retry-After it gives,
 * the bound on memory (the address seen least recently is forgotten first), and the keys remembered per
 * address.
 */
import { describe, expect, it } from 'vitest';
import { UnauthenticatedError } from '../../src/domain/errors.js';
import { AuthThrottle, addressGroup, clientAddress } from '../../src/http/auth-throttle.js';

const GOOD = 'good-key';

/** A throttle on a clock the test moves, and a check that knows one key. */
function throttleAt(options: ConstructorParameters<typeof AuthThrottle>[0] = {}) {
  const clock = { now: 1_000_000 };
  const throttle = new AuthThrottle({ ...options, now: () => clock.now });
  const attempt = async (address: string, key: string | undefined) => {
    try {
      return await throttle.authenticate(address, key, async () => {
        if (key !== GOOD) throw new UnauthenticatedError();
        return 'user';
      });
    } catch (error) {
      if (error instanceof UnauthenticatedError) return 'unauthenticated' as const;
      throw error;
    }
  };
  const fail = async (address: string, times: number) => {
    for (let i = 0; i < times; i++) expect(await attempt(address, `wrong-${i}`)).toBe('unauthenticated');
  };
  return { clock, throttle, attempt, fail };
}

describe('what counts as one client address', () => {
  it.each([
    ['127.0.0.2', '127.0.0.2'],
    ['::ffff:127.0.0.2', '127.0.0.2'],
    ['::ffff:7f00:2', '127.0.0.2'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['unknown', 'unknown'],
  ])('%s counts as %s', (address, group) => {
    expect(addressGroup(address)).toBe(group);
  });

  it('blocks a whole IPv6 /64 together, and not the next /64', async () => {
    const { attempt, fail } = throttleAt();
    for (let i = 0; i < 20; i++) await attempt(`2001:db8:1:2::${(i + 1).toString(16)}`, 'wrong');
    expect(await attempt('2001:db8:1:2:abcd::1', 'wrong')).toMatchObject({ admitted: false });
    expect(await attempt('2001:db8:1:3::1', 'wrong')).toBe('unauthenticated');
    await fail('::ffff:10.0.0.1', 20);
    expect(await attempt('10.0.0.1', 'wrong')).toMatchObject({ admitted: false });
  });

  it('reads the address of the socket, or "unknown" for a request without one (in process)', async () => {
    expect(clientAddress({ incoming: { socket: { remoteAddress: '127.0.0.3' } } })).toBe('127.0.0.3');
    expect(clientAddress(undefined)).toBe('unknown');
    expect(clientAddress({})).toBe('unknown');
  });
});

describe('the window', () => {
  it('refuses the 21st attempt within 60 s, saying when the oldest failure leaves the window', async () => {
    const { clock, attempt, fail } = throttleAt();
    await fail('10.0.0.1', 1);
    clock.now += 30_000;
    await fail('10.0.0.1', 19);
    expect(await attempt('10.0.0.1', 'wrong')).toEqual({ admitted: false, retryAfterSeconds: 30 });
    clock.now += 29_500;
    expect(await attempt('10.0.0.1', 'wrong')).toEqual({ admitted: false, retryAfterSeconds: 1 });
    clock.now += 500;
    // The first failure has left the window: one more attempt, then blocked until the next leaves.
    expect(await attempt('10.0.0.1', 'wrong')).toBe('unauthenticated');
    expect(await attempt('10.0.0.1', 'wrong')).toEqual({ admitted: false, retryAfterSeconds: 30 });
  });

  it('takes its limits as options', async () => {
    const { clock, attempt, fail } = throttleAt({ maxFailures: 3, windowMs: 1000 });
    await fail('10.0.0.1', 3);
    expect(await attempt('10.0.0.1', GOOD)).toEqual({ admitted: false, retryAfterSeconds: 1 });
    clock.now += 1000;
    expect(await attempt('10.0.0.1', GOOD)).toEqual({ admitted: true, value: 'user' });
  });

  it('counts checks under way against the limit: guesses sent at once make no more checks than in turn', async () => {
    const { throttle } = throttleAt({ maxFailures: 3 });
    let checks = 0;
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const guess = (i: number) =>
      throttle
        .authenticate('10.0.0.1', `wrong-${i}`, async () => {
          checks++;
          await answered;
          throw new UnauthenticatedError();
        })
        .catch((error: unknown) => {
          if (error instanceof UnauthenticatedError) return 'unauthenticated' as const;
          throw error;
        });
    const guesses = Promise.all([0, 1, 2, 3, 4].map(guess));
    answer();
    const refused = { admitted: false, retryAfterSeconds: 60 };
    expect(await guesses).toEqual([
      'unauthenticated',
      'unauthenticated',
      'unauthenticated',
      refused,
      refused,
    ]);
    expect(checks).toBe(3);
  });

  it('passes other errors of the check through without counting them', async () => {
    const { throttle, attempt } = throttleAt({ maxFailures: 1 });
    await expect(
      throttle.authenticate('10.0.0.1', 'key', async () => {
        throw new Error('database is locked');
      }),
    ).rejects.toThrow('database is locked');
    expect(await attempt('10.0.0.1', GOOD)).toEqual({ admitted: true, value: 'user' });
  });
});

describe('memory', () => {
  it('remembers at most maxAddresses addresses, forgetting the one seen least recently', async () => {
    const { throttle, attempt, fail } = throttleAt({ maxAddresses: 3 });
    await fail('10.0.0.1', 20);
    await fail('10.0.0.2', 20);
    await fail('10.0.0.3', 20);
    expect(await attempt('10.0.0.1', 'wrong')).toMatchObject({ admitted: false }); // now the most recent
    await fail('10.0.0.4', 1); // the fourth address: 10.0.0.2 goes
    expect(throttle.size).toBe(3);
    expect(await attempt('10.0.0.2', 'wrong')).toBe('unauthenticated');
    expect(await attempt('10.0.0.1', 'wrong')).toMatchObject({ admitted: false });
  });

  it('stays bounded under many addresses', async () => {
    const { throttle, attempt } = throttleAt({ maxAddresses: 1000 });
    for (let i = 0; i < 5000; i++) await attempt(`2001:db8:${i.toString(16)}::1`, 'wrong');
    expect(throttle.size).toBe(1000);
  });

  it('remembers a few keys per address as known, the oldest forgotten first', async () => {
    const throttle = new AuthThrottle({ maxFailures: 1, maxKnownKeys: 2 });
    const accept = async () => 'user';
    for (const key of ['k1', 'k2', 'k3']) await throttle.authenticate('10.0.0.1', key, accept);
    await expect(
      throttle.authenticate('10.0.0.1', 'wrong', async () => {
        throw new UnauthenticatedError();
      }),
    ).rejects.toThrow(UnauthenticatedError);
    expect(await throttle.authenticate('10.0.0.1', 'k3', accept)).toEqual({ admitted: true, value: 'user' });
    expect(await throttle.authenticate('10.0.0.1', 'k2', accept)).toEqual({ admitted: true, value: 'user' });
    expect(await throttle.authenticate('10.0.0.1', 'k1', accept)).toMatchObject({ admitted: false });
  });
});
