#!/usr/bin/env node
/**
 * Installs the agent frameworks (Vercel AI SDK, LangChain) that test/frameworks loads our tools through
 * (`npm ci` in test/frameworks). They live in a package folder of their own so that a user's `npm ci` of
 * the server stays small and fast. The AI SDK stays on its v6 line (`ai` 7 needs Node 22), and package.json
 * overrides @ai-sdk/provider-utils to one copy: each @ai-sdk package pins its own patch of it, and two
 * copies make their tool types incompatible (each has its own unique symbol).
 *
 *   node test/frameworks/install.mjs        # then: npx vitest run test/frameworks/
 */
import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const started = Date.now();
execFileSync('npm', ['ci', '--no-audit', '--no-fund'], {
  cwd: dirname(fileURLToPath(import.meta.url)),
  stdio: ['ignore', 'inherit', 'inherit'],
});
console.error(`test/frameworks installed in ${Math.round((Date.now() - started) / 1000)} s.`);
