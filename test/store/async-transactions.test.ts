/**
 * The Store port's transactions with async work on SQLite's one connection per process: a flow's
 * transaction is its own (`tx`), and what other flows ask of the store meanwhile waits for it to end
 * instead of joining it. So a rollback takes back only the failing flow's writes, and nothing another
 * flow wrote meanwhile. Every check of what was kept reads the file through a second connection, as
 * another process would.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewPost, Store } from '../../src/ports.js';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { openDatabase, type SqlDatabase } from '../../src/store/sqlite/driver.js';
import { openTestRuntime, TEST_NOW, type TestRuntime } from '../support/local.js';

let rt: TestRuntime;
let reader: SqlDatabase | undefined;
afterEach(async () => {
  reader?.close();
  reader = undefined;
  await rt.close();
});

async function openStore(): Promise<Store> {
  rt = await openTestRuntime();
  reader = openDatabase(join(rt.dataDir, DATABASE_FILE));
  return rt.runtime.store;
}

/** The captions of the posts committed to the file, in id order. */
function committed(): string[] {
  const rows = reader!.prepare('SELECT payload FROM posts ORDER BY id').all() as Array<{ payload: string }>;
  return rows.map((row) => (JSON.parse(row.payload) as { caption: string }).caption);
}

/** A draft of the demo brand with this caption. */
function draft(caption: string): NewPost {
  return {
    brandId: 1,
    collectionId: 1,
    userId: rt.service.user.id,
    publishMode: 'DRAFT',
    status: 'draft',
    payload: { publishMode: 'DRAFT', caption } as NewPost['payload'],
    dueAtMs: null,
    createdAtMs: TEST_NOW,
    idempotencyKey: null,
    contentHash: caption,
  };
}

/** Resolves after a real pause: other flows run meanwhile (timers, I/O), not only queued microtasks. */
const pause = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

const captions = async (store: Store) =>
  (await store.posts.list(1, { order: 'calendar' }, { limit: 100, offset: 0 })).map(
    (post) => post.payload.caption,
  );

describe('a transaction and the flows beside it', () => {
  it('rolls back only the failing flow: a write another flow made while it waited is kept', async () => {
    const store = await openStore();
    const order: string[] = [];
    let inside!: () => void;
    const begun = new Promise<void>((resolve) => {
      inside = resolve;
    });
    const failing = store.transaction(async (tx) => {
      await tx.posts.insert(draft('failing flow'));
      inside();
      await pause();
      order.push('failing flow throws');
      throw new Error('failing flow failed');
    });
    const other = (async () => {
      await begun;
      // Asked while the failing flow's transaction is open: it waits for the transaction to end.
      await store.posts.insert(draft('other flow'));
      order.push('other flow wrote');
    })();
    await expect(failing).rejects.toThrow('failing flow failed');
    await other;
    expect(order).toEqual(['failing flow throws', 'other flow wrote']);
    expect(committed()).toEqual(['other flow']);
    expect(await captions(store)).toEqual(['other flow']);
  });

  it('keeps two transactions apart: one that commits and one that fails, each awaiting in the middle', async () => {
    const store = await openStore();
    await store.posts.insert(draft('before both'));
    const failing = store.transaction(async (tx) => {
      await tx.posts.insert(draft('failing 1'));
      await pause();
      await tx.posts.insert(draft('failing 2'));
      throw new Error('failing flow failed');
    });
    const committing = store.transaction(async (tx) => {
      await tx.posts.insert(draft('committing 1'));
      await pause();
      await tx.posts.insert(draft('committing 2'));
      return 'done';
    });
    const [failed, done] = await Promise.allSettled([failing, committing]);
    expect(failed).toMatchObject({ status: 'rejected', reason: new Error('failing flow failed') });
    expect(done).toEqual({ status: 'fulfilled', value: 'done' });
    expect(committed()).toEqual(['before both', 'committing 1', 'committing 2']);
  });

  it("lets no other flow see a transaction's writes before it commits: a read waits for the end", async () => {
    const store = await openStore();
    let inside!: () => void;
    const begun = new Promise<void>((resolve) => {
      inside = resolve;
    });
    const writing = store.transaction(async (tx) => {
      await tx.posts.insert(draft('uncommitted'));
      expect(await captions(tx)).toEqual(['uncommitted']);
      inside();
      await pause();
      throw new Error('rolled back');
    });
    await begun;
    const seen = captions(store);
    await expect(writing).rejects.toThrow('rolled back');
    expect(await seen).toEqual([]);
  });

  it('runs the calls of many flows in turn while transactions come and go, and commits all of them', async () => {
    const store = await openStore();
    const flows = Array.from({ length: 20 }, async (_, i) => {
      if (i % 2 === 0) {
        await store.transaction(async (tx) => {
          await tx.posts.insert(draft(`tx ${i} a`));
          await pause(1);
          await tx.posts.insert(draft(`tx ${i} b`));
        });
      } else {
        await store.posts.insert(draft(`plain ${i}`));
      }
    });
    await Promise.all(flows);
    expect(committed()).toHaveLength(30);
    // Each transaction's two posts are next to each other: no other flow's write came between them.
    const all = committed();
    for (let i = 0; i < 20; i += 2) expect(all.indexOf(`tx ${i} b`)).toBe(all.indexOf(`tx ${i} a`) + 1);
  });
});

describe('nested transactions', () => {
  it('undo only their own writes when they fail and the outer work goes on; the outer commits the rest', async () => {
    const store = await openStore();
    await store.transaction(async (tx) => {
      await tx.posts.insert(draft('outer before'));
      await expect(
        tx.transaction(async (inner) => {
          await inner.posts.insert(draft('inner'));
          await pause();
          throw new Error('inner failed');
        }),
      ).rejects.toThrow('inner failed');
      await tx.posts.insert(draft('outer after'));
    });
    expect(committed()).toEqual(['outer before', 'outer after']);
  });

  it('are undone with the outer transaction when it fails after they succeeded', async () => {
    const store = await openStore();
    await expect(
      store.transaction(async (tx) => {
        await tx.posts.insert(draft('outer'));
        await tx.transaction(async (inner) => inner.posts.insert(draft('inner')));
        throw new Error('outer failed');
      }),
    ).rejects.toThrow('outer failed');
    expect(committed()).toEqual([]);
  });

  it('are waited for: a call on the outer transaction made meanwhile runs after the nested one ends', async () => {
    const store = await openStore();
    await store.transaction(async (tx) => {
      const nested = tx.transaction(async (inner) => {
        await inner.posts.insert(draft('nested'));
        await pause();
        await inner.posts.insert(draft('nested again'));
      });
      const outer = tx.posts.insert(draft('outer'));
      await Promise.all([nested, outer]);
    });
    expect(committed()).toEqual(['nested', 'nested again', 'outer']);
  });
});

describe('a transaction that has ended', () => {
  it('refuses calls on its store, which would otherwise run outside any transaction', async () => {
    const store = await openStore();
    let kept: Store | undefined;
    await store.transaction(async (tx) => {
      kept = tx;
    });
    await expect(kept!.posts.insert(draft('late'))).rejects.toThrow(/transaction has ended/);
    await expect(kept!.transaction(async () => undefined)).rejects.toThrow(/transaction has ended/);
    expect(committed()).toEqual([]);
  });

  it('cannot close the store', async () => {
    const store = await openStore();
    await expect(store.transaction((tx) => tx.close())).rejects.toThrow(/cannot close the store/);
    expect(await store.countUsers()).toBe(1);
  });
});
