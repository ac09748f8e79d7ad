/**
 * `node dist/main.js import FILE` and the rest of the command line, on real data directories: ids as
 * JSON on stdout, idempotent upserts, bad files naming the JSON path with nothing imported, and the
 * stdio server acting as the user of SOCIAL_PUBLISHER_API_KEY.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  brandTitles,
  childEnv,
  cleanup,
  connectStdio,
  PROJECT_ROOT,
  requireBuild,
  runMain,
  STACK_FRAME,
  tempDir,
} from '../mcp/cli-harness.js';

const ADA_KEY = 'ada-key-0123456789abcdef';
const BOB_KEY = 'bob-key-0123456789abcdef';

interface BrandFile {
  title?: string;
  description?: string | null;
  timezone: string;
  queueTimes?: string[];
  channels?: Array<{ name: string; type: string; status?: string }>;
  collections?: Array<{ title: string; description?: string | null; channels?: string[] }>;
  [extra: string]: unknown;
}

function acme(): BrandFile {
  return {
    title: 'Acme',
    description: null,
    timezone: 'America/New_York',
    queueTimes: ['09:00', '12:00', '17:00'],
    channels: [
      { name: 'Acme on Instagram', type: 'Instagram', status: 'ACTIVE' },
      { name: 'Acme on Bluesky', type: 'Bluesky' },
    ],
    collections: [
      { title: 'Everywhere', description: null, channels: ['Acme on Instagram', 'Acme on Bluesky'] },
    ],
  };
}

function workspace(brands: BrandFile[] = [acme()], users: object[] = []) {
  return {
    brands,
    users: [{ name: 'Ada', timezone: 'Europe/London', apiKey: ADA_KEY, brands: ['Acme'] }, ...users],
  };
}

const EXPECTED_IDS = {
  brands: [
    {
      id: 1,
      title: 'Acme',
      channels: [
        { id: 1, name: 'Acme on Instagram' },
        { id: 2, name: 'Acme on Bluesky' },
      ],
      collections: [{ id: 1, title: 'Everywhere' }],
    },
  ],
  users: [{ id: expect.any(String), name: 'Ada' }],
};

function writeJson(dir: string, value: unknown, name = 'workspace.json'): string {
  const file = join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return file;
}

function envFor(dataDir: string, extra: Record<string, string> = {}) {
  return childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir, ...extra });
}

beforeAll(() => {
  requireBuild();
});

afterEach(async () => {
  await cleanup();
});

describe('import FILE', () => {
  it('prints the ids as JSON on stdout', async () => {
    const dir = tempDir();
    const run = await runMain(['import', writeJson(dir, workspace())], envFor(dir));
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(EXPECTED_IDS);
    expect(run.stderr).not.toMatch(STACK_FRAME);
  });

  it('is idempotent: the same ids again, nothing duplicated, changes upserted', async () => {
    const dir = tempDir();
    const file = writeJson(dir, workspace());
    const first = await runMain(['import', file], envFor(dir));
    const second = await runMain(['import', file], envFor(dir));
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual(JSON.parse(first.stdout));

    const changed = acme();
    changed.channels!.push({ name: 'Acme on Threads', type: 'Threads' });
    changed.collections!.push({ title: 'Talk', channels: ['Acme on Threads'] });
    const third = await runMain(['import', writeJson(dir, workspace([changed]), 'more.json')], envFor(dir));
    expect(third.code, third.stderr).toBe(0);
    const ids = JSON.parse(third.stdout) as typeof EXPECTED_IDS;
    expect(ids.brands[0]).toMatchObject({
      id: 1,
      channels: [
        { id: 1, name: 'Acme on Instagram' },
        { id: 2, name: 'Acme on Bluesky' },
        { id: 3, name: 'Acme on Threads' },
      ],
      collections: [
        { id: 1, title: 'Everywhere' },
        { id: 2, title: 'Talk' },
      ],
    });
    expect(ids.users).toEqual(JSON.parse(first.stdout).users);

    // The only user acts without a key; the store holds one brand with 3 channels, 2 collections.
    const session = await connectStdio(envFor(dir));
    expect((await session.call('get_profile')).structuredContent).toMatchObject({ data: { name: 'Ada' } });
    const brands = await session.call('list_brands');
    expect(brandTitles(brands)).toEqual(['Acme']);
    expect(brands.structuredContent).toMatchObject({ pagination: { total: 1 } });
    const channels = await session.call('list_channels', { brandId: 1 });
    expect(channels.structuredContent).toMatchObject({ pagination: { total: 3 } });
    const collections = await session.call('list_collections', { brandId: 1 });
    const everywhere = (collections.structuredContent as { data: Array<{ channels: unknown[] }> }).data[0]!;
    expect(everywhere.channels).toHaveLength(2);
    expect(collections.structuredContent).toMatchObject({ pagination: { total: 2 } });
  });

  const broken: Array<[string, (brand: BrandFile) => void, string, string?]> = [
    [
      'an unknown channel type',
      (b) => (b.channels![0]!.type = 'MySpace'),
      'brands.1.channels.0.type',
      'The selected brands.1.channels.0.type is invalid.',
    ],
    [
      'a collection naming an unknown channel',
      (b) => (b.collections![0]!.channels = ['Acme on Instagram', 'Acme on MySpace']),
      'brands.1.collections.0.channels.1',
    ],
    [
      'a bad timezone',
      (b) => (b.timezone = 'Mars/Olympus_Mons'),
      'brands.1.timezone',
      'The brands.1.timezone must be a valid IANA timezone.',
    ],
    ['a missing title', (b) => delete b.title, 'brands.1.title'],
    ['an unknown field', (b) => (b.colour = 'red'), 'brands.1.colour'],
  ];

  it.each(broken)(
    'refuses a file with %s, names the path and imports nothing',
    async (_, breakIt, path, message) => {
      const dir = tempDir();
      const bad = acme();
      breakIt(bad);
      // A valid brand and user come first: they must not be imported either.
      const beta: BrandFile = {
        title: 'Beta',
        timezone: 'Europe/Paris',
        channels: [{ name: 'Beta X', type: 'X/Twitter' }],
      };
      const file = writeJson(
        dir,
        workspace(
          [beta, bad],
          [{ name: 'Bob', timezone: 'Europe/Paris', apiKey: BOB_KEY, brands: ['Beta'] }],
        ),
      );
      const run = await runMain(['import', file], envFor(dir));
      expect(run.code).not.toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(path);
      if (message) expect(run.stderr).toContain(`  ${path}: ${message}\n`);
      expect(run.stderr).not.toMatch(STACK_FRAME);

      // No user was imported: the stdio server has nobody to act as.
      const stdio = await runMain([], envFor(dir, { SOCIAL_PUBLISHER_DEMO: '0' }));
      expect(stdio.code).not.toBe(0);
      expect(stdio.stderr).toMatch(/no user/);

      // No brand, channel or collection either: a valid import starts every id at 1.
      const good = await runMain(['import', writeJson(dir, workspace(), 'good.json')], envFor(dir));
      expect(good.code, good.stderr).toBe(0);
      expect(JSON.parse(good.stdout)).toEqual(EXPECTED_IDS);
    },
  );

  it('names user errors by path too', async () => {
    const dir = tempDir();
    const file = writeJson(dir, {
      brands: [acme()],
      users: [{ name: 'Ada', timezone: 'Europe/London', apiKey: 'short', brands: ['Acme', 'Nobody Inc'] }],
    });
    const run = await runMain(['import', file], envFor(dir));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('users.0.apiKey');
    expect(run.stdout).toBe('');
  });

  it('reports invalid JSON and an unreadable file clearly', async () => {
    const dir = tempDir();
    const run = await runMain(['import', writeJson(dir, '{"brands": [')], envFor(dir));
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/not valid JSON/);
    expect(run.stderr).not.toMatch(STACK_FRAME);

    const missing = await runMain(['import', join(dir, 'absent.json')], envFor(dir));
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('absent.json');
    expect(missing.stderr).not.toMatch(STACK_FRAME);
  });
});

describe('command line', () => {
  it('--help and --version print to stdout and exit 0', async () => {
    const env = envFor(tempDir());
    const help = await runMain(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('import FILE');
    expect(help.stdout).toContain('SOCIAL_PUBLISHER_DATA_DIR');
    expect(help.stderr).toBe('');

    const { version } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const printed = await runMain(['--version'], env);
    expect(printed.code).toBe(0);
    expect(printed.stdout.trim()).toBe(version);
  });

  it('an unknown command or a missing FILE exits non-zero with usage on stderr', async () => {
    const env = envFor(tempDir());
    const unknown = await runMain(['publish-everything'], env);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('publish-everything');
    expect(unknown.stderr).toMatch(/Usage/);

    const noFile = await runMain(['import'], env);
    expect(noFile.code).not.toBe(0);
    expect(noFile.stderr).toMatch(/FILE/);
  });
});

describe('SOCIAL_PUBLISHER_API_KEY', () => {
  it("selects the imported user next to the demo user, who sees only that user's brands", async () => {
    const dir = tempDir();
    // First start: the demo workspace (brands 1 and 2, the demo user).
    const demo = await connectStdio(envFor(dir));
    expect(brandTitles(await demo.call('list_brands'))).toEqual(['Northwind Coffee', 'Kite & Key Studio']);
    await demo.close();

    const imported = await runMain(['import', writeJson(dir, workspace())], envFor(dir));
    expect(imported.code, imported.stderr).toBe(0);
    const ids = (JSON.parse(imported.stdout) as typeof EXPECTED_IDS).brands[0]!;
    // After the demo's 2 brands and 5 collections.
    expect([ids.id, ids.collections[0]!.id]).toEqual([3, 6]);
    const acmeId = ids.id;

    const ada = await connectStdio(envFor(dir, { SOCIAL_PUBLISHER_API_KEY: ADA_KEY }));
    expect((await ada.call('get_profile')).structuredContent).toMatchObject({ data: { name: 'Ada' } });
    expect(brandTitles(await ada.call('list_brands'))).toEqual(['Acme']);
    expect((await ada.call('list_channels', { brandId: 1 })).structuredContent).toEqual({
      status: 'error',
      message: 'Brand not found.',
      errors: { brand: 'Brand not found.' },
    });
    const year = new Date().getUTCFullYear() + 1;
    const created = await ada.call('create_post', {
      brandId: acmeId,
      collectionId: ids.collections[0]!.id,
      publishMode: 'SCHEDULE',
      caption: 'Acme news',
      scheduledAt: `${year}-06-01 09:00:00`,
    });
    expect(created.isError ?? false, JSON.stringify(created.structuredContent)).toBe(false);
    await ada.close();

    // Two users and no key: the server cannot guess who acts.
    const noKey = await runMain([], envFor(dir));
    expect(noKey.code).not.toBe(0);
    expect(noKey.stdout).toBe('');
    expect(noKey.stderr).toContain('SOCIAL_PUBLISHER_API_KEY');
    expect(noKey.stderr).not.toMatch(STACK_FRAME);

    const wrongKey = await runMain([], envFor(dir, { SOCIAL_PUBLISHER_API_KEY: 'not-a-key-of-anyone-here' }));
    expect(wrongKey.code).not.toBe(0);
    expect(wrongKey.stdout).toBe('');
    expect(wrongKey.stderr).toContain('SOCIAL_PUBLISHER_API_KEY');
    expect(wrongKey.stderr).not.toContain('not-a-key-of-anyone-here');
  });
});
