/**
 * The Store port's transactions, for any adapter (test/store/transactions.test.ts checks the same of
 * SQLite's `Sql`): everything or nothing is written; `tx.transaction(...)` nests, and a failure inside
 * it that the caller catches undoes only the inner writes.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/ports.js';
import { NOW, type OpenStore } from './store-fixture.js';

/** A write the test can read back: a brand titled `title`. */
const write = (store: Store, title: string) =>
  store.upsertBrand({ title, description: null, timezone: 'UTC', queueTimes: [] }, NOW);

/** Which of the titles any test writes are there, in the order listed. */
async function titles(store: Store): Promise<string[]> {
  const written: string[] = [];
  for (const title of [
    'one',
    'two',
    'outer before',
    'outer',
    'middle',
    'inner',
    'outer after',
    'second middle',
  ]) {
    if ((await store.findBrandIdByTitle(title)) !== undefined) written.push(title);
  }
  return written;
}

export function transactionsContract(open: OpenStore): void {
  describe('transactions', () => {
    it('commit what their work wrote and answer what it returned', async () => {
      const store = await open();
      const result = await store.transaction(async (tx) => {
        await write(tx, 'one');
        expect(await tx.findBrandIdByTitle('one')).toBeDefined();
        await write(tx, 'two');
        return 'done';
      });
      expect(result).toBe('done');
      expect(await titles(store)).toEqual(['one', 'two']);
    });

    it('write nothing when their work throws, and throw its error', async () => {
      const store = await open();
      const failure = new Error('work failed');
      await expect(
        store.transaction(async (tx) => {
          await write(tx, 'lost');
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await store.findBrandIdByTitle('lost')).toBeUndefined();
      expect(await store.isEmpty()).toBe(true);
    });

    it('nest: an inner failure the caller catches undoes only the inner writes; the outer commits the rest', async () => {
      const store = await open();
      await store.transaction(async (tx) => {
        await write(tx, 'outer before');
        await expect(
          tx.transaction(async (inner) => {
            await write(inner, 'inner');
            throw new Error('inner failed');
          }),
        ).rejects.toThrow('inner failed');
        expect(await tx.findBrandIdByTitle('inner')).toBeUndefined();
        await write(tx, 'outer after');
      });
      expect(await titles(store)).toEqual(['outer before', 'outer after']);
    });

    it('nest: an inner success is undone with the outer transaction when the outer fails', async () => {
      const store = await open();
      await expect(
        store.transaction(async (tx) => {
          await write(tx, 'outer');
          await tx.transaction(async (inner) => {
            await write(inner, 'inner');
          });
          throw new Error('outer failed');
        }),
      ).rejects.toThrow('outer failed');
      expect(await store.isEmpty()).toBe(true);
    });

    it('nest: a failure two levels down, caught in the middle, keeps the middle and outer writes', async () => {
      const store = await open();
      await store.transaction(async (tx) => {
        await write(tx, 'outer');
        await tx.transaction(async (middle) => {
          await write(middle, 'middle');
          try {
            await middle.transaction(async (inner) => {
              await write(inner, 'inner');
              throw new Error('inner failed');
            });
          } catch {
            // Caught: the middle level goes on.
          }
        });
        // The savepoints are gone: another level starts cleanly after them.
        await tx.transaction((again) => write(again, 'second middle'));
      });
      expect(await titles(store)).toEqual(['outer', 'middle', 'second middle']);
    });
  });
}
