/**
 * What prompts, resources and completions read of the workspace, always through the service (so they
 * see what the acting user may see, locally or remotely): every page of brands and collections, ids
 * parsed from the strings that MCP arguments and URI variables are, and errors as JSON-RPC errors
 * (prompts and resources have no error result, unlike tools).
 */
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import { isServiceError, UnauthenticatedError, ValidationError } from '../domain/errors.js';
import { type Brand, type Collection, PER_PAGE_MAX } from '../domain/schemas.js';
import type { Page, PublishingService } from '../service/publishing-service.js';

export type ErrorLog = (message: string, error: unknown) => void;

/**
 * A JSON-RPC error whose message is the sentence alone: McpError's own message starts with
 * "MCP error <code>:", which the server would send and the client would prefix once more.
 */
export function requestError(code: number, message: string): ProtocolError {
  const error = new ProtocolError(code, message);
  error.message = message;
  return error;
}

/** A resource that does not exist (SEP-2164: -32602 with the URI as its data), in a sentence. */
export function resourceNotFound(uri: string, message: string): ResourceNotFoundError {
  const error = new ResourceNotFoundError(uri, message);
  error.message = message;
  return error;
}

/** Every item of a paginated list. A user has tens of brands and collections, not thousands. */
async function everyPage<T>(list: (page: number) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const result = await list(page);
    items.push(...result.data);
    if (page >= result.pagination.lastPage || result.data.length === 0) return items;
  }
}

export function allBrands(service: PublishingService): Promise<Brand[]> {
  return everyPage((page) => service.listBrands({ page, per_page: PER_PAGE_MAX }));
}

export function allCollections(service: PublishingService, brandId: number): Promise<Collection[]> {
  return everyPage((page) => service.listCollections({ brandId, page, per_page: PER_PAGE_MAX }));
}

/** A positive whole number written in digits, or undefined. */
export function parseId(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\s*\d{1,15}\s*$/.test(value)) return undefined;
  const id = Number(value);
  return id >= 1 ? id : undefined;
}

/** The id an argument names, or an InvalidParams error that says what to pass. */
export function requireId(
  value: unknown,
  name: string,
  code: number = ProtocolErrorCode.InvalidParams,
): number {
  const id = parseId(value);
  if (id !== undefined) return id;
  const given = typeof value === 'string' ? JSON.stringify(value) : 'nothing';
  const from = name === 'brandId' ? 'list_brands' : 'list_collections';
  throw requestError(code, `${name} must be an id in digits, such as "1", not ${given}: call ${from}.`);
}

/** "Brand 9 not found": the same for a brand that does not exist and one of another user. */
export function brandNotFound(
  brandId: number,
  code: number = ProtocolErrorCode.InvalidParams,
): ProtocolError {
  return requestError(code, `Brand ${brandId} not found: call list_brands for the brands you can use.`);
}

/** The brand, if the acting user may see it; else an error that names it and says where ids come from. */
export async function findBrand(
  service: PublishingService,
  brandId: number,
  code: number = ProtocolErrorCode.InvalidParams,
): Promise<Brand> {
  const brand = (await allBrands(service)).find((candidate) => candidate.id === brandId);
  if (!brand) throw brandNotFound(brandId, code);
  return brand;
}

export async function findCollection(
  service: PublishingService,
  brand: Brand,
  collectionId: number,
): Promise<Collection> {
  const collection = (await allCollections(service, brand.id)).find((c) => c.id === collectionId);
  if (!collection) {
    throw requestError(
      ProtocolErrorCode.InvalidParams,
      `Collection ${collectionId} not found in brand ${brand.id} (${brand.title}): call list_collections with brandId ${brand.id}.`,
    );
  }
  return collection;
}

/**
 * Runs a prompt or resource handler, converting what it throws once: our McpErrors pass, the service's
 * errors keep their message (under `code`), anything else is logged in full and answered generically.
 */
export async function answering<T>(log: ErrorLog, code: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    if (isServiceError(error)) {
      const details = error instanceof ValidationError ? Object.values(error.errors).flat() : [];
      // Remote mode: a refused key's cause names the server and the settings to check.
      const cause =
        error instanceof UnauthenticatedError && error.cause instanceof Error ? [error.cause.message] : [];
      throw requestError(code, [error.message, ...details, ...cause].join(' '));
    }
    log('prompt or resource request failed unexpectedly', error);
    throw requestError(
      ProtocolErrorCode.InternalError,
      'The server failed to complete the request. Its log has the details; try again.',
    );
  }
}
