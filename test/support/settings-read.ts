/**
 * The SOCIAL_PUBLISHER_* variables the program reads (`env.SOCIAL_PUBLISHER_X` or
 * `env['SOCIAL_PUBLISHER_X']` anywhere in src/), and which of them the installs offer: the MCP Registry's
 * server.json and the bundle's manifest.json list the settings a person running the stdio server sets,
 * and leave out, each for the reason given here, those of `serve` deployments and tuning.
 * test/readme.test.ts, test/server-json.test.ts and test/manifest.test.ts hold the docs and both files to it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The text of every TypeScript file under src/. */
export const SOURCES = sourceFiles(join(ROOT, 'src')).map((path) => readFileSync(path, 'utf8'));
export const VARIABLE = /SOCIAL_PUBLISHER_[A-Z0-9_]+/g;
export const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

/** The variables the code reads, sorted. */
export const SETTINGS_READ = sorted(
  SOURCES.flatMap((text) =>
    [...text.matchAll(/\benv(?:\.|\[['"])(SOCIAL_PUBLISHER_[A-Z0-9_]+)/g)].map((match) => match[1]!),
  ),
);

/**
 * What server.json and manifest.json leave out, and why (docs/decisions.md, "server.json for the MCP
 * Registry"). Every other variable read is offered by both. (SOCIAL_PUBLISHER_<APP>_CLIENT_ID and
 * _CLIENT_SECRET are read by computed names, so not in SETTINGS_READ: both leave them to
 * DATA_DIR/apps.json, which one file holds for all eight apps.)
 */
export const NOT_OFFERED_BY_INSTALLS: Readonly<Record<string, string>> = {
  SOCIAL_PUBLISHER_DATABASE_URL:
    'several `serve` instances on PostgreSQL (docs/deploy.md), not one stdio server',
  SOCIAL_PUBLISHER_DATABASE_POOL_SIZE: 'PostgreSQL deployments only',
  SOCIAL_PUBLISHER_DATABASE_TIMEOUT_SECONDS: 'PostgreSQL deployments only',
  SOCIAL_PUBLISHER_PUBLIC_URL: '`serve` only: the stdio server has no public address',
  SOCIAL_PUBLISHER_DRAIN_SECONDS: '`serve` only: shutdown behind a load balancer',
  SOCIAL_PUBLISHER_CLAIM_LEASE_SECONDS: 'tuning of several processes on one store; the default suits',
  SOCIAL_PUBLISHER_SENDS_IN_FLIGHT: 'tuning for a slow webhook receiver; the default suits',
  SOCIAL_PUBLISHER_PLATFORM_TIMEOUT_SECONDS: 'tuning; the default suits',
  SOCIAL_PUBLISHER_MEDIA_URL_ALLOW: "an operator's exception for media on private networks",
  SOCIAL_PUBLISHER_SECRET_KEY: 'the key file made in the data directory on the first start serves',
  SOCIAL_PUBLISHER_DEMO:
    'a first start shows the demo; a workspace of your own comes with `import`, on the command line',
};

/** The variables server.json and manifest.json offer, sorted. */
export const SETTINGS_OFFERED = SETTINGS_READ.filter((name) => !(name in NOT_OFFERED_BY_INSTALLS));
