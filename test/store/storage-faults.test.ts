/**
 * Storage faults while the server runs, in-process on a real store: a full disk (SQLite's own
 * SQLITE_FULL, provoked with `PRAGMA max_page_count` on the store's connection; a real small tmpfs
 * under the media directory when running as root) and a store that stopped being writable (SQLite's
 * own SQLITE_READONLY, provoked with `PRAGMA query_only`). The caller gets a stable, specific answer
 * (REST 507 / 503, MCP text saying not to retry), the operator log gets the real fault once, and what
 * was acknowledged before is kept. The whole program on a real full disk: test/cli/storage-faults.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteErrorCode } from '../../src/store/sqlite/driver.js';
import type { Sql } from '../../src/store/sqlite/sql.js';
import { openMcpHarness, PNG_1X1, textOf } from '../mcp/harness.js';
import { expectExact, openRestWorld, type RestWorld, readJson, upload } from '../rest/support.js';
import { DISK_FULL_BODY, READ_ONLY_BODY } from './storage-fault-bodies.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Lets the database file grow by one more page at most: the next writes that need room fail. */
function fillDatabase(sql: Sql): void {
  const pages = Number(sql.get('PRAGMA page_count')?.page_count);
  sql.db.exec(`PRAGMA max_page_count = ${pages + 1}`);
}

async function world(): Promise<RestWorld> {
  const opened = await openRestWorld();
  cleanups.push(() => opened.close());
  return opened;
}

/**
 * What the operator log got: each entry's message and the message and code of what it logged (SQLite's
 * primary code, e.g. SQLITE_FULL, which node:sqlite's API carries in `errcode`; else the system's, ENOSPC).
 */
function logLines(logged: Array<{ message: string; error: unknown }>) {
  return logged.map(({ message, error }) => ({
    message,
    error: (error as Error).message,
    code: sqliteErrorCode(error) ?? (error as { code?: string }).code,
  }));
}

describe('REST: the disk fills up', () => {
  it("answers 507 with the storage body, logs SQLite's error once, and keeps every post acknowledged before", async () => {
    const w = await world();
    fillDatabase(w.rt.sql);
    const acknowledged: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 500 && !refused; i++) {
      const response = await w.request('POST', '/v1/brands/1/collections/1/posts', {
        json: { publishMode: 'DRAFT', caption: `Post ${i} ${'words '.repeat(300)}` },
      });
      if (response.status === 201) acknowledged.push((await readJson(response)).body.data.id);
      else refused = response;
    }
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(refused).toBeDefined();
    await expectExact(refused!, 507, DISK_FULL_BODY);
    expect(logLines(w.logged)).toEqual([
      {
        message:
          'POST /v1/brands/1/collections/1/posts failed, nothing saved: the disk holding the data directory is full',
        error: 'database or disk is full',
        code: 'SQLITE_FULL',
      },
    ]);
    // Reads still work, every acknowledged post is there, and the refused one is not.
    for (const id of acknowledged) {
      expect((await w.request('GET', `/v1/brands/1/posts/${id}`)).status).toBe(200);
    }
    const list = await readJson(await w.request('GET', '/v1/brands/1/posts?per_page=1'));
    expect(list.body.pagination.total).toBe(acknowledged.length);
  });

  it('answers 507 when the media directory fills up, and leaves no staged file behind', async (context) => {
    // The media files' own fault (ENOSPC on write) needs a real small file system: root can mount one.
    if (process.getuid?.() !== 0) context.skip();
    const w = await world();
    const staging = join(w.rt.dataDir, 'media', 'staging');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', staging]);
    cleanups.push(() => {
      execFileSync('umount', [staging]);
    });
    const png = Buffer.concat([PNG_1X1, Buffer.alloc(512 * 1024)]);
    await expectExact(await upload(w, 1, { name: 'big.png', bytes: png }), 507, DISK_FULL_BODY);
    expect(logLines(w.logged)).toEqual([
      {
        message: 'POST /v1/brands/1/media failed, nothing saved: the disk holding the data directory is full',
        error: expect.stringContaining('ENOSPC'),
        code: 'ENOSPC',
      },
    ]);
    expect(readdirSync(staging)).toEqual([]);
  });
});

