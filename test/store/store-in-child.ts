/**
 * Store work done in a child process, for tests that then need no process of theirs to hold the SQLite
 * file open (to remount its disk read-only, unmount it, or see SQLite create its -wal and -shm files
 * anew). On Node 20, @photostructure/sqlite 1.x's `close()` leaves the connection open until its
 * prepared statements are garbage-collected (node:sqlite's finalizes them; the package does from 2.x,
 * which needs Node 22), so closing a store in the test's own process is not enough there.
 *
 * As a script (run by `storeInChild`): `tsx test/store/store-in-child.ts OPERATION DATA_DIR`, printing
 * the result as JSON.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLocalRuntime } from '../../src/local-runtime.js';
import { resolveLocalUser } from '../../src/service/acting-user.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';

const OPERATIONS = {
  /** A store in `dataDir` with the demo workspace and two drafts; their ids. */
  async storeWithPosts(dataDir: string): Promise<number[]> {
    const runtime = await openLocalRuntime({ dataDir, demo: true });
    const service = new LocalPublishingService(runtime, await resolveLocalUser(runtime.store, undefined));
    try {
      const ids: number[] = [];
      for (const caption of ['kept one', 'kept two']) {
        const created = await service.createPost({
          brandId: 1,
          collectionId: 1,
          publishMode: 'DRAFT',
          caption,
        });
        ids.push(created.id!);
      }
      return ids;
    } finally {
      await runtime.close();
    }
  },

  /** The ids of the posts stored, in order. */
  async postIds(dataDir: string): Promise<number[]> {
    const db = openDatabase(join(dataDir, DATABASE_FILE));
    try {
      return (db.prepare('SELECT id FROM posts ORDER BY id').all() as Array<{ id: number }>).map((row) =>
        Number(row.id),
      );
    } finally {
      db.close();
    }
  },

  /** How many brands are stored. */
  async brandCount(dataDir: string): Promise<number> {
    const db = openDatabase(join(dataDir, DATABASE_FILE));
    try {
      return Number((db.prepare('SELECT COUNT(*) AS n FROM brands').get() as { n: number }).n);
    } finally {
      db.close();
    }
  },
};

type Operation = keyof typeof OPERATIONS;

const SCRIPT = fileURLToPath(import.meta.url);

/** Runs `operation` on the store in `dataDir` in a child process, which has exited when this returns. */
export function storeInChild<O extends Operation>(
  operation: O,
  dataDir: string,
): Awaited<ReturnType<(typeof OPERATIONS)[O]>> {
  const output = execFileSync(process.execPath, ['--import', 'tsx', SCRIPT, operation, dataDir], {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(output);
}

if (process.argv[1] === SCRIPT) {
  const [operation, dataDir] = process.argv.slice(2) as [Operation, string];
  process.stdout.write(`${JSON.stringify(await OPERATIONS[operation](dataDir))}\n`);
}
