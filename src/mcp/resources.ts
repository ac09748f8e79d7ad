/**
 * MCP resources: each brand's queue and calendar as JSON, read through the service. Two URI templates,
 * `social-publisher://brands/{brandId}/queue` and `.../calendar`; resources/list shows both for every
 * brand the acting user may see, and the brandId variable completes.
 */
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { NotFoundError } from '../domain/errors.js';
import type { Post } from '../domain/post-schemas.js';
import { PER_PAGE_MAX } from '../domain/schemas.js';
import type { PublishingService } from '../service/publishing-service.js';
import { completeBrandId } from './completions.js';
import {
  allBrands,
  answering,
  brandNotFound,
  type ErrorLog,
  RESOURCE_NOT_FOUND,
  requireId,
} from './workspace-lookup.js';

const MIME_TYPE = 'application/json';
/** How many upcoming posts the calendar shows. */
export const CALENDAR_SIZE = PER_PAGE_MAX;

const BRANDS = 'social-publisher://brands';

export const brandResourceUri = (brandId: number, view: 'queue' | 'calendar') =>
  `${BRANDS}/${brandId}/${view}`;

/** The calendar: the next queued and scheduled posts, soonest first, and how many there are in all. */
export interface Calendar {
  brandId: number;
  total: number;
  posts: Post[];
}

async function readCalendar(service: PublishingService, brandId: number): Promise<Calendar> {
  const [queued, scheduled] = await Promise.all(
    (['queued', 'scheduled'] as const).map((status) =>
      service.listPosts({ brandId, status, order: 'calendar', per_page: CALENDAR_SIZE }),
    ),
  );
  // The store's calendar order: due time, then id.
  const posts = [...queued!.data, ...scheduled!.data]
    .sort((a, b) => (a.dueAt ?? '').localeCompare(b.dueAt ?? '') || a.id - b.id)
    .slice(0, CALENDAR_SIZE);
  return { brandId, total: queued!.pagination.total + scheduled!.pagination.total, posts };
}

interface BrandView {
  view: 'queue' | 'calendar';
  title: string;
  description: string;
  read(service: PublishingService, brandId: number): Promise<unknown>;
}

const VIEWS: BrandView[] = [
  {
    view: 'queue',
    title: "Brand's queue",
    description:
      "The brand's queue, as get_queue returns it: timezone, local time now, daily queue times, the next free slots a QUEUE post would take, and the queued posts still to go out.",
    read: (service, brandId) => service.getQueue({ brandId }),
  },
  {
    view: 'calendar',
    title: "Brand's calendar",
    description: `The brand's next ${CALENDAR_SIZE} queued and scheduled posts, soonest first (as list_posts returns them), and how many are planned in all.`,
    read: readCalendar,
  },
];

export function registerResources(server: McpServer, service: PublishingService, log: ErrorLog): void {
  const complete = { brandId: completeBrandId(service, log) };
  for (const view of VIEWS) {
    const template = new ResourceTemplate(`${BRANDS}/{brandId}/${view.view}`, {
      list: () =>
        answering(log, ErrorCode.InvalidRequest, async () => ({
          resources: (await allBrands(service)).map((brand) => ({
            uri: brandResourceUri(brand.id, view.view),
            name: `${brand.title} ${view.view}`,
            title: `${brand.title}: ${view.view}`,
            mimeType: MIME_TYPE,
          })),
        })),
      complete,
    });
    server.registerResource(
      `brand-${view.view}`,
      template,
      { title: view.title, description: view.description, mimeType: MIME_TYPE },
      (uri, variables): Promise<ReadResourceResult> =>
        answering(log, RESOURCE_NOT_FOUND, async () => {
          const brandId = requireId(variables.brandId, 'brandId', RESOURCE_NOT_FOUND);
          const data = await view.read(service, brandId).catch((error: unknown) => {
            if (error instanceof NotFoundError && error.key === 'brand') {
              throw brandNotFound(brandId, RESOURCE_NOT_FOUND);
            }
            throw error;
          });
          return { contents: [{ uri: uri.href, mimeType: MIME_TYPE, text: JSON.stringify(data, null, 2) }] };
        }),
    );
  }
}