describe('REST: the data directory stops being writable', () => {
  it("answers 503 with the storage body and logs SQLite's error once; reads go on", async () => {
    const w = await world();
    w.rt.sql.db.exec('PRAGMA query_only = 1');
    const response = await w.request('POST', '/v1/brands/1/collections/1/posts', {
      json: { publishMode: 'DRAFT', caption: 'Refused' },
    });
    await expectExact(response, 503, READ_ONLY_BODY);
    expect(logLines(w.logged)).toEqual([
      {
        message:
          'POST /v1/brands/1/collections/1/posts failed, nothing saved: the data directory is not writable',
        error: 'attempt to write a readonly database',
        code: 'SQLITE_READONLY',
      },
    ]);
    expect((await readJson(await w.request('GET', '/v1/brands/1/posts'))).body.pagination.total).toBe(0);
  });

  it('answers 503 when the media directory stops being writable', async () => {
    const w = await world();
    const staging = join(w.rt.dataDir, 'media', 'staging');
    if (process.getuid?.() === 0) {
      // Root writes through any mode bits: a read-only mount is what stops it.
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', staging]);
      execFileSync('mount', ['-o', 'remount,ro', staging]);
      cleanups.push(() => {
        execFileSync('umount', [staging]);
      });
    } else {
      chmodSync(staging, 0o555);
      cleanups.push(() => chmodSync(staging, 0o755));
    }
    await expectExact(await upload(w, 1, { name: 'pixel.png', bytes: PNG_1X1 }), 503, READ_ONLY_BODY);
    expect(w.logged.map((entry) => entry.message)).toEqual([
      'POST /v1/brands/1/media failed, nothing saved: the data directory is not writable',
    ]);
    expect((w.logged[0]!.error as { code?: string }).code).toMatch(/^(EROFS|EACCES)$/);
  });

  it('answers 503 when the accepted file cannot be moved into the media directory', async () => {
    const w = await world();
    const media = join(w.rt.dataDir, 'media');
    const staging = join(media, 'staging');
    if (process.getuid?.() === 0) {
      // The media directory read-only, its staging area still writable: the upload fails at commit.
      execFileSync('mount', ['--bind', media, media]);
      cleanups.push(() => {
        execFileSync('umount', [media]);
      });
      execFileSync('mount', ['-o', 'remount,bind,ro', media]);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', staging]);
      cleanups.push(() => {
        execFileSync('umount', [staging]);
      });
    } else {
      chmodSync(media, 0o555);
      cleanups.push(() => chmodSync(media, 0o755));
    }
    await expectExact(await upload(w, 1, { name: 'pixel.png', bytes: PNG_1X1 }), 503, READ_ONLY_BODY);
    expect(w.logged.map((entry) => entry.message)).toEqual([
      'POST /v1/brands/1/media failed, nothing saved: the data directory is not writable',
    ]);
    expect(readdirSync(staging)).toEqual([]);
    expect(w.rt.sql.count('SELECT COUNT(*) AS n FROM media')).toBe(0);
  });
});

describe('MCP: tool results for storage faults', () => {
  async function harness() {
    const opened = await openMcpHarness();
    cleanups.push(() => opened.close());
    return opened;
  }

  async function createUntilRefused(call: (args: Record<string, unknown>) => Promise<CallToolResult>) {
    for (let i = 0; i < 500; i++) {
      const result = await call({
        brandId: 1,
        collectionId: 1,
        publishMode: 'DRAFT',
        caption: `Post ${i} ${'words '.repeat(300)}`,
      });
      if (result.isError) return result;
    }
    throw new Error('no create_post was refused');
  }

  it('says the disk is full, nothing was saved and not to retry; structured content is the REST body', async () => {
    const h = await harness();
    fillDatabase(h.rt.sql);
    const result = await createUntilRefused((args) => h.call('create_post', args));
    expect(textOf(result)).toBe(
      "The server's disk is full, so nothing was saved. Do not retry: it cannot succeed until the server's operator frees space on its disk. Tell the user.",
    );
    expect(JSON.stringify(result.structuredContent)).toBe(DISK_FULL_BODY);
    expect(logLines(h.logged)).toEqual([
      {
        message: 'tool call failed, nothing saved: the disk holding the data directory is full',
        error: 'database or disk is full',
        code: 'SQLITE_FULL',
      },
    ]);
  });

  it('says the data directory is no longer writable and not to retry', async () => {
    const h = await harness();
    h.rt.sql.db.exec('PRAGMA query_only = 1');
    const result = await createUntilRefused((args) => h.call('create_post', args));
    expect(textOf(result)).toBe(
      "The server's data directory is no longer writable (read-only or its permissions changed), so nothing was saved. Do not retry: it cannot succeed until the server's operator makes it writable again. Tell the user.",
    );
    expect(JSON.stringify(result.structuredContent)).toBe(READ_ONLY_BODY);
    expect(logLines(h.logged)).toEqual([
      {
        message: 'tool call failed, nothing saved: the data directory is not writable',
        error: 'attempt to write a readonly database',
        code: 'SQLITE_READONLY',
      },
    ]);
  });
});
