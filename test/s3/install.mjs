#!/usr/bin/env node
/**
 * Installs the S3-compatible server the object-storage tests run against (`npm ci` in test/s3):
 * @20minutes/s3rver, a maintained fork of s3rver that checks SigV4 signatures (header and presigned)
 * and the expiry of presigned addresses, keeping objects in a directory. It lives in a package folder
 * of its own so that a user's `npm ci` of the server stays small.
 *
 *   node test/s3/install.mjs        # then: npx vitest run test/s3
 */
import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const started = Date.now();
execFileSync('npm', ['ci', '--no-audit', '--no-fund'], {
  cwd: dirname(fileURLToPath(import.meta.url)),
  stdio: ['ignore', 'inherit', 'inherit'],
});
console.error(`test/s3 installed in ${Math.round((Date.now() - started) / 1000)} s.`);
