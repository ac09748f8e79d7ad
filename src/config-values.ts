/**
 * The values of the settings, checked: text in (as config.ts read it from the environment), a value out,
 * or a ConfigError that names the setting and says what it takes.
 */
import { isIP } from 'node:net';

export class ConfigError extends Error {
  override name = 'ConfigError';
  /** The exit status of the command it stops: 1, or 2 when it needs an answer it could not ask for. */
  exitCode = 1;
}

/**
 * Empty means unset. So does an unexpanded `${user_config.x}` placeholder: an MCP bundle host may pass
 * one through when the user left that setting empty.
 */
export function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  if (!trimmed || /^\$\{user_config\.\w+\}$/.test(trimmed)) return undefined;
  return trimmed;
}

export function parseTimeoutSeconds(value: string | undefined): number {
  const text = nonEmpty(value);
  if (text === undefined) return 30;
  const seconds = Number(text);
  if (!/^\d+$/.test(text) || seconds < 1 || seconds > 600) {
    throw new ConfigError(
      `SOCIAL_PUBLISHER_PLATFORM_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 600, not "${text}".`,
    );
  }
  return seconds;
}

/** SOCIAL_PUBLISHER_DATABASE_URL, _POOL_SIZE and _TIMEOUT_SECONDS (absent: SQLite). */
export function parseDatabase(
  url: string | undefined,
  pool: string | undefined,
  timeout: string | undefined,
  apiUrl: string | undefined,
): { url: string; poolSize: number; timeoutMs: number } | undefined {
  if (url === undefined) {
    for (const [value, name] of [
      [pool, 'SOCIAL_PUBLISHER_DATABASE_POOL_SIZE'],
      [timeout, 'SOCIAL_PUBLISHER_DATABASE_TIMEOUT_SECONDS'],
    ] as const) {
      if (value !== undefined)
        throw new ConfigError(`${name} applies to PostgreSQL: set SOCIAL_PUBLISHER_DATABASE_URL too.`);
    }
    return undefined;
  }
  if (!/^postgres(ql)?:\/\/\S+$/.test(url)) {
    throw new ConfigError(
      'SOCIAL_PUBLISHER_DATABASE_URL must be a PostgreSQL URL (postgres://user:password@host:5432/database); unset it to store in SQLite.',
    );
  }
  if (apiUrl !== undefined) {
    throw new ConfigError(
      'SOCIAL_PUBLISHER_DATABASE_URL and SOCIAL_PUBLISHER_API_URL exclude each other: remote mode stores nothing here.',
    );
  }
  const poolSize = pool === undefined ? 10 : Number(pool);
  if (!/^\d+$/.test(pool ?? '10') || poolSize < 1 || poolSize > 1000) {
    throw new ConfigError(
      `SOCIAL_PUBLISHER_DATABASE_POOL_SIZE must be a whole number from 1 to 1000, not "${pool}".`,
    );
  }
  const timeoutSeconds = timeout === undefined ? DATABASE_TIMEOUT_SECONDS : Number(timeout);
  if (!/^\d+$/.test(timeout ?? '10') || timeoutSeconds < 1 || timeoutSeconds > 600) {
    throw new ConfigError(
      `SOCIAL_PUBLISHER_DATABASE_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 600, not "${timeout}".`,
    );
  }
  return { url, poolSize, timeoutMs: timeoutSeconds * 1000 };
}

/**
 * How long a call waits for PostgreSQL (a connection, a statement's answer) before it answers 503: long
 * enough for a statement slowed by load, short enough that a client is not held by a frozen server.
 */
const DATABASE_TIMEOUT_SECONDS = 10;

/** Whole seconds from 2 (renewals come every third of it) to an hour. */
export function parseLeaseSeconds(value: string | undefined): number {
  const text = nonEmpty(value);
  if (text === undefined) return 30;
  const seconds = Number(text);
  if (!/^\d+$/.test(text) || seconds < 2 || seconds > 3600) {
    throw new ConfigError(
      `SOCIAL_PUBLISHER_CLAIM_LEASE_SECONDS must be a whole number of seconds from 2 to 3600, not "${text}".`,
    );
  }
  return seconds;
}

/**
 * Sends mostly wait for their platform's answer (hundreds of ms): a 9:00 burst of 100 brands × 11
 * channels goes out in about one round of answers only when that many can wait at once (bench on-time:
 * p99 55 s after the due second at 8, about 2 s at 1000).
 */
export const DEFAULT_SENDS_IN_FLIGHT = 2000;

/**
 * How many deliveries one process sends at once. A send mostly waits for its platform's answer, so many
 * fit: at a burst's due second each channel's send goes out without waiting for another's.
 */
export function parseSendsInFlight(value: string | undefined): number {
  const text = nonEmpty(value);
  if (text === undefined) return DEFAULT_SENDS_IN_FLIGHT;
  const sends = Number(text);
  if (!/^\d+$/.test(text) || sends < 1 || sends > 10_000) {
    throw new ConfigError(
      `SOCIAL_PUBLISHER_SENDS_IN_FLIGHT must be a whole number from 1 to 10000, not "${text}".`,
    );
  }
  return sends;
}

export function parseDrainSeconds(value: string | undefined): number {
  const text = nonEmpty(value);
  if (text === undefined) return 0;
  const seconds = Number(text);
  if (!/^\d+$/.test(text) || seconds > 300) {
    throw new ConfigError(
      `SOCIAL_PUBLISHER_DRAIN_SECONDS must be a whole number of seconds from 0 to 300, not "${text}".`,
    );
  }
  return seconds;
}

export function parseAllowList(value: string | undefined): string[] {
  const entries = (nonEmpty(value) ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const family = isIP(address ?? '');
    const bits = family === 6 ? 128 : 32;
    if (!family || (prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= bits))) {
      throw new ConfigError(
        `SOCIAL_PUBLISHER_MEDIA_URL_ALLOW: "${entry}" is not an IP address or CIDR range.`,
      );
    }
  }
  return entries;
}

/** An http(s) URL without query or fragment (a path is kept); undefined for anything else. */
export function httpUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash) return undefined;
  return url;
}
