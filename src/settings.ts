/**
 * The settings read from the environment (and DATA_DIR/publisher.json), each checked with a message that
 * names the variable and what it accepts; config.ts assembles them with the command line.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { Config, PublisherConfig } from './config.js';
import { parseReadOnly, parseToolsets, type ToolSelection } from './mcp/toolsets.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
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

export function parseToolSelection(env: NodeJS.ProcessEnv): ToolSelection {
  try {
    // A bundle host leaves an unset setting as its `${user_config.…}` placeholder: unset.
    const toolsets = parseToolsets(nonEmpty(env.SOCIAL_PUBLISHER_TOOLSETS));
    const readOnly = parseReadOnly(nonEmpty(env.SOCIAL_PUBLISHER_READ_ONLY));
    return { readOnly, ...(toolsets ? { toolsets } : {}) };
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
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

/** Whole seconds from 2 (renewals come every third of it) to an hour. */
export function parseDatabase(env: NodeJS.ProcessEnv, apiUrl: string | undefined): Config['database'] {
  const url = nonEmpty(env.SOCIAL_PUBLISHER_DATABASE_URL);
  const pool = nonEmpty(env.SOCIAL_PUBLISHER_DATABASE_POOL_SIZE);
  if (url === undefined) {
    if (pool !== undefined)
      throw new ConfigError(
        'SOCIAL_PUBLISHER_DATABASE_POOL_SIZE applies to PostgreSQL: set SOCIAL_PUBLISHER_DATABASE_URL too.',
      );
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
  return { url, poolSize };
}

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

/** The environment wins over `publisher.json` in the data directory; neither means the sandbox. */
export function loadPublisherConfig(env: NodeJS.ProcessEnv, dataDir: string): PublisherConfig {
  let file: { webhookUrl?: unknown; webhookSecret?: unknown } = {};
  const path = join(dataDir, 'publisher.json');
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as typeof file;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConfigError(`Cannot read ${path}: ${(error as Error).message}`);
    }
  }
  const url =
    nonEmpty(env.SOCIAL_PUBLISHER_WEBHOOK_URL) ??
    (typeof file.webhookUrl === 'string' ? file.webhookUrl : undefined);
  const secret =
    nonEmpty(env.SOCIAL_PUBLISHER_WEBHOOK_SECRET) ??
    (typeof file.webhookSecret === 'string' ? file.webhookSecret : undefined);
  if (url === undefined && secret === undefined) return { kind: 'sandbox' };
  if (url === undefined || !/^https?:\/\/\S+$/.test(url)) {
    throw new ConfigError('The webhook publisher needs an http(s) URL: set SOCIAL_PUBLISHER_WEBHOOK_URL.');
  }
  if (secret === undefined || secret.length < 16) {
    throw new ConfigError(
      'The webhook publisher needs a secret of at least 16 characters: set SOCIAL_PUBLISHER_WEBHOOK_SECRET.',
    );
  }
  return { kind: 'webhook', url, secret };
}
