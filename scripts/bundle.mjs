#!/usr/bin/env node
/**
 * Builds the MCP Bundle (.mcpb) from the built program (run "npm run build" first; "npm run bundle" does).
 *
 *   node scripts/bundle.mjs [--stage DIR] [--out FILE]
 *
 * 1. `mcpb validate manifest.json`, and the manifest agrees with package.json and dist/.
 * 2. Stages a clean directory (default build/bundle/): manifest.json, README.md, LICENSE (if any), the
 *    icons the manifest names (assets/icon.png: `npm run icon`), a runtime package.json and the bundled dist/ (scripts/build.mjs: every dependency is inside it), without
 *    source maps. No node_modules (test/bundle/ runs the unpacked bundle without any). So no SQLite addon: the bundle
 *    runs on the host's Node >= 22.13 and its built-in node:sqlite, because native addons break in Claude
 *    Desktop (see "Storage" in the product spec).
 * 3. Fails if a native addon slipped in (a .node file, a binding.gyp, a build/Release or prebuilds folder).
 * 4. `mcpb pack` into social-publisher-mcp-<version>.mcpb at the repository root (default), and prints
 *    its path and size.
 *
 * Needs nothing but the npm registry (or npm's cache). Exits non-zero with a message on any failure.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The @anthropic-ai/mcpb command-line program (a devDependency), run with the current Node. */
export function mcpbCli() {
  const dir = join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb');
  const pkgFile = join(dir, 'package.json');
  if (!existsSync(pkgFile)) throw new BundleError('@anthropic-ai/mcpb is not installed: run "npm ci".');
  const { bin } = JSON.parse(readFileSync(pkgFile, 'utf8'));
  return join(dir, typeof bin === 'string' ? bin : bin.mcpb);
}

class BundleError extends Error {
  name = 'BundleError';
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

function run(command, args, options = {}) {
  try {
    execFileSync(command, args, {
      stdio: ['ignore', 2, 2], // stdout carries only the bundle's path
      shell: process.platform === 'win32' && command === 'npm',
      ...options,
    });
  } catch (error) {
    throw new BundleError(`${command} ${args.join(' ')} failed (${error.status ?? error.code}).`);
  }
}

function mcpb(args, options) {
  run(process.execPath, [mcpbCli(), ...args], options);
}

/** Every file under `dir`, as absolute paths. */
function walk(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

function checkManifest(manifest, pkg) {
  const problems = [];
  if (manifest.name !== pkg.name)
    problems.push(`name "${manifest.name}" is not package.json's "${pkg.name}"`);
  if (manifest.version !== pkg.version) {
    problems.push(`version "${manifest.version}" is not package.json's "${pkg.version}"`);
  }
  const entry = manifest.server?.entry_point;
  if (!entry || !existsSync(join(ROOT, entry))) {
    problems.push(`server.entry_point "${entry}" does not exist: run "npm run build"`);
  }
  const args = manifest.server?.mcp_config?.args ?? [];
  if (!args.includes(`\${__dirname}/${entry}`)) {
    problems.push(`server.mcp_config.args do not start \${__dirname}/${entry}`);
  }
  const node = manifest.compatibility?.runtimes?.node ?? '';
  const [major, minor] = (node.match(/>=\s*(\d+)\.(\d+)/) ?? []).slice(1).map(Number);
  if (!(major > 22 || (major === 22 && minor >= 13))) {
    problems.push(
      `compatibility.runtimes.node "${node}" must require >= 22.13 (node:sqlite, no native addon)`,
    );
  }
  if (problems.length > 0) throw new BundleError(`manifest.json: ${problems.join('; ')}.`);
}

/** The image files the manifest names (`icon`, `icons[].src`), relative to the repository root. */
function iconFiles(manifest) {
  const files = [manifest.icon, ...(manifest.icons ?? []).map((icon) => icon.src)].filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(ROOT, file)))
      throw new BundleError(`manifest.json names ${file}, which does not exist.`);
  }
  return [...new Set(files)];
}

/** dist/ without source maps: the bundled program (scripts/build.mjs empties dist/ before it writes). */
function copyDist(stage) {
  cpSync(join(ROOT, 'dist'), join(stage, 'dist'), {
    recursive: true,
    filter: (source) => !source.endsWith('.map'),
  });
}

/** A native addon anywhere in the staged directory: .node files, node-gyp inputs or outputs, prebuilds. */
export function nativeArtifacts(dir) {
  const found = [];
  const visit = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      const rel = relative(dir, full);
      if (entry.isDirectory()) {
        if (entry.name === '@photostructure' || entry.name === 'better-sqlite3' || entry.name === 'prebuilds')
          found.push(rel);
        else if (entry.name === 'Release' && path.endsWith(`${sep}build`)) found.push(rel);
        else visit(full);
      } else if (entry.name.endsWith('.node') || entry.name === 'binding.gyp') found.push(rel);
    }
  };
  visit(dir);
  return found;
}

/** The staged package.json: what the program needs at run time, nothing for development. */
function runtimePackageJson(pkg, manifest) {
  const { name, version, description, license, type, main, bin } = pkg;
  return {
    name,
    version,
    description,
    license,
    type,
    main,
    bin,
    engines: { node: manifest.compatibility.runtimes.node },
  };
}

const size = (bytes) =>
  bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} kB` : `${(bytes / 1024 / 1024).toFixed(2)} MB`;

export function buildBundle({ stage = join(ROOT, 'build', 'bundle'), out } = {}) {
  const started = Date.now();
  const manifestFile = join(ROOT, 'manifest.json');
  const pkg = readJson(join(ROOT, 'package.json'));
  const manifest = readJson(manifestFile);
  const outFile = resolve(out ?? join(ROOT, `${pkg.name}-${pkg.version}.mcpb`));

  console.warn('mcpb validate manifest.json');
  mcpb(['validate', manifestFile]);
  checkManifest(manifest, pkg);

  stage = resolve(stage);
  if (stage === ROOT || ROOT.startsWith(stage + sep))
    throw new BundleError(`refusing to stage into ${stage}`);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  for (const file of ['manifest.json', 'README.md', 'LICENSE']) {
    if (existsSync(join(ROOT, file))) cpSync(join(ROOT, file), join(stage, file));
  }
  for (const icon of iconFiles(manifest)) {
    mkdirSync(dirname(join(stage, icon)), { recursive: true });
    cpSync(join(ROOT, icon), join(stage, icon));
  }
  writeFileSync(
    join(stage, 'package.json'),
    `${JSON.stringify(runtimePackageJson(pkg, manifest), null, 2)}\n`,
  );
  copyDist(stage);

  const native = nativeArtifacts(stage);
  if (native.length > 0) {
    throw new BundleError(`the bundle must carry no native addon, but has: ${native.join(', ')}`);
  }

  rmSync(outFile, { force: true });
  mcpb(['pack', stage, outFile]);
  if (!existsSync(outFile)) throw new BundleError(`mcpb pack wrote no ${outFile}`);
  const bytes = statSync(outFile).size;
  const files = walk(stage).length;
  console.warn(
    `Bundle: ${outFile} (${size(bytes)}, ${files} staged files, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  return { file: outFile, bytes, stage };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  try {
    const { values } = parseArgs({ options: { stage: { type: 'string' }, out: { type: 'string' } } });
    const { file } = buildBundle(values);
    process.stdout.write(`${file}\n`);
  } catch (error) {
    console.error(`bundle: ${error instanceof BundleError ? error.message : error.stack}`);
    process.exit(1);
  }
}
