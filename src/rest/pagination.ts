/** List bodies with absolute neighbour-page URLs that keep the request's other query parameters. */
import { listBody as pageBody } from '../service/pagination.js';
import type { Page } from '../service/publishing-service.js';

export function listBody<T>(page: Page<T>, requestUrl: string): Record<string, unknown> {
  return pageBody(page, (target, perPage) => {
    const url = new URL(requestUrl);
    url.searchParams.set('page', String(target));
    url.searchParams.set('per_page', String(perPage));
    return url.toString();
  });
}
