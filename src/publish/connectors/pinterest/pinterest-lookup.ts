/**
 * Finding a pin whose answer was lost (Pinterest has no idempotency key, so a pin is never made again
 * blindly): the board's pins are read (`GET /v5/boards/{board_id}/pins`, API v5 "List Pins on board",
 * scopes boards:read and pins:read, `page_size` up to 250, the next page by `bookmark`) for one made
 * since the post was due (less five minutes of clock skew) that says what the post says: its title,
 * description (the caption), link and alt text.
 *
 * Pinterest's reference does not say in what order a board's pins are listed (a board shows the newest
 * first unless its owner sorted it otherwise), so no page is skipped as too old: up to LOOKUP_PAGES
 * pages are read. A board with more pins than that, none of them this pin, cannot tell: the delivery
 * fails saying so, rather than pinning twice. Read fields the answer leaves out (`alt_text`, or a
 * `created_at` that does not parse) are not held against a pin.
 */
import type { DeliveryJob } from '../../../ports.js';
import type { PinterestApi } from './pinterest-api.js';

/** How many pages of the board's pins a lookup reads at the most. */
export const LOOKUP_PAGES = 4;
const PAGE_SIZE = 250;
/** How far apart our clock and Pinterest's may be. */
const CLOCK_SKEW_MS = 5 * 60_000;

export type PinLookup = { found: string } | { absent: true } | { undecided: string };

type ListedPin = Record<string, unknown>;

/** The text of a field, trimmed; null for none. */
const textOf = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);
/** A link as compared: without a trailing slash. */
const linkOf = (value: unknown) => textOf(value)?.replace(/\/+$/, '') ?? null;

/** A pin made since `sinceMs` that says what the post says. */
function isThePin(pin: ListedPin, content: DeliveryJob['content'], sinceMs: number): boolean {
  if (typeof pin.id !== 'string' || !pin.id) return false;
  const created = typeof pin.created_at === 'string' ? Date.parse(withZone(pin.created_at)) : Number.NaN;
  if (Number.isFinite(created) && created < sinceMs) return false;
  if (textOf(pin.title) !== textOf(content.title)) return false;
  if (textOf(pin.description) !== textOf(content.caption)) return false;
  if (linkOf(pin.link) !== linkOf(content.link)) return false;
  return pin.alt_text === undefined || pin.alt_text === null || textOf(pin.alt_text) === textOf(content.alt);
}

/** An ISO time without a zone is Pinterest's UTC. */
const withZone = (at: string) => (/(Z|[+-]\d\d:?\d\d)$/i.test(at) ? at : `${at}Z`);

/** Looks for the delivery's pin on the board; `nowMs` the time of the lookup. */
export async function findPin(
  api: PinterestApi,
  boardId: string,
  job: DeliveryJob,
  nowMs: number,
): Promise<PinLookup> {
  const sinceMs = Math.min(job.dueAtMs, nowMs) - CLOCK_SKEW_MS;
  let bookmark: string | undefined;
  for (let page = 0; page < LOOKUP_PAGES; page++) {
    const query = new URLSearchParams({ page_size: String(PAGE_SIZE) });
    if (bookmark) query.set('bookmark', bookmark);
    const answer = await api.call('GET', `/v5/boards/${encodeURIComponent(boardId)}/pins?${query}`);
    const json = (answer.json ?? {}) as { items?: unknown; bookmark?: unknown };
    const items = Array.isArray(json.items) ? (json.items as ListedPin[]) : [];
    const found = items.find((pin) => isThePin(pin, job.content, sinceMs));
    if (found) return { found: found.id as string };
    bookmark = typeof json.bookmark === 'string' && json.bookmark ? json.bookmark : undefined;
    if (!bookmark) return { absent: true };
  }
  return {
    undecided: `Pinterest did not answer the pin, and the board ${api.account} has more pins than the ${LOOKUP_PAGES * PAGE_SIZE} read to find it: whether it was pinned cannot be told. Look at the board, and publish again if the pin is not there.`,
  };
}
