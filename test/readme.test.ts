/**
 * The docs and `--help` tell the truth about the configuration: every SOCIAL_PUBLISHER_* variable the
 * code reads is in docs/configuration.md's table and in `--help`, neither names one the code does not
 * read, nor does the README, and no message of the program names a setting that does not exist. The
 * README's short section names every command; docs/configuration.md gives each in full. The quickstart
 * and examples are safe to paste: every npx answers its own prompt (`-y`), and every Inspector run is
 * given a scratch data directory (the Inspector passes the server only the variables given with `-e`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { USAGE } from '../src/config.js';
import { SETTINGS_READ as read, sorted, SOURCES as sources, VARIABLE } from './support/settings-read.js';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const configuration = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');

/** A `## ` section of a Markdown text, up to the next heading of that level or above. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const rest = text.slice(start + 1);
  const end = rest.slice(3).search(/\n#{1,2} /);
  return end < 0 ? rest : rest.slice(0, end + 3);
}

/** The first column of each row of docs/configuration.md's table of settings. */
function tableRows(): string[] {
  return section(configuration, 'Settings')
    .split('\n')
    .filter((line) => line.startsWith('| `SOCIAL_PUBLISHER_'))
    .flatMap((line) => line.split('|')[1]!.match(VARIABLE) ?? []);
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

/** The command lines of `--help`. */
const commands = USAGE.split('\n')
  .filter((line) => line.startsWith('  social-publisher-mcp '))
  .map((line) => line.trim());

/** Names a text gives that the code does not read (the OAuth apps' are read by computed names). */
const unknownVariables = (text: string) =>
  sorted(text.match(VARIABLE) ?? []).filter(
    (name) => !read.includes(name) && !/^SOCIAL_PUBLISHER_[A-Z]+_CLIENT_(ID|SECRET)$/.test(name),
  );

describe('configuration in the docs and --help', () => {
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

  it("docs/configuration.md's table lists exactly the variables the code reads", () => {
    expect(sorted(tableRows())).toEqual(read);
  });

  it('the table explains each variable in one row only (two rows could say different things)', () => {
    const rows = tableRows();
    expect(rows.filter((name, i) => rows.indexOf(name) !== i)).toEqual([]);
  });

  it('--help lists exactly the variables the code reads', () => {
    expect(helpVariables()).toEqual(read);
  });

  it('no message of the program names a variable the code does not read', () => {
    const named = sorted(sources.flatMap((text) => text.match(VARIABLE) ?? []));
    expect(named.filter((name) => !read.includes(name))).toEqual([]);
  });

  it('neither the README nor docs/configuration.md names a variable the code does not read', () => {
    expect(unknownVariables(readme)).toEqual([]);
    expect(unknownVariables(configuration)).toEqual([]);
    expect(unknownVariables('SOCIAL_PUBLISHER_DATA_DIRECTORY SOCIAL_PUBLISHER_X_CLIENT_ID')).toEqual([
      'SOCIAL_PUBLISHER_DATA_DIRECTORY',
    ]);
  });

  it('docs/configuration.md lists every command of --help in full', () => {
    const block = section(configuration, 'Commands');
    expect(commands.length).toBeGreaterThanOrEqual(10);
    for (const command of commands) expect(block, command).toContain(command);
  });

  it("the README's short section names every command of --help and links to the rest", () => {
    const block = section(readme, 'Command line and configuration');
    const words = sorted(commands.map((command) => command.split(/\s+/)[1]!.replace(/^\[|\]$/g, '')));
    expect(words).toEqual(
      expect.arrayContaining(['connect', 'disconnect', 'import', 'keys', 'serve', 'stdio', '--help']),
    );
    for (const word of words)
      expect(block, word).toContain(`social-publisher-mcp ${word === 'stdio' ? '[stdio]' : word}`);
    expect(block).toContain('](docs/configuration.md)');
    // Short: the detail lives in docs/configuration.md.
    expect(block.split(/\s+/).length).toBeLessThan(400);
  });

  it('says nothing is "not built yet" of what is built', () => {
    expect(readme).not.toMatch(/not built yet/i);
  });
});

describe('commands to paste', () => {
  const documents = [
    ['README.md', readme],
    ['docs/configuration.md', configuration],
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
