#!/usr/bin/env node
/**
 * Builds the program into dist/: one bundled file, dist/main.js, with what it loads up front, and a
 * chunk per lazily imported part under dist/chunks/ (esbuild, code splitting). A start reads one file
 * instead of resolving and reading hundreds of modules, which is most of what a start costs.
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
 * The SDK's server imports its default JSON Schema validator (ajv, with its formats) for servers given
 * none; ours are always given one that loads ajv on first use (src/mcp/json-schema-validator.ts). That
 * import alone would load and set up ajv at every start, so in the build it gets a stand-in.
 */
const withoutSdkDefaultValidator = {
  name: 'without-sdk-default-validator',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/validation\/ajv-provider\.js$/ }, (args) =>
      /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]index\.js$/.test(args.importer)
        ? { path: join(ROOT, 'src', 'mcp', 'sdk-default-validator.ts') }
        : undefined,
    );
  },
};

rmSync(outdir, { recursive: true, force: true });
const started = performance.now();
const tools = await toolList();
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: { main: 'src/launch.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  chunkNames: 'chunks/[name]-[hash]',
  external: EXTERNAL,
  plugins: [withoutSdkDefaultValidator],
  define: {
    __TOOL_LIST__: JSON.stringify(JSON.stringify(tools)),
    __VERSION__: JSON.stringify(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version),
  },
  // CommonJS dependencies inside an ES module still call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
});
const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js'));
const main = outputs.find(([file]) => file.endsWith('main.js'));
process.stderr.write(
  `built ${relative(ROOT, join(outdir, 'main.js'))} (${Math.round(main[1].bytes / 1024)} KB) and ${outputs.length - 1} chunks in ${Math.round(performance.now() - started)} ms\n`,
);
