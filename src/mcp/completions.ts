/**
 * Argument completion (`completion/complete`) for brand and collection ids, shared by the prompts and
 * the resource templates. Values are ids as strings; what the user typed matches the start of an id or
 * any part of a title ("north" finds Northwind Coffee's id), id matches first.
 */
import { isServiceError } from '../domain/errors.js';
import type { PublishingService } from '../service/publishing-service.js';
import { allBrands, allCollections, type ErrorLog, parseId } from './workspace-lookup.js';

type Completer = (value: string, context?: { arguments?: Record<string, string> }) => Promise<string[]>;

function matching(items: ReadonlyArray<{ id: number; title: string }>, typed: string): string[] {
  const text = typed.trim().toLowerCase();
  const byId = items.filter((item) => String(item.id).startsWith(text));
  const byTitle = items.filter((item) => !byId.includes(item) && item.title.toLowerCase().includes(text));
  return [...byId, ...byTitle].map((item) => String(item.id));
}

/**
 * A completion never fails the client: a brand it may not see completes nothing, and so does an
 * unexpected error, which is logged.
 */
async function orNothing(log: ErrorLog, work: () => Promise<string[]>): Promise<string[]> {
  try {
    return await work();
  } catch (error) {
    if (!isServiceError(error)) log('completion failed unexpectedly', error);
    return [];
  }
}

/** brandId: the acting user's brands. */
export function completeBrandId(service: PublishingService, log: ErrorLog): Completer {
  return (value) => orNothing(log, async () => matching(await allBrands(service), value));
}

/** collectionId: the collections of the brand named by the brandId argument already given, if any. */
export function completeCollectionId(service: PublishingService, log: ErrorLog): Completer {
  return async (value, context) => {
    const brandId = parseId(context?.arguments?.brandId);
    if (brandId === undefined) return [];
    return orNothing(log, async () => matching(await allCollections(service, brandId), value));
  };
}
