#!/usr/bin/env node
/**
 * Builds the program into dist/: the whole program as one CommonJS file, dist/program.cjs (esbuild), and
 * its entry, dist/main.js (src/launch.ts), which runs it with V8's code cache. A start reads one file
 * instead of resolving and reading hundreds of modules, and after the first start compiles none of it.
 *
 *   node scripts/build.mjs [--outdir DIR]
 *
 * The native SQLite addon for Node < 22.13 stays a package in node_modules (loaded only there); every
 * other dependency is inside dist/. Type checking is `npm run typecheck`'s job, not this one's.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { CHUNKS } from './chunks.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { outdir: { type: 'string', default: join(ROOT, 'dist') } } });
const outdir = values.outdir;

/**
 * Packages that stay in node_modules: the SQLite addon of Node < 22.13, found by `require` at run time;
 * and pg-native, which pg requires only when asked for its native binding (never here, and not installed).
 */
export const EXTERNAL = ['@photostructure/sqlite', 'pg-native'];

/**
 * Every tool's tools/list entry, derived from the zod schemas once here rather than at each start:
 * src/mcp/tool-list.ts, bundled on its own and run, gives the list the program then carries.
 */
async function toolList() {
  const generator = await build({
    absWorkingDir: ROOT,
    stdin: {
      contents:
        "import { listedTools } from './src/mcp/tool-list.ts'; import { TOOLS } from './src/mcp/registry.ts'; export default listedTools(TOOLS);",
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    external: EXTERNAL,
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    write: false,
    logLevel: 'warning',
  });
  const dir = mkdtempSync(join(tmpdir(), 'spm-build-'));
  try {
    const file = join(dir, 'tool-list.mjs');
    writeFileSync(file, generator.outputFiles[0].text);
    return (await import(pathToFileURL(file).href)).default;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The SDK's server imports its default JSON Schema validator (ajv, with its formats, bundled into the
 * SDK) through its `_shims` module, for servers given none; ours are always given one that loads ajv on
 * first use (src/mcp/json-schema-validator.ts). That import alone would load ajv at every start, so in
 * the build the shim gets a stand-in (src/mcp/sdk-shims.ts).
 */
const withoutSdkDefaultValidator = {
  name: 'without-sdk-default-validator',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
      path: join(ROOT, 'src', 'mcp', 'sdk-shims.ts'),
    }));
  },
};

/** CHUNKS packages that only an `import` reaches (no `require` in their exports). */
const ES_MODULES_ONLY = new Set(['file-type']);

/** Imports of the CHUNKS packages (other than `own`, the chunk being built) as requires of their files. */
function requireChunks(own) {
  const names = Object.keys(CHUNKS).filter((name) => name !== own);
  const filter = new RegExp(`^(${names.map((name) => name.replace(/[/.]/g, '\\$&')).join('|')})$`);
  return {
    name: 'require-chunks',
    setup(build) {
      build.onResolve({ filter }, (args) => ({
        path: own ? `./${CHUNKS[args.path]}.cjs` : `./chunks/${CHUNKS[args.path]}.cjs`,
        external: true,
      }));
    },
  };
}

/**
 * zod's locales, English only: zod re-exports all of them (300 KB, about 40 languages) as `z.locales`,
 * and the program uses only the English one zod sets itself.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-locales' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
    }));
  },
};

/** Node's CommonJS wrapper (Module.wrapper), which src/launch.ts relies on the file having. */
const PROGRAM_WRAPPER = ['(function (exports, require, module, __filename, __dirname) { ', '\n});'];

rmSync(outdir, { recursive: true, force: true });
const started = performance.now();
const tools = await toolList();
// The program: one CommonJS file. Lazily imported parts stay lazy (esbuild evaluates a dynamically
// imported module on first import), and the one file is what the entry keeps in V8's code cache.
/** What the program and its chunks are built as: CommonJS files for Node 20.19 and later. */
const BUNDLED = {
  absWorkingDir: ROOT,
  outdir,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  external: EXTERNAL,
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
};
const result = await build({
  ...BUNDLED,
  entryPoints: { program: 'src/main.ts' },
  charset: 'ascii',
  plugins: [withoutSdkDefaultValidator, requireChunks(), zodEnglishOnly],
  define: {
    __TOOL_LIST__: JSON.stringify(JSON.stringify(tools)),
    __VERSION__: JSON.stringify(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version),
    'import.meta.url': '__import_meta_url',
  },
  banner: { js: "var __import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
  metafile: true,
});
// The entry that runs it with V8's code cache (src/launch.ts): Node's modules only. CommonJS, which
// dist/package.json declares for dist/main.js: an ES module entry costs a start Node's ES module loader
// and a facade of every export of each node: module it imports (node:fs's loads the streams), about 5 ms.
await build({
  absWorkingDir: ROOT,
  entryPoints: { main: 'src/launch.ts' },
  outdir,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  minifySyntax: true,
  logLevel: 'warning',
});
// The chunks: each one's module.exports is what `require` of its package gives; for a package that is
// only an ES module (file-type), its namespace.
const chunkEntry = {
  name: 'chunk-entry',
  setup(build) {
    build.onResolve({ filter: /^chunk:/ }, (args) => ({ path: args.path.slice(6), namespace: 'chunk' }));
    build.onLoad({ filter: /.*/, namespace: 'chunk' }, (args) => ({
      contents: ES_MODULES_ONLY.has(args.path)
        ? `export * from ${JSON.stringify(args.path)};`
        : `module.exports = require(${JSON.stringify(args.path)});`,
      resolveDir: ROOT,
    }));
  },
};
for (const [name, file] of Object.entries(CHUNKS)) {
  await build({
    ...BUNDLED,
    entryPoints: { [`chunks/${file}`]: `chunk:${name}` },
    plugins: [chunkEntry, requireChunks(name)],
  });
}
writeFileSync(join(outdir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
const programFile = join(outdir, 'program.cjs');
let code = readFileSync(programFile, 'utf8');
// The entry wraps the file as a function, where a #! line would not parse: it becomes a comment (the
// same line, so the source map still fits).
if (code.startsWith('#!')) code = `//${code.slice(2)}`;
// It reads the file as latin1 (a one-byte string, decoded fastest), so it must be ASCII. esbuild's
// charset: 'ascii' escapes strings and names but leaves a few regular expression literals as written;
// there a \uXXXX escape per UTF-16 unit means the same, with or without the u flag.
if (/\\[\u0080-\uffff]/.test(code)) throw new Error('dist/program.cjs escapes a non-ASCII character itself');
code = code.replace(/[\u0080-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
// Written as the function the entry calls, Node's CommonJS wrapper around it (on its first line, as Node
// puts it, so the source map still fits): the entry compiles the file's text as read, where wrapping it
// at each start made a second, flat copy of all 4.7 MB that the program then kept.
writeFileSync(programFile, `${PROGRAM_WRAPPER[0]}${code}${PROGRAM_WRAPPER[1]}`);
if (/\bimport\(/.test(code)) {
  throw new Error('dist/program.cjs still has an import(): a script run by node:vm cannot import');
}
const bytes = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith('program.cjs'))[1].bytes;
process.stderr.write(
  `built ${relative(ROOT, join(outdir, 'main.js'))}, ${relative(ROOT, programFile)} (${Math.round(bytes / 1024)} KB) and ${Object.keys(CHUNKS).length} chunks in ${Math.round(performance.now() - started)} ms\n`,
);
