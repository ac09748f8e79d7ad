/**
 * The built program (dist/main.js) on storage it cannot use:
 *
 * - a disk that fills up while `serve` runs: posts are created over REST until the disk is full; the
 *   refused one gets the 507 body, the log has SQLite's error once per refused request, and every post
 *   acknowledged before is kept. As root this is a real 2 MB tmpfs; otherwise the same scenario runs
 *   in-process on SQLite's own SQLITE_FULL (`PRAGMA max_page_count`), since only root can mount.
 * - a read-only (root: a tmpfs remounted read-only) or unwritable (others: mode 0555) data directory:
 *   stdio, serve and import refuse to start, exit 1, print what and how to fix it, and lose nothing.
 * - a database file that is not a database (random bytes) or a truncated one: the same refusal, and the
 *   file is left exactly as it was.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import {
  CHILD_TIMEOUT_MS,
  childEnv,
  cleanup,
  PROJECT_ROOT,
  requireBuild,
  runMain,
  startServe,
  tempDir,
} from '../mcp/cli-harness.js';
import { KEY_A, openRestWorld } from '../rest/support.js';
import { DISK_FULL_BODY } from '../store/storage-fault-bodies.js';
import { storeInChild } from '../store/store-in-child.js';

const AS_ROOT = process.getuid?.() === 0;

/** The stdio client's first line: the program answers it before it opens the store. */
const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
})}\n`;

const undo: Array<() => void | Promise<void>> = [];

beforeAll(() => requireBuild());

/** Every step runs, the latest first (a server stops before its disk is unmounted), even when one fails. */
afterEach(async () => {
  const failures: unknown[] = [];
  for (const step of undo.splice(0).reverse()) {
    try {
      await step();
    } catch (error) {
      failures.push(error);
    }
  }
  await cleanup();
  if (failures.length > 0) throw failures[0];
});

/** A tmpfs of `size` at a new temp directory, unmounted after the test. */
function mountTmpfs(size: string): string {
  const dir = tempDir('spm-tmpfs-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  undo.push(() => {
    execFileSync('umount', [dir]);
  });
  return dir;
}

/** Writes zeros until the file system says ENOSPC. */
function fillDisk(dir: string): string {
  const filler = join(dir, 'filler');
  try {
    writeFileSync(filler, Buffer.alloc(16 * 1024 * 1024));
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    return filler;
  }
  throw new Error(`${dir} did not fill up`);
}

/**
 * A store in `dataDir` with the demo workspace and two drafts; returns their ids. In a child process, as
 * every read of the store here: this one then holds no file of it open (see test/store/store-in-child.ts).
 */
async function storeWithPosts(dataDir: string): Promise<number[]> {
  return storeInChild('storeWithPosts', dataDir);
}

function postIdsIn(dataDir: string): number[] {
  return storeInChild('postIds', dataDir);
}

// ------------------------------------------------------------------------------------- disk full

/** A server under test: create a post, read one back, fill its disk, and what it kept after stopping. */
interface FillingServer {
  request(method: string, path: string, json?: unknown): Promise<Response>;
  fill(): void;
  /** Operator log lines about refused writes. */
  faultLines(): string[];
  /** Stops the server, frees the disk and reads the post ids stored. */
  stopAndReadIds(): Promise<number[]>;
}

async function realServeOnTmpfs(): Promise<FillingServer> {
  const dataDir = mountTmpfs('2m');
  const { child, url, key, stderr } = await startServe(dataDir);
  undo.push(() => stop(child, 'SIGKILL'));
  let filler: string | undefined;
  return {
    request: (method, path, json) =>
      fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      }),
    fill: () => {
      filler = fillDisk(dataDir);
    },
    faultLines: () =>
      stderr()
        .split('\n')
        .filter((line) => / failed|cannot rollback|Server Error/.test(line)),
    async stopAndReadIds() {
      await stop(child);
      if (filler) rmSync(filler);
      return postIdsIn(dataDir);
    },
  };
}

function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('serve did not stop')), CHILD_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/** Without root: the REST app in-process, its store's connection limited to the pages it has. */
async function inProcessApp(): Promise<FillingServer> {
  const world = await openRestWorld();
  undo.push(() => world.close());
  const { sql } = world.rt;
  return {
    request: (method, path, json) => world.request(method, path, { key: KEY_A, json }),
    fill: () => sql.db.exec(`PRAGMA max_page_count = ${Number(sql.get('PRAGMA page_count')?.page_count)}`),
    faultLines: () =>
      world.logged.map(
        ({ message, error }) =>
          `[social-publisher-mcp] ${message}: ${(error as Error).name}: ${(error as Error).message}`,
      ),
    stopAndReadIds: async () => postIdsIn(world.rt.dataDir),
  };
}

describe('the disk fills up while serve runs', () => {
  it(`answers 507 with the storage body and keeps every post acknowledged before (${AS_ROOT ? 'real tmpfs' : 'in-process, SQLITE_FULL'})`, async () => {
    const server = AS_ROOT ? await realServeOnTmpfs() : await inProcessApp();
    const create = (i: number) =>
      server.request('POST', '/v1/brands/1/collections/1/posts', {
        publishMode: 'DRAFT',
        caption: `Post ${i} ${'words '.repeat(300)}`,
      });
    const acknowledged: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await create(i);
      expect(response.status).toBe(201);
      acknowledged.push(((await response.json()) as { data: { id: number } }).data.id);
    }
    server.fill();
    let refused: { status: number; body: string } | undefined;
    for (let i = 5; i < 3000 && !refused; i++) {
      const response = await create(i);
      if (response.status === 201)
        acknowledged.push(((await response.json()) as { data: { id: number } }).data.id);
      else refused = { status: response.status, body: await response.text() };
    }
    expect(refused).toEqual({ status: 507, body: DISK_FULL_BODY });
    // Stable: the next write is refused the same way, not with another error.
    const again = await create(-1);
    expect({ status: again.status, body: await again.text() }).toEqual({ status: 507, body: DISK_FULL_BODY });
    // Each refused request logged once, with SQLite's own error; no failed ROLLBACK in its place.
    expect(server.faultLines()).toEqual(
      Array(2).fill(
        '[social-publisher-mcp] POST /v1/brands/1/collections/1/posts failed, nothing saved: the disk holding the data directory is full: Error: database or disk is full',
      ),
    );
    // Reads still work on the full disk.
    for (const id of acknowledged)
      expect((await server.request('GET', `/v1/brands/1/posts/${id}`)).status).toBe(200);
    expect(await server.stopAndReadIds()).toEqual(acknowledged);
  });
});

describe('a disk already full at start', () => {
  it('refuses to start on a fresh data directory it cannot create the store in', async (context) => {
    // Only root can mount a small file system to fill; max_page_count cannot reach a child process.
    if (!AS_ROOT) context.skip();
    const disk = mountTmpfs('1m');
    fillDisk(disk);
    const dataDir = join(disk, 'data');
    await expectEveryModeRefuses(
      dataDir,
      `the disk holding ${join(dataDir, DATABASE_FILE)} is full (SQLite: database or disk is full). Free space on it, or set SOCIAL_PUBLISHER_DATA_DIR to a directory on another disk.`,
    );
  });
});

describe('a disk that fills up while no server runs', () => {
  it('refuses to start in every mode on the existing store, and loses nothing', async (context) => {
    if (!AS_ROOT) context.skip();
    const dataDir = join(mountTmpfs('2m'), 'data');
    const kept = await storeWithPosts(dataDir);
    const filler = fillDisk(dirname(dataDir));
    await expectEveryModeRefuses(
      dataDir,
      `the disk holding ${join(dataDir, DATABASE_FILE)} is full (SQLite: disk I/O error). Free space on it, or set SOCIAL_PUBLISHER_DATA_DIR to a directory on another disk.`,
    );
    rmSync(filler);
    expect(postIdsIn(dataDir)).toEqual(kept);
  });
});

describe('a disk that fills up during an import', () => {
  it("exits 1 naming the full disk and SQLite's error, and imports nothing", async (context) => {
    if (!AS_ROOT) context.skip();
    const dataDir = join(mountTmpfs('2m'), 'data');
    await storeWithPosts(dataDir);
    const brandsBefore = brandCount(dataDir);
    // Full but for room to open the store (its -shm file), not for the import's writes.
    const filler = fillDisk(dirname(dataDir));
    truncateSync(filler, statSync(filler).size - 40 * 1024);
    const workspace = join(PROJECT_ROOT, 'examples', 'workspace.json');
    const run = await runMain(['import', workspace], childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir }));
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
    expect(run.stderr.split('\n')[0]).toBe(
      '[social-publisher-mcp] stopped, the last write was not saved: the disk holding the data directory is full: Error: database or disk is full',
    );
    rmSync(filler);
    expect(brandCount(dataDir)).toBe(brandsBefore);
  });
});

function brandCount(dataDir: string): number {
  return storeInChild('brandCount', dataDir);
}

// ------------------------------------------------------------------------ unusable data directory

/** Runs the program in each mode that opens the store; each must refuse with `message` and exit 1. */
async function expectEveryModeRefuses(dataDir: string, message: string): Promise<void> {
  const env = childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir });
  const expected = `social-publisher-mcp: ${message}\n`;
  const serve = await runMain(['serve', '--port', '0'], env);
  expect(serve).toEqual({ code: 1, stdout: '', stderr: expected });
  const workspace = join(PROJECT_ROOT, 'examples', 'workspace.json');
  const imported = await runMain(['import', workspace], env);
  expect(imported).toEqual({ code: 1, stdout: '', stderr: expected });
  // stdio answers the client's `initialize` with the refusal instead of a result (mcp/startup-failure.ts).
  const stdio = await runMain([], env, INITIALIZE);
  expect({ code: stdio.code, stderr: stdio.stderr }).toEqual({ code: 1, stderr: expected });
  expect(
    stdio.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
  ).toEqual([
    {
      jsonrpc: '2.0',
      id: 0,
      error: { code: -32000, message: `social-publisher-mcp could not start: ${message}` },
    },
  ]);
}

describe('a data directory the program cannot write', () => {
  it(`refuses to start in every mode, and loses nothing (${AS_ROOT ? 'read-only mount' : 'mode 0555'})`, async () => {
    const root = AS_ROOT ? mountTmpfs('8m') : tempDir();
    const dataDir = join(root, 'data');
    const kept = await storeWithPosts(dataDir);
    if (AS_ROOT) {
      execFileSync('mount', ['-o', 'remount,ro', root]);
    } else {
      chmodSync(dataDir, 0o555);
      undo.push(() => chmodSync(dataDir, 0o755));
    }
    await expectEveryModeRefuses(
      dataDir,
      `the data directory ${dataDir} is ${AS_ROOT ? 'read-only' : 'not writable by this user'}: SQLite needs to write ${DATABASE_FILE} and its -wal/-shm files there. Make it writable, or set SOCIAL_PUBLISHER_DATA_DIR to a writable directory.`,
    );
    if (AS_ROOT) execFileSync('mount', ['-o', 'remount,rw', root]);
    else chmodSync(dataDir, 0o755);
    expect(postIdsIn(dataDir)).toEqual(kept);
  });

  it('refuses to create a data directory under a read-only or unwritable parent', async () => {
    const root = AS_ROOT ? mountTmpfs('1m') : tempDir();
    if (AS_ROOT) {
      execFileSync('mount', ['-o', 'remount,ro', root]);
    } else {
      chmodSync(root, 0o555);
      undo.push(() => chmodSync(root, 0o755));
    }
    const dataDir = join(root, 'data');
    await expectEveryModeRefuses(
      dataDir,
      `the data directory ${dataDir} cannot be created (its parent directory is ${AS_ROOT ? 'read-only' : 'not writable by this user'}): SQLite needs to write ${DATABASE_FILE} and its -wal/-shm files there. Create it, or set SOCIAL_PUBLISHER_DATA_DIR to a writable directory.`,
    );
  });
});

describe('a database file the program cannot write, in a writable directory', () => {
  it(`refuses to start in every mode, and loses nothing (${AS_ROOT ? 'read-only bind mount of the file' : 'mode 0444'})`, async () => {
    const dataDir = tempDir();
    const kept = await storeWithPosts(dataDir);
    const file = join(dataDir, DATABASE_FILE);
    if (AS_ROOT) {
      execFileSync('mount', ['--bind', file, file]);
      undo.push(() => {
        execFileSync('umount', [file]);
      });
      execFileSync('mount', ['-o', 'remount,bind,ro', file]);
    } else {
      chmodSync(file, 0o444);
      undo.push(() => chmodSync(file, 0o644));
    }
    await expectEveryModeRefuses(
      dataDir,
      `${file} is read-only or not writable by this user (SQLite: attempt to write a readonly database): SQLite needs to write to it and to its -wal/-shm files beside it. Make them writable, or set SOCIAL_PUBLISHER_DATA_DIR to a writable directory.`,
    );
    expect(postIdsIn(dataDir)).toEqual(kept);
  });
});

// ------------------------------------------------------------------------------ damaged database

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function notReadable(file: string, sqlite: string): string {
  return `${file} is not a readable SQLite database (SQLite: ${sqlite}). Stop every program using it; if a ${DATABASE_FILE}-wal file sits beside it, keep it with the database (it holds recent writes). Restore the file from a backup, or move it aside to start with an empty store.`;
}

describe('a database file that is not a readable database', () => {
  it('of random bytes: refuses to start in every mode and leaves the file as it was', async () => {
    const dataDir = tempDir();
    const file = join(dataDir, DATABASE_FILE);
    writeFileSync(file, Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 7919 + 13) % 251)));
    const before = sha256(file);
    await expectEveryModeRefuses(dataDir, notReadable(file, 'file is not a database'));
    expect(sha256(file)).toBe(before);
  });

  it('truncated: refuses to start in every mode and leaves the file as it was', async () => {
    const dataDir = tempDir();
    mkdirSync(dataDir, { recursive: true });
    await storeWithPosts(dataDir);
    const file = join(dataDir, DATABASE_FILE);
    truncateSync(file, Math.floor(readFileSync(file).length / 2));
    const before = sha256(file);
    await expectEveryModeRefuses(dataDir, notReadable(file, 'database disk image is malformed'));
    expect(sha256(file)).toBe(before);
  });
});
