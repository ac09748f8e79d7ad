/** List bodies with absolute neighbour-page URLs that keep the request's other query parameters. */
import type { Page } from '../service/publishing-service.js';

export function listBody<T>(page: Page<T>, requestUrl: string): Record<string, unknown> {
  const { currentPage, perPage, lastPage } = page.pagination;
  const url = (target: number) => {
    const next = new URL(requestUrl);
    next.searchParams.set('page', String(target));
    next.searchParams.set('per_page', String(perPage));
    return next.toString();
  };
  return {
    status: 'success',
    data: page.data,
    pagination: {
      ...page.pagination,
      nextPageUrl: currentPage < lastPage ? url(currentPage + 1) : null,
      prevPageUrl: currentPage > 1 ? url(currentPage - 1) : null,
    },
  };
}
