/**
 * The entry (src/launch.ts) runs the program with V8's code cache: the first start writes it, later
 * starts use it (V8 accepts it: the file is not written again), and a cache that cannot be trusted or
 * used never stops a start. Runs the built program with NODE_COMPILE_CACHE naming a directory of the test's.
 */
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, cleanup, connectStdio, requireBuild, runMain, tempDir } from '../mcp/cli-harness.js';

beforeAll(requireBuild);
afterEach(cleanup);

const caches = (dir: string) => readdirSync(dir).filter((name) => /^program-.*\.v8$/.test(name));

function setup() {
  const cacheDir = tempDir('spm-code-cache-');
  chmodSync(cacheDir, 0o700);
  const env = childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir(), NODE_COMPILE_CACHE: cacheDir });
  return { cacheDir, env };
}

describe('the code cache (src/launch.ts)', () => {
  it('is written by the first start and used, unchanged, by the next', async () => {
    const { cacheDir, env } = setup();
    const session = await connectStdio(env);
    expect((await session.client.listTools()).tools.length).toBeGreaterThan(5);
    await session.close();
    const [file] = caches(cacheDir);
    expect(file, 'no cache written').toBeDefined();
    const written = statSync(join(cacheDir, file!));
    expect(written.size).toBeGreaterThan(100_000);
    expect(written.mode & 0o077).toBe(0);

    const again = await connectStdio(env);
    await again.client.listTools();
    await again.close();
    // V8 rejecting it would have it written again, as a new file renamed over the old one.
    expect(caches(cacheDir)).toEqual([file]);
    expect(statSync(join(cacheDir, file!)).ino).toBe(written.ino);
    expect(statSync(join(cacheDir, file!)).mtimeMs).toBe(written.mtimeMs);
  });

  it('keeps one cache per set of Node options, so that starts with and without them do not replace each other', async () => {
    const { cacheDir, env } = setup();
    const flagged = { ...env, NODE_OPTIONS: '--max-semi-space-size=16' };
    expect((await runMain(['--version'], env)).code).toBe(0);
    expect((await runMain(['--version'], flagged)).code).toBe(0);
    const files = caches(cacheDir);
    expect(files).toHaveLength(2);
    const before = files.map((file) => statSync(join(cacheDir, file)).ino);
    // V8 would reject the other's cache (its flags differ) and each start would write its own again.
    expect((await runMain(['--version'], env)).code).toBe(0);
    expect((await runMain(['--version'], flagged)).code).toBe(0);
    expect(caches(cacheDir).map((file) => statSync(join(cacheDir, file)).ino)).toEqual(before);
  });

  it('replaces a damaged cache, and the start it damaged still works', async () => {
    const { cacheDir, env } = setup();
    expect((await runMain(['--version'], env)).code).toBe(0);
    const [file] = caches(cacheDir);
    const path = join(cacheDir, file!);
    const good = readFileSync(path);
    const damaged = Buffer.from(good);
    damaged.fill(0x5a, 64, 4096);
    writeFileSync(path, damaged);

    const session = await connectStdio(env);
    const brands = await session.client.callTool({ name: 'list_brands', arguments: {} });
    expect(brands.isError).toBeFalsy();
    await session.close();
    expect(readFileSync(path).subarray(64, 4096).equals(damaged.subarray(64, 4096))).toBe(false);
  });

  it('is not used in a directory others can write, nor when NODE_DISABLE_COMPILE_CACHE is set', async () => {
    const open = setup();
    chmodSync(open.cacheDir, 0o777);
    const run = await runMain(['--version'], open.env);
    expect(run.code).toBe(0);
    expect(caches(open.cacheDir)).toEqual([]);

    const off = setup();
    expect((await runMain(['--version'], { ...off.env, NODE_DISABLE_COMPILE_CACHE: '1' })).code).toBe(0);
    expect(caches(off.cacheDir)).toEqual([]);
  });
});
