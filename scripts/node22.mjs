#!/usr/bin/env node
/**
 * Prints the path of a Node >= 22.13 binary, installing the `node@22` npm package into
 * node_modules/.cache/node22 on first use. Some checks need it: the MCP bundle runs on node:sqlite (no
 * native addon), and the MCP conformance suite needs Node 22. The running Node is used when it is new
 * enough; SOCIAL_PUBLISHER_NODE22 may name a binary instead.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function newEnough(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 13);
}

export function node22() {
  if (newEnough(process.version)) return process.execPath;
  if (process.env.SOCIAL_PUBLISHER_NODE22) return process.env.SOCIAL_PUBLISHER_NODE22;
  const prefix = join(root, 'node_modules', '.cache', 'node22');
  const binary = join(
    prefix,
    'node_modules',
    'node',
    'bin',
    process.platform === 'win32' ? 'node.exe' : 'node',
  );
  if (!existsSync(binary)) {
    mkdirSync(prefix, { recursive: true });
    execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', 'node@22'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  if (!newEnough(version)) throw new Error(`${binary} is ${version}, not >= 22.13`);
  return binary;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${node22()}\n`);
}
