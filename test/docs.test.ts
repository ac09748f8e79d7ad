import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOLS_REFERENCE_PATH, toolsReference } from '../scripts/tools-reference.js';

const root = join(import.meta.dirname, '..');

it('docs/tools.md is generated from the registry and up to date (run `npm run docs`)', () => {
  expect(readFileSync(TOOLS_REFERENCE_PATH, 'utf8')).toBe(toolsReference());
});

/** A Markdown text without its fenced code blocks (a link in an example is no link). */
const prose = (text: string) => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');

/** A heading's anchor as GitHub makes it: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings, a repeated one numbered as GitHub numbers it. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const match of prose(readFileSync(file, 'utf8')).matchAll(/^#{1,6} +(.+)$/gm)) {
    const anchor = anchorOf(match[1]!);
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    out.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  return out;
}

const DOCUMENTS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  ...readdirSync(join(root, 'examples'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `examples/${name}`),
];

describe('links between the docs', () => {
  it('makes anchors as GitHub does', () => {
    expect(anchorOf('The REST API (serve)')).toBe('the-rest-api-serve');
    expect(anchorOf('`get_profile`: Get profile')).toBe('get_profile-get-profile');
    expect(anchorOf('The MCP Registry entry and the bundle (issue 30, item 5)')).toBe(
      'the-mcp-registry-entry-and-the-bundle-issue-30-item-5',
    );
  });

  it.each(DOCUMENTS)('every relative link of %s reaches a file, and its #anchor a heading there', (name) => {
    const file = join(root, name);
    const broken: string[] = [];
    let links = 0;
    for (const match of prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = match[1]!;
      if (/^[a-z][a-z+.-]*:/i.test(link)) continue; // https:, mailto:
      links++;
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path ? join(dirname(file), path) : file;
      if (!existsSync(target)) broken.push(`${link}: no ${relative(root, target)}`);
      else if (anchor && statSync(target).isFile() && target.endsWith('.md') && !anchors(target).has(anchor))
        broken.push(`${link}: no heading #${anchor} in ${relative(root, target)}`);
    }
    expect(broken).toEqual([]);
    if (name === 'README.md') expect(links).toBeGreaterThan(20);
  });
});
