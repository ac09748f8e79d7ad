import { PER_PAGE_DEFAULT } from '../domain/schemas.js';
import type { PageWindow } from '../ports.js';
import type { Page, PageInfo } from './publishing-service.js';

export interface PageRequest {
  page?: number | undefined;
  per_page?: number | undefined;
}

/** Reads one page: `count` and `list` are the store's, run inside one read. */
export function readPage<R, T>(
  request: PageRequest,
  count: () => number,
  list: (window: PageWindow) => R[],
  present: (record: R) => T,
): Page<T> {
  const currentPage = request.page ?? 1;
  const perPage = request.per_page ?? PER_PAGE_DEFAULT;
  const total = count();
  const offset = (currentPage - 1) * perPage;
  // Past the last page there is nothing to read; the offset could even exceed SQLite's integer range.
  const records = offset < total ? list({ limit: perPage, offset }) : [];
  const pagination: PageInfo = {
    currentPage,
    perPage,
    total,
    lastPage: Math.max(1, Math.ceil(total / perPage)),
  };
  return { data: records.map(present), pagination };
}
