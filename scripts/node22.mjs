#!/usr/bin/env node
/**
 * Prints the path of a Node >= 22.13 binary, installing the `node@22` npm package into
 * node_modules/.cache/node22 on first use (scripts/node-version.mjs). Some checks need it: the MCP bundle
 * runs on node:sqlite (no native addon), and the MCP conformance suite needs Node 22. The running Node is
 * used when it is new enough; SOCIAL_PUBLISHER_NODE22 may name a binary instead.
 */
import { fileURLToPath } from 'node:url';
import { nodeBinary, versionOf } from './node-version.mjs';

function newEnough(version) {
  const [major, minor] = versionOf(version);
  return major > 22 || (major === 22 && minor >= 13);
}

export function node22() {
  return newEnough(process.version) ? process.execPath : nodeBinary(22, 13);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${node22()}\n`);
}
