/**
 * Throttles API key guessing per client address, for REST (/v1) and MCP (/mcp) alike: an address that
 * fails `maxFailures` key checks within `windowMs` is answered 429 until the oldest of those failures
 * leaves the window. While it is blocked its requests are refused before the key is looked up, so a
 * guesser learns nothing about the keys it sends and makes at most `maxFailures` checks per window.
 *
 * The one exception: a key that already succeeded from that address is let through (its digest is
 * remembered, a few per address). The server usually listens on loopback, where every client has the
 * same address; a script sending a wrong key must not lock out the user's working MCP client. A guessed
 * key is never among those, so this opens nothing to a guesser. Successes do not reset the count.
 *
 * Only requests that present a Bearer key count: one without a key (or with another scheme) is refused
 * without a key lookup, so it tests nothing. IPv6 addresses count per /64 (one host usually holds a whole
 * /64). The state is an in-memory map of at most `maxAddresses` addresses; the one seen least recently is
 * forgotten first. The success path only reads and updates that map: no delay is ever added.
 */
import { isIP } from 'node:net';
import { type ErrorBody, UnauthenticatedError } from '../domain/errors.js';
import { hashApiKey } from '../service/acting-user.js';

export interface AuthThrottleOptions {
  /** Failed key checks an address may make within the window (default 20). */
  maxFailures?: number;
  /** How long a failure counts, in milliseconds (default 60 s). */
  windowMs?: number;
  /** Addresses remembered at once (default 10,000). */
  maxAddresses?: number;
  /** Keys remembered per address as having succeeded from it (default 8). */
  maxKnownKeys?: number;
  now?: () => number;
}

/** The authenticated value, or how long the address must wait. */
export type Admission<T> = { admitted: true; value: T } | { admitted: false; retryAfterSeconds: number };

interface AddressRecord {
  /** When the failures still counted happened, oldest first (at most maxFailures). */
  failures: number[];
  /** Checks of keys not known to have succeeded from this address, under way: each may yet fail. */
  checking: number;
  /** Digests of the keys that succeeded from this address, oldest first. */
  knownKeys: string[];
}

/** Client address of a request served by @hono/node-server; in-process requests have none. */
export function clientAddress(env: unknown): string {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'unknown';
}

/** The eight 16-bit groups of an IPv6 address (zone dropped, a dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group, 16));
}

/** What counts as one client: an IPv4 address (IPv4-mapped ones too), or an IPv6 /64. */
export function addressGroup(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

export class AuthThrottle {
  private readonly records = new Map<string, AddressRecord>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly maxAddresses: number;
  private readonly maxKnownKeys: number;
  private readonly now: () => number;

  constructor(options: AuthThrottleOptions = {}) {
    this.maxFailures = options.maxFailures ?? 20;
    this.windowMs = options.windowMs ?? 60_000;
    this.maxAddresses = options.maxAddresses ?? 10_000;
    this.maxKnownKeys = options.maxKnownKeys ?? 8;
    this.now = options.now ?? Date.now;
  }

  /** Addresses currently remembered. */
  get size(): number {
    return this.records.size;
  }

  /**
   * Runs `check` (which rejects with UnauthenticatedError for a bad key) unless the address is blocked,
   * and counts its outcome. Other errors pass through uncounted. A check under way counts against the
   * limit until it succeeds, so that guesses sent all at once make no more checks than guesses in turn.
   */
  async authenticate<T>(
    address: string,
    apiKey: string | undefined,
    check: () => Promise<T>,
  ): Promise<Admission<T>> {
    const group = addressGroup(address);
    const now = this.now();
    const record = this.touch(group, now);
    const digest = apiKey === undefined ? undefined : hashApiKey(apiKey);
    const known = digest !== undefined && record?.knownKeys.includes(digest) === true;
    if (record && !known && record.failures.length + record.checking >= this.maxFailures) {
      const freeAt = (record.failures[0] ?? now) + this.windowMs;
      return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now) / 1000)) };
    }
    const counted = digest !== undefined && !known ? (record ?? this.remember(group)) : undefined;
    if (counted) counted.checking++;
    let value: T;
    try {
      value = await check();
    } catch (error) {
      if (error instanceof UnauthenticatedError && counted) {
        counted.failures.push(now);
        if (counted.failures.length > this.maxFailures) counted.failures.shift();
      }
      throw error;
    } finally {
      if (counted) counted.checking--;
    }
    if (counted && !counted.knownKeys.includes(digest!)) {
      counted.knownKeys.push(digest!);
      if (counted.knownKeys.length > this.maxKnownKeys) counted.knownKeys.shift();
    }
    return { admitted: true, value };
  }

  /** The address's record with expired failures dropped, moved to the most recent end of the map. */
  private touch(group: string, now: number): AddressRecord | undefined {
    const record = this.records.get(group);
    if (!record) return undefined;
    const cutoff = now - this.windowMs;
    while (record.failures.length > 0 && record.failures[0]! <= cutoff) record.failures.shift();
    this.records.delete(group);
    this.records.set(group, record);
    return record;
  }

  private remember(group: string): AddressRecord {
    const record: AddressRecord = { failures: [], checking: 0, knownKeys: [] };
    this.records.set(group, record);
    if (this.records.size > this.maxAddresses) {
      this.records.delete(this.records.keys().next().value!);
    }
    return record;
  }
}

/** The 429 answer of a blocked address, in the spec's error body shape, for /v1 and /mcp alike. */
export function tooManyAttemptsResponse(retryAfterSeconds: number): Response {
  const seconds = `${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`;
  const body: ErrorBody = {
    status: 'error',
    message: 'Too Many Attempts.',
    errors: {
      authorization: `Too many failed API key attempts from this address; try again in ${seconds}.`,
    },
  };
  return new Response(JSON.stringify(body), {
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': String(retryAfterSeconds) },
  });
}
