#!/usr/bin/env node
/**
 * The program's entry, dist/main.js. The program itself is one CommonJS file beside it, dist/program.cjs
 * (scripts/build.mjs), which this runs with V8's code cache: after the first start, the compiled code is
 * read from disk, so a start neither parses nor compiles the program. Node 20 has no compile cache of its
 * own, and on Node 22 this is quicker than Node's own for this file; parsing and compiling was a third of
 * what a start cost.
 *
 * The cache is a file per program build, Node version and set of Node options (V8 rejects a cache made
 * under other flags), in a directory of the user's own: NODE_COMPILE_CACHE names one (as for Node's own
 * cache), else `<tmpdir>/social-publisher-mcp-code-cache`. A directory that is not the user's or that
 * others can write is not used (its files would run as this program). The file is written once, when a
 * start found none (or V8 rejected it), at exit: by then it holds every function the run compiled. It is
 * written beside its name and renamed into place, so another start never reads half a file, and it
 * carries a checksum, so a damaged one is compiled anew rather than run. NODE_DISABLE_COMPILE_CACHE=1
 * turns it off. Any failure here only means a slower start.
 */
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';

type CommonJsWrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: { exports: unknown },
  filename: string,
  dirname: string,
) => void;

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
// Built as CommonJS (dist/package.json says so, scripts/build.mjs): an ES module entry would start Node's
// ES module loader and give each node: import a facade of all its exports (node:fs's loads the streams).
const program = join(__dirname, 'program.cjs');
const cacheDir = codeCacheDirectory();
const script = compile(cacheDir && codeCacheFile(cacheDir));
// The chunks the program requires when it first uses them (scripts/build.mjs) are read by Node's own
// loader, which keeps a code cache of its own from Node 22.8; Node 20 compiles them at each use.
if (cacheDir) {
  (nodeModule as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache?.(
    join(cacheDir, 'chunks'),
  );
}
const module = { exports: {} };
(script.runInThisContext() as CommonJsWrapper).call(
  module.exports,
  module.exports,
  nodeModule.createRequire(program),
  module,
  program,
  dirname(program),
);

/**
 * The program compiled, from the cache when there is one. What was read to compile it (the source as
 * read, the cache's bytes) is not kept once compiled: only the compiled script, which holds the source
 * it needs. The file is the function itself, Node's CommonJS wrapper included, so the text read is the
 * script's source as it is, not a copy.
 */
function compile(cacheFile: string | undefined): Script {
  // The build writes ASCII only (scripts/build.mjs checks), so latin1 decodes it exactly and fastest.
  const source = readFileSync(program, 'latin1');
  const cachedData = cacheFile ? readCache(cacheFile) : undefined;
  // The build wrote it wrapped, as Node's CommonJS wrapper would (scripts/build.mjs).
  const compiled = new Script(source, {
    filename: program,
    cachedData,
  });
  if (cacheFile && (!cachedData || compiled.cachedDataRejected)) {
    process.once('exit', () => writeCache(cacheFile, compiled));
  }
  return compiled;
}

/** The directory of the code caches, or undefined when there are to be none. */
function codeCacheDirectory(): string | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const dir = process.env.NODE_COMPILE_CACHE || join(tmpdir(), 'social-publisher-mcp-code-cache');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const owner = lstatSync(dir);
    // POSIX: the user's own, and no one else may write to it. Windows has neither (its temp directory
    // is the user's own).
    const uid = process.getuid?.();
    const foreign = uid !== undefined && (owner.uid !== uid || (owner.mode & 0o022) !== 0);
    return owner.isDirectory() && !foreign ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** The cache file for this build of the program on this Node, or undefined when there is to be none. */
function codeCacheFile(dir: string): string | undefined {
  try {
    const built = statSync(program);
    // V8 rejects a cache made under other flags: starts with and without some would replace each other's.
    const flags = `${process.execArgv.join(' ')}|${process.env.NODE_OPTIONS ?? ''}`;
    const key = `${program}|${built.size}|${built.mtimeMs}|${process.version}|${process.arch}|${flags}`;
    return join(dir, `program-${built.size}-${fnv1a(key)}.v8`);
  } catch {
    return undefined;
  }
}

/**
 * The cache's payload, when the file holds one whole: V8 checks that a cache belongs to this source and
 * this V8, but in a release build it does not check the payload, and a damaged one can crash the
 * process. So the file starts with the payload's CRC-32.
 */
function readCache(file: string): Buffer | undefined {
  try {
    const stored = readFileSync(file);
    const payload = stored.subarray(4);
    return stored.length > 4 && stored.readUInt32LE(0) === crc32(payload) ? payload : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the cache, and removes the caches of builds that have not been written for a week. */
function writeCache(file: string, compiled: Script): void {
  try {
    const partial = `${file}.${process.pid}`;
    const payload = compiled.createCachedData();
    const header = Buffer.alloc(4);
    header.writeUInt32LE(crc32(payload));
    writeFileSync(partial, Buffer.concat([header, payload]), { mode: 0o600 });
    renameSync(partial, file);
    const dir = dirname(file);
    for (const name of readdirSync(dir)) {
      const other = join(dir, name);
      if (/^program-.*\.v8$/.test(name) && other !== file && statSync(other).mtimeMs < Date.now() - WEEK_MS) {
        rmSync(other, { force: true });
      }
    }
  } catch {
    // A read-only or full disk: the next start compiles again.
  }
}

/** 32-bit FNV-1a, as hex: names the cache file without loading node:crypto. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
