/** The layout rules of the codebase, checked: data flows adapter → service → ports → store. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../src/mcp/registry.js';

const SRC = join(import.meta.dirname, '..', 'src');

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles().map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));

function importsOf(text: string): string[] {
  return [...text.matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm)].map((match) => match[1]!);
}

describe('architecture', () => {
  it('writes to stdout only from main.ts (help, version, import and keys output), the connect command (its JSON) and the protocol (a start-up failure); stdio mode owns stdout', () => {
    const allowed = ['main.ts', 'mcp/startup-failure.ts', 'cli/connect.ts'];
    const offenders = files
      .filter((file) => !allowed.includes(file.path))
      .filter((file) => /process\.stdout|console\.(log|info|debug)\(/.test(file.text))
      .map((file) => file.path);
    expect(offenders).toEqual([]);
  });

  it('reads its settings, and reports a start-up failure, without loading zod, the SDK or any dependency', () => {
    // A start that fails (a bad setting) must be told to the client even when a dependency cannot load.
    // The connector registry too: the `connect` flags and usage come from it (each module's descriptor).
    const upFront = [
      'main.ts',
      'config.ts',
      'config-values.ts',
      'config-connect.ts',
      'config-media-bucket.ts',
      'oauth-apps.ts',
      'usage.ts',
      'logger.ts',
      'mcp/handshake.ts',
      'mcp/toolsets.ts',
      'domain/errors.ts',
      'publish/connectors/registry.ts',
      'publish/connectors/connect-flags.ts',
      'publish/connectors/module.ts',
      ...files.map((f) => f.path).filter((path) => /^publish\/connectors\/[^/]+\/index\.ts$/.test(path)),
    ];
    for (const path of upFront) {
      const file = files.find((f) => f.path === path)!;
      const staticImports = [...file.text.matchAll(/^import (?!type )[^'"]*['"]([^'"]+)['"]/gm)].map(
        (m) => m[1]!,
      );
      for (const target of staticImports) {
        const local = target.startsWith('.')
          ? relative(SRC, join(SRC, dirname(path), target)).replace(/\.js$/, '.ts')
          : '';
        expect(target.startsWith('node:') || upFront.includes(local), `${path} imports ${target}`).toBe(true);
      }
    }
  });

  it('imports no package dynamically, but a module of ours that re-exports it (a bundle gives a split-off CommonJS package only a default export)', () => {
    const offenders = files.flatMap((file) =>
      [...file.text.matchAll(/(?<!typeof )\bimport\(\s*'([^'.][^']*)'\s*\)/g)]
        .map((match) => match[1]!)
        .filter((target) => !target.startsWith('node:'))
        .map((target) => `${file.path} imports ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps domain/ pure: no imports outside domain/ but zod and luxon, no I/O modules', () => {
    for (const file of files.filter((f) => f.path.startsWith('domain/'))) {
      for (const target of importsOf(file.text)) {
        const allowed =
          target === 'zod' || target === 'luxon' || (target.startsWith('./') && !target.includes('..'));
        expect(allowed, `${file.path} imports ${target}`).toBe(true);
      }
    }
  });

  it('keeps adapters (mcp/, rest/) away from the store and SQL, and on the service interface', () => {
    const adapters = files.filter((f) => f.path.startsWith('mcp/') || f.path.startsWith('rest/'));
    expect(adapters.some((f) => f.path.startsWith('rest/'))).toBe(true);
    for (const file of adapters) {
      for (const target of importsOf(file.text)) {
        expect(target.includes('/store/'), `${file.path} imports ${target}`).toBe(false);
        // The local service is one implementation; adapters know the interface (publishing-service.ts).
        expect(target.endsWith('/local-service.js'), `${file.path} imports ${target}`).toBe(false);
      }
      expect(/\b(SELECT|INSERT|UPDATE)\b/.test(file.text), `${file.path} has SQL`).toBe(false);
    }
  });

  it('chooses the store adapter in one place: above the Store port, nothing imports an adapter', () => {
    const adapterImports = files
      .filter((file) => !file.path.startsWith('store/'))
      .flatMap((file) =>
        importsOf(file.text)
          .filter((target) => /\/store\/(sqlite|postgres)\//.test(target))
          .map((target) => `${file.path} imports ${target}`),
      );
    expect(adapterImports).toEqual([]);
  });

  it('has one file per tool, named after the tool, each registered', () => {
    const toolFiles = files.filter((f) => f.path.startsWith('mcp/tools/')).map((f) => f.path);
    const expected = TOOLS.map((tool) => `mcp/tools/${tool.name.replaceAll('_', '-')}.ts`);
    expect(toolFiles.sort()).toEqual(expected.sort());
  });

  it('keeps files small: a tool well under 150 lines, a module under 400', () => {
    for (const file of files) {
      const lines = file.text.split('\n').length;
      const limit = file.path.startsWith('mcp/tools/') ? 150 : 400;
      expect(lines, file.path).toBeLessThan(limit);
    }
  });
});
