/**
 * docs/deploy.md tells what the multi-instance tests do: each program command in its shell blocks is one
 * the tests run (the same command, the same flags; the values are the deployment's), every command the
 * tests run is there, and every setting it exports is one the tests set.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { DEPLOY_COMMANDS } from './cluster.js';

const root = join(import.meta.dirname, '..', '..');
const doc = readFileSync(join(root, 'docs', 'deploy.md'), 'utf8');
const shellLines = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((match) =>
  match[1]!
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean),
);

/** A command's words and flag names: `keys create --user`. */
function shape(argv: readonly string[]): string {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i]!.startsWith('--')) {
      words.push(argv[i]!);
      i++;
    } else if (!words.some((word) => word.startsWith('--'))) words.push(argv[i]!);
  }
  // The positional argument of import is a file name, not a word of the command.
  return words[0] === 'import' ? 'import FILE' : words.join(' ');
}

/** Splits a shell command line into words, keeping double-quoted words whole. */
const words = (line: string) => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);

it('runs, in the tests, every program command docs/deploy.md gives, with the same flags', () => {
  const documented = shellLines
    .filter((line) => line.startsWith('social-publisher-mcp '))
    .map((line) => shape(words(line).slice(1)));
  const tested = Object.values(DEPLOY_COMMANDS).map((command) => shape(command('x')));
  expect(documented.length).toBeGreaterThanOrEqual(3);
  expect([...new Set(documented)].sort()).toEqual([...new Set(tested)].sort());
});

it('exports only settings that the tests set', () => {
  const exported = shellLines
    .map((line) => /^export (SOCIAL_PUBLISHER_[A-Z_]+)=/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
  expect(exported.length).toBeGreaterThanOrEqual(5);
  const dir = import.meta.dirname;
  const tests = readdirSync(dir)
    .filter((name) => name.endsWith('.ts') && name !== 'deploy-doc.test.ts')
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('\n');
  expect(exported.filter((name) => !tests.includes(`${name}:`))).toEqual([]);
});
