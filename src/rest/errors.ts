/**
 * Errors → HTTP, in one place: the spec's bodies and statuses; a storage fault is a 507 (disk full) or
 * 503 (data directory no longer writable) whose body says so, with the real fault logged once; a
 * database that cannot be used just now is a 503 with Retry-After whose body names it (the store logs
 * the outage, once, not each request); anything unexpected is a logged 500.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  DatabaseUnavailableError,
  type ErrorBody,
  isServiceError,
  isStorageFault,
  NotFoundError,
  storageFaultBody,
  toErrorBody,
  ValidationError,
} from '../domain/errors.js';

export function errorResponse(
  c: Context,
  error: unknown,
  log: (message: string, error: unknown) => void,
): Response {
  if (isServiceError(error)) {
    return c.json(toErrorBody(error), error.status as ContentfulStatusCode);
  }
  if (error instanceof DatabaseUnavailableError) {
    return c.json(storageFaultBody(error), error.status, {
      'retry-after': String(error.retryAfterSeconds),
    });
  }
  const request = `${c.req.method} ${new URL(c.req.url).pathname}`;
  if (isStorageFault(error)) {
    log(`${request} failed, nothing saved: ${error.reason}`, error.cause ?? error);
    return c.json(storageFaultBody(error), error.status);
  }
  log(`${request} failed`, error);
  const body: ErrorBody = { status: 'error', message: 'Server Error', errors: {} };
  return c.json(body, 500);
}

export function routeNotFound(c: Context): Response {
  const message = `No endpoint ${c.req.method} ${new URL(c.req.url).pathname}; the API is described at /v1/openapi.json.`;
  return c.json(toErrorBody(new NotFoundError('route', message)), 404);
}

/** A JSON body, or a 422 naming the problem. An empty body is an empty object. */
export async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw ValidationError.single('body', 'The body must be valid JSON.');
  }
}
