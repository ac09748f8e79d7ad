/**
 * The README and `--help` tell the truth about the configuration: every SOCIAL_PUBLISHER_* variable the
 * code reads is in the README's table and in `--help`, neither names one the code does not read, and no
 * message of the program names a setting that does not exist. The quickstart and examples are safe to
 * paste: every npx answers its own prompt (`-y`), and every Inspector run is given a scratch data
 * directory (the Inspector passes the server only the variables given with `-e`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { USAGE } from '../src/config.js';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const sources = sourceFiles(join(root, 'src')).map((path) => readFileSync(path, 'utf8'));
const VARIABLE = /SOCIAL_PUBLISHER_[A-Z0-9_]+/g;
const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

/** Variables the code reads: `env.SOCIAL_PUBLISHER_X` or `env['SOCIAL_PUBLISHER_X']`. */
const read = sorted(
  sources.flatMap((text) =>
    [...text.matchAll(/\benv(?:\.|\[['"])(SOCIAL_PUBLISHER_[A-Z0-9_]+)/g)].map((match) => match[1]!),
  ),
);

/** The first column of each row of the README's table under "Command line and configuration". */
function readmeTableRows(): string[] {
  const section = readme.slice(readme.indexOf('## Command line and configuration'));
  const table = section.slice(0, section.indexOf('\n#'));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `SOCIAL_PUBLISHER_'))
    .flatMap((line) => line.split('|')[1]!.match(VARIABLE) ?? []);
}

function readmeTableVariables(): string[] {
  return sorted(readmeTableRows());
}

/** The variables `--help` explains: the names that start a line of its Environment section. */
function helpVariables(): string[] {
  const environment = USAGE.slice(USAGE.indexOf('\nEnvironment:'));
  return sorted(
    environment
      .split('\n')
      .filter((line) => /^ {2}SOCIAL_PUBLISHER_/.test(line))
      .flatMap(
        (line) =>
          line
            .trim()
            .split(/\s{2,}/)[0]!
            .match(VARIABLE) ?? [],
      ),
  );
}

describe('configuration in the README and --help', () => {
  it('finds the variables the code reads (the check below is not vacuous)', () => {
    expect(read).toEqual(
      expect.arrayContaining([
        'SOCIAL_PUBLISHER_DATA_DIR',
        'SOCIAL_PUBLISHER_API_KEY',
        'SOCIAL_PUBLISHER_WEBHOOK_SECRET',
        'SOCIAL_PUBLISHER_CLAIM_LEASE_SECONDS',
      ]),
    );
    expect(read.length).toBeGreaterThanOrEqual(12);
  });

  it('the README table lists exactly the variables the code reads', () => {
    expect(readmeTableVariables()).toEqual(read);
  });

  it('the README table explains each variable in one row only (two rows could say different things)', () => {
    const rows = readmeTableRows();
    expect(rows.filter((name, i) => rows.indexOf(name) !== i)).toEqual([]);
  });

  it('--help lists exactly the variables the code reads', () => {
    expect(helpVariables()).toEqual(read);
  });

  it('no message of the program names a variable the code does not read', () => {
    const named = sorted(sources.flatMap((text) => text.match(VARIABLE) ?? []));
    expect(named.filter((name) => !read.includes(name))).toEqual([]);
  });

  it('the README lists every command of --help', () => {
    const block = readme.slice(readme.indexOf('## Command line and configuration'));
    const commands = USAGE.split('\n')
      .filter((line) => line.startsWith('  social-publisher-mcp '))
      .map((line) => line.trim());
    expect(commands.length).toBeGreaterThanOrEqual(10);
    for (const command of commands) expect(block, command).toContain(command);
  });

  it('says nothing is "not built yet" of what is built', () => {
    expect(readme).not.toMatch(/not built yet/i);
  });
});

describe('commands to paste', () => {
  const documents = [
    ['README.md', readme],
    ...readdirSync(join(root, 'examples')).map((name) => [
      `examples/${name}`,
      readFileSync(join(root, 'examples', name), 'utf8'),
    ]),
  ] as const;

  it('every npx says -y, so it runs where npm cannot ask', () => {
    for (const [name, text] of documents) {
      // An npx command: `npx` followed by its arguments, in prose, code or a JSON config's "command".
      const commands = [...text.matchAll(/\bnpx\s+(\S+)/g)];
      for (const command of commands) {
        if (command[1] === 'variant') continue; // prose: "an `npx` variant"
        expect(command[0], `${name}: ${command[0]}`).toMatch(/^npx\s+-y\b/);
      }
    }
    const json = readFileSync(join(root, 'examples', 'claude_desktop_config.npx.json'), 'utf8');
    expect(JSON.parse(json).mcpServers['social-publisher'].args[0]).toBe('-y');
  });

  it('every Inspector run gets a scratch data directory with -e', () => {
    let runs = 0;
    for (const [name, text] of documents) {
      for (const line of text.split('\n')) {
        if (!/npx -y @modelcontextprotocol\/inspector/.test(line)) continue;
        runs++;
        expect(line, `${name}: ${line}`).toMatch(/ -e SOCIAL_PUBLISHER_DATA_DIR=\$DIR /);
        expect(text, name).toMatch(/^DIR=\$\(mktemp -d\)/m);
      }
    }
    expect(runs).toBeGreaterThanOrEqual(4);
  });

  it('no example schedules for a fixed year, which would one day be in the past', () => {
    for (const [name, text] of documents) {
      expect(text.match(/scheduledAt[^\n]*20\d\d-\d\d-\d\d/g) ?? [], name).toEqual(
        // The one deliberate past date: the example of the error it gets.
        name === 'examples/inspector.md' ? [expect.stringContaining('2020-01-01')] : [],
      );
    }
  });
});
