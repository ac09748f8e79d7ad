import { PER_PAGE_DEFAULT } from '../domain/schemas.js';
import type { PageWindow } from '../ports.js';
import type { Page, PageInfo } from './publishing-service.js';

export interface PageRequest {
  page?: number | undefined;
  per_page?: number | undefined;
}

/** Reads one page with the store's `count` and `list`; a short first page is its own count. */
export async function readPage<R, T>(
  request: PageRequest,
  count: () => Promise<number>,
  list: (window: PageWindow) => Promise<R[]>,
  present: (record: R) => T,
): Promise<Page<T>> {
  const currentPage = request.page ?? 1;
  const perPage = request.per_page ?? PER_PAGE_DEFAULT;
  const offset = (currentPage - 1) * perPage;
  let records: R[];
  let total: number;
  if (offset === 0) {
    records = await list({ limit: perPage, offset });
    // A first page that is not full holds every record: no need to count them.
    total = records.length < perPage ? records.length : await count();
  } else {
    total = await count();
    // Past the last page there is nothing to read; the offset could even exceed SQLite's integer range.
    records = offset < total ? await list({ limit: perPage, offset }) : [];
  }
  const pagination: PageInfo = {
    currentPage,
    perPage,
    total,
    lastPage: Math.max(1, Math.ceil(total / perPage)),
  };
  return { data: records.map(present), pagination };
}

/**
 * The list body of the interface (status, data, pagination with the neighbour pages' URLs). Each
 * adapter says how a page is addressed: REST with absolute URLs, MCP with REST paths.
 */
export function listBody<T>(
  page: Page<T>,
  urlOfPage: (page: number, perPage: number) => string,
): Record<string, unknown> {
  const { currentPage, perPage, lastPage } = page.pagination;
  return {
    status: 'success',
    data: page.data,
    pagination: {
      ...page.pagination,
      nextPageUrl: currentPage < lastPage ? urlOfPage(currentPage + 1, perPage) : null,
      prevPageUrl: currentPage > 1 ? urlOfPage(currentPage - 1, perPage) : null,
    },
  };
}
