#!/usr/bin/env node
/**
 * The program's entry: turns on Node's compile cache (Node >= 22.1: compiled code is kept on disk, so a
 * start does not compile the program again), then loads the program. Everything else is in main.ts.
 */
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import('./main.js');
