/**
 * Splits a service request into the ids that go into the REST path (brandId, collectionId, postId) and
 * everything else, which goes to the server untouched so that its validation and messages decide.
 * An id is a positive integer, or a string of digits (read as lenient-input reads it). A request whose
 * ids cannot be put into a path never leaves this process: it is refused with the field errors the
 * local service gives for it, from the same request schema.
 */
import type { z } from 'zod';
import { ValidationError } from '../domain/errors.js';
import { coerceArguments } from '../domain/lenient-input.js';
import { attributeName, message } from '../domain/messages.js';
import { isPlainObject, validate } from '../domain/validation.js';

export interface SplitRequest<K extends string> {
  ids: Record<K, number>;
  rest: Record<string, unknown>;
}

function pathId(value: unknown): number | undefined {
  const id = typeof value === 'string' && /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : value;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 1 ? id : undefined;
}

/** `schema` is the local service's schema for the same request; it words the refusal. */
export function splitPathIds<K extends string>(
  request: unknown,
  keys: readonly K[],
  schema: z.ZodObject,
): SplitRequest<K> {
  if (isPlainObject(request)) {
    const ids: Partial<Record<K, number>> = {};
    for (const key of keys) ids[key] = pathId(request[key]);
    if (keys.every((key) => ids[key] !== undefined)) {
      const rest = Object.fromEntries(
        Object.entries(request).filter(([key]) => !(keys as readonly string[]).includes(key)),
      );
      return { ids: ids as Record<K, number>, rest };
    }
  }
  throw refusal(request, keys, schema);
}

/**
 * Validates a request entirely here, as the local service would; for requests whose endpoint carries
 * nothing but path ids (DELETE, publish), so an unknown field is refused as in local mode.
 */
export function validatePathOnly<S extends z.ZodObject>(request: unknown, schema: S): z.output<S> {
  const result = validate(schema, coerceArguments(schema, request, { jsonStrings: false }));
  if (!result.ok) throw new ValidationError(result.errors);
  return result.value;
}

function refusal(request: unknown, keys: readonly string[], schema: z.ZodObject): ValidationError {
  const result = validate(schema, coerceArguments(schema, request, { jsonStrings: false }));
  if (!result.ok) return new ValidationError(result.errors);
  // Not reached with the domain's id schemas; still names every id that cannot go into a path.
  const given = isPlainObject(request) ? request : {};
  const invalid = keys.filter((key) => pathId(given[key]) === undefined);
  return new ValidationError(
    Object.fromEntries(invalid.map((key) => [key, [message.integer(attributeName(key))]])),
  );
}
