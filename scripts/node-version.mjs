#!/usr/bin/env node
/**
 * Prints the path of a Node binary of one major version, installing the `node@<major>` npm package into
 * node_modules/.cache/node<major> on first use (the npm registry is all it needs). Some checks run under
 * other Nodes than the one running them: the supported versions (20.19+, 22, 24), the MCP bundle and the
 * conformance suite (Node >= 22.13).
 *
 *   node scripts/node-version.mjs 24        # the path of a Node 24
 *
 * The running Node is used when it is of that major version; SOCIAL_PUBLISHER_NODE<major> (e.g.
 * SOCIAL_PUBLISHER_NODE24) may name a binary instead.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** [major, minor] of a version string such as "v22.13.1". */
export function versionOf(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  return [major, minor];
}

/** The version a Node binary reports, e.g. "v24.1.0". */
export function versionOfBinary(binary) {
  return execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
}

/**
 * The path of a Node binary of `major` (at least `major.minor`), installed once into
 * node_modules/.cache/node<major>: the newest release of that major version.
 */
export function nodeBinary(major, minor = 0) {
  const [runningMajor, runningMinor] = versionOf(process.version);
  if (runningMajor === major && runningMinor >= minor) return process.execPath;
  const chosen = process.env[`SOCIAL_PUBLISHER_NODE${major}`];
  if (chosen) return chosen;
  const prefix = join(root, 'node_modules', '.cache', `node${major}`);
  const binary = join(
    prefix,
    'node_modules',
    'node',
    'bin',
    process.platform === 'win32' ? 'node.exe' : 'node',
  );
  if (!existsSync(binary)) {
    mkdirSync(prefix, { recursive: true });
    // The package installs the binary in its preinstall script: allowed here, so that npm has no notice
    // to print about it.
    writeFileSync(
      join(prefix, 'package.json'),
      `${JSON.stringify({ private: true, allowScripts: { node: true } })}\n`,
    );
    execFileSync(
      'npm',
      ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `node@${major}`],
      { stdio: ['ignore', 'ignore', 'inherit'], shell: process.platform === 'win32' },
    );
  }
  const version = versionOfBinary(binary);
  const [binaryMajor, binaryMinor] = versionOf(version);
  if (binaryMajor !== major || binaryMinor < minor) {
    throw new Error(`${binary} is ${version}, not Node ${major}.${minor} or a later ${major}.x`);
  }
  return binary;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const major = Number(process.argv[2]);
  if (!Number.isInteger(major) || major < 1) {
    process.stderr.write('usage: node scripts/node-version.mjs MAJOR (e.g. 24)\n');
    process.exit(2);
  }
  process.stdout.write(`${nodeBinary(major)}\n`);
}
