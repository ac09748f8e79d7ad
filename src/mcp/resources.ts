/**
 * MCP resources: each brand's queue and calendar, and each post, as JSON, read through the service.
 * Three URI templates, `social-publisher://brands/{brandId}/queue`, `.../calendar` and
 * `.../posts/{postId}`; resources/list shows the first two for every brand the acting user may see, and
 * the brandId variable completes. Publishing changes a post and its brand's calendar: clients subscribe
 * to those (resource-updates.ts).
 */
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
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
  parseId,
  requestError,
  requireId,
  resourceNotFound,
} from './workspace-lookup.js';

const MIME_TYPE = 'application/json';
/** How many upcoming posts the calendar shows. */
export const CALENDAR_SIZE = PER_PAGE_MAX;

const BRANDS = 'social-publisher://brands';

export const brandResourceUri = (brandId: number, view: 'queue' | 'calendar') =>
  `${BRANDS}/${brandId}/${view}`;

export const postResourceUri = (brandId: number, postId: number) => `${BRANDS}/${brandId}/posts/${postId}`;

/** The brand and post a resource URI of ours names (the post only for a post's URI), or undefined. */
export function parseResourceUri(uri: string): { brandId: number; postId?: number } | undefined {
  const match = /^social-publisher:\/\/brands\/(\d{1,15})\/(?:queue|calendar|posts\/(\d{1,15}))$/.exec(uri);
  if (!match) return undefined;
  return { brandId: Number(match[1]), ...(match[2] ? { postId: Number(match[2]) } : {}) };
}

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

/** A resource that does not exist (SEP-2164: -32602 with the URI as its data; the sentence says why). */
function notFound(uri: string, error: unknown): unknown {
  if (!(error instanceof ProtocolError) || error.code !== ProtocolErrorCode.InvalidParams) return error;
  return resourceNotFound(uri, error.message);
}

/** Reads one resource as JSON; what cannot be found is answered as a resource not found. */
async function readJson(uri: URL, log: ErrorLog, read: () => Promise<unknown>): Promise<ReadResourceResult> {
  try {
    const data = await answering(log, ProtocolErrorCode.InvalidParams, read);
    return { contents: [{ uri: uri.href, mimeType: MIME_TYPE, text: JSON.stringify(data, null, 2) }] };
  } catch (error) {
    throw notFound(uri.href, error);
  }
}

export function registerResources(server: McpServer, service: PublishingService, log: ErrorLog): void {
  const complete = { brandId: completeBrandId(service, log) };
  for (const view of VIEWS) {
    const template = new ResourceTemplate(`${BRANDS}/{brandId}/${view.view}`, {
      list: () =>
        answering(log, ProtocolErrorCode.InvalidRequest, async () => ({
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
      (uri, variables) =>
        readJson(uri, log, async () => {
          const brandId = requireId(variables.brandId, 'brandId');
          return view.read(service, brandId).catch((error: unknown) => {
            if (error instanceof NotFoundError && error.key === 'brand') throw brandNotFound(brandId);
            throw error;
          });
        }),
    );
  }
  // Posts are too many to list: the template only, for reading one and subscribing to its changes.
  server.registerResource(
    'post',
    new ResourceTemplate(`${BRANDS}/{brandId}/posts/{postId}`, { list: undefined, complete }),
    {
      title: 'Post',
      description:
        'One post with its deliveries, as get_post returns it; subscribe to hear when it is published or a delivery fails.',
      mimeType: MIME_TYPE,
    },
    (uri, variables) =>
      readJson(uri, log, async () => {
        const brandId = requireId(variables.brandId, 'brandId');
        const postId = parseId(variables.postId);
        if (postId === undefined) {
          throw requestError(
            ProtocolErrorCode.InvalidParams,
            'postId must be an id in digits: call list_posts.',
          );
        }
        return service.getPost({ brandId, postId }).catch((error: unknown) => {
          if (error instanceof NotFoundError && error.key === 'brand') throw brandNotFound(brandId);
          throw error;
        });
      }),
  );
}
