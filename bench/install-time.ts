/**
 * Install time: `npm ci` on a clean clone of the repository (HEAD, cloned into a temp dir) with a cold npm
 * cache (`--cache` an empty directory), as a new user's first command, `prepare`'s build included. On
 * the Node running the bench, and on a Node >= 22.13 when that is another one (scripts/node22.mjs): where
 * node:sqlite exists the bar is product.md's 60 s. Each clone's program then imports the example workspace
 * into a fresh store, to show the install left it able to start. The registry's speed counts in the
 * figure, as it does for users.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
// @ts-expect-error: a plain ES module script, without types.
import { node22 as findNode22 } from '../scripts/node22.mjs';
import { ROOT, tempDir } from './lib/proc.js';
import type { Figure } from './lib/report.js';

const node22: () => string = findNode22;

const BAR_SECONDS = 60;

/** The environment of a user's shell: none of the npm settings `npm run bench` passes to its script. */
function userEnv(node: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^npm_/i.test(key) || key === 'INIT_CWD') continue;
    env[key] = value;
  }
  const path = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => !entry.includes('node_modules') && !entry.includes('node-gyp-bin'));
  // `npm`, and `node` in the package scripts, are then the ones of this Node (npm's own runs on it).
  env.PATH = [dirname(node), ...path].join(delimiter);
  return env;
}

interface Install {
  seconds: number;
  version: string;
  added: string | undefined;
  warnings: string[];
}

function timeInstall(node: string, commit: string): Install {
  const work = tempDir('spm-bench-install-');
  const clone = join(work, 'repo');
  execFileSync('git', ['clone', '--quiet', '--depth', '1', `file://${ROOT}`, clone], { stdio: 'ignore' });
  const cache = join(work, 'npm-cache');
  mkdirSync(cache);
  const env = userEnv(node);
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const started = performance.now();
  const run = spawnSync('npm', ['ci', '--cache', cache], {
    cwd: clone,
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    shell: process.platform === 'win32',
  });
  const seconds = (performance.now() - started) / 1000;
  const output = `${run.stdout}\n${run.stderr}`;
  if (run.status !== 0) {
    throw new Error(`npm ci on Node ${version} failed (${run.status ?? run.signal}): ${output.slice(-2000)}`);
  }
  // The program the install left, on its store: `import` opens (creates) one, in a fresh data directory.
  const imported = spawnSync(node, [join('dist', 'main.js'), 'import', join('examples', 'workspace.json')], {
    cwd: clone,
    env: { ...env, SOCIAL_PUBLISHER_DATA_DIR: join(work, 'data') },
    encoding: 'utf8',
  });
  if (imported.status !== 0) {
    throw new Error(`after npm ci on Node ${version}, the program cannot open its store: ${imported.stderr}`);
  }
  const warnings = output
    .split('\n')
    // Not the user's own npm configuration ("Unknown user config ..."): the project's warnings.
    .filter((line) => /^npm warn/i.test(line) && !/Unknown (user|env|global) config/.test(line))
    .map((line) => line.trim());
  const added = /added \d+ packages?[^\n]*/.exec(output)?.[0];
  process.stderr.write(`  npm ci on Node ${version} (${commit.slice(0, 7)}): ${seconds.toFixed(1)} s\n`);
  return { seconds, version, added, warnings };
}

function figure(install: Install, commit: string, workingTreeDiffers: boolean): Figure {
  const [major = 0, minor = 0] = install.version.replace(/^v/, '').split('.').map(Number);
  const hasNodeSqlite = major > 22 || (major === 22 && minor >= 13);
  return {
    name: `npm ci, clean clone, cold cache, Node ${install.version}`,
    value: install.seconds,
    unit: 's',
    bar: hasNodeSqlite ? `≤ ${BAR_SECONDS} s` : `(≤ ${BAR_SECONDS} s where node:sqlite exists)`,
    ratio: install.seconds / BAR_SECONDS,
    pass: hasNodeSqlite ? install.seconds <= BAR_SECONDS : undefined,
    details: {
      commit,
      // The clone is of HEAD: uncommitted changes to the dependencies are not what was measured.
      uncommittedDependencyChanges: workingTreeDiffers,
      driver: hasNodeSqlite ? 'node:sqlite' : '@photostructure/sqlite',
      added: install.added,
      warnings: install.warnings,
    },
  };
}

export async function installTime(): Promise<Figure[]> {
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const differs =
    spawnSync('git', ['diff', '--quiet', 'HEAD', '--', 'package.json', 'package-lock.json'], { cwd: ROOT })
      .status !== 0;
  if (differs) {
    process.stderr.write(
      '  note: package.json or package-lock.json differ from HEAD; the clone is of HEAD\n',
    );
  }
  const figures = [figure(timeInstall(process.execPath, commit), commit, differs)];
  let other: string | undefined;
  try {
    other = node22();
  } catch (error) {
    process.stderr.write(`  no Node >= 22.13 to time npm ci with: ${(error as Error).message}\n`);
  }
  if (other && other !== process.execPath) figures.push(figure(timeInstall(other, commit), commit, differs));
  return figures;
}
