import { describe, expect, it } from 'vitest';
import type { PageWindow } from '../../src/ports.js';
import { readPage } from '../../src/service/pagination.js';

/** A store of `n` records that counts how often it is asked for the count. */
function records(n: number) {
  const all = Array.from({ length: n }, (_, i) => i + 1);
  const asked = { count: 0 };
  return {
    asked,
    count: async () => {
      asked.count++;
      return all.length;
    },
    list: async (window: PageWindow) => all.slice(window.offset, window.offset + window.limit),
  };
}

describe('readPage', () => {
  it('takes the total from a first page that is not full, without counting', async () => {
    const store = records(3);
    expect(await readPage({ per_page: 10 }, store.count, store.list, String)).toEqual({
      data: ['1', '2', '3'],
      pagination: { currentPage: 1, perPage: 10, total: 3, lastPage: 1 },
    });
    expect((await readPage({}, records(0).count, records(0).list, String)).pagination).toEqual({
      currentPage: 1,
      perPage: 10,
      total: 0,
      lastPage: 1,
    });
    expect(store.asked.count).toBe(0);
  });

  it('counts when the first page is full, and for every later page', async () => {
    const store = records(20);
    expect((await readPage({ per_page: 10 }, store.count, store.list, String)).pagination.total).toBe(20);
    expect((await readPage({ page: 2, per_page: 10 }, store.count, store.list, String)).data).toHaveLength(
      10,
    );
    expect(await readPage({ page: 5, per_page: 10 }, store.count, store.list, String)).toEqual({
      data: [],
      pagination: { currentPage: 5, perPage: 10, total: 20, lastPage: 2 },
    });
    expect(store.asked.count).toBe(3);
  });
});
