#!/usr/bin/env node
/**
 * Run by `prepare` (so by `npm ci`): on a Node without node:sqlite (before 22.13), opens a database in
 * memory with @photostructure/sqlite, the driver the program will use there (src/store/sqlite/driver.ts),
 * so that an install that leaves the program unable to start fails here, saying why and what to do,
 * instead of at `npm start`. That happens where npm skipped the optional package: a platform it has no
 * binary for, or `--omit=optional`. Prints nothing when all is well.
 */
import { createRequire } from 'node:module';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  try {
    const { DatabaseSync } = createRequire(import.meta.url)('@photostructure/sqlite');
    new DatabaseSync(':memory:').close();
  } catch (error) {
    process.stderr.write(
      `\nsocial-publisher-mcp: this Node (${process.version}) has no built-in node:sqlite, and its replacement, the optional dependency @photostructure/sqlite, cannot be loaded (${error.message.split('\n')[0]}). The program could not start. Use Node >= 22.13 (then nothing else is needed), or run "npm ci" again, without --omit=optional, on a platform that package ships binaries for (Linux, macOS or Windows, x64 or arm64).\n\n`,
    );
    process.exitCode = 1;
  }
}
