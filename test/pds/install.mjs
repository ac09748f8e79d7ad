#!/usr/bin/env node
/**
 * Installs the test PDS (`npm ci` in test/pds) for the Node 22 that runs it. The PDS stores on SQLite
 * through better-sqlite3, a native addon built for one Node ABI: installed under the Node that runs
 * `npm test` (20), it would not load under Node 22. So npm runs here with Node 22 first on the PATH, and,
 * when Node 22's headers are at hand, with `npm_config_nodedir` pointing at them, so that a build from
 * source (no prebuilt binary can be downloaded offline) compiles against Node 22 rather than whatever
 * headers an .npmrc names.
 *
 *   node test/pds/install.mjs        # then: npx vitest run test/publish/bluesky-connector.test.ts
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { node22 } from '../../scripts/node22.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The folder holding `include/node/node.h` of the Node 22 at `binary`: beside an ordinary install
 * (`<prefix>/bin/node`), or in the platform package of npm's `node` package (what node22.mjs installs).
 */
function headersOf(binary) {
  const prefix = dirname(dirname(binary));
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const candidates = [prefix, join(prefix, 'node_modules', `node-${platform}-${process.arch}`)];
  return candidates.find((dir) => existsSync(join(dir, 'include', 'node', 'node.h')));
}

const binary = node22();
const env = { ...process.env, PATH: `${dirname(binary)}${delimiter}${process.env.PATH ?? ''}` };
const headers = headersOf(binary);
if (headers) env.npm_config_nodedir = headers;
const started = Date.now();
execFileSync('npm', ['ci', '--no-audit', '--no-fund'], {
  cwd: here,
  env,
  stdio: ['ignore', 'inherit', 'inherit'],
});
console.error(
  `test/pds installed for ${execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim()} in ${Math.round((Date.now() - started) / 1000)} s.`,
);
