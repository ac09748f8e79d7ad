/**
 * Runs a request schema and reports every failure at once, keyed by dotted path, in the interface's
 * messages. Before validation, null and blank properties are dropped: like Laravel's
 * ConvertEmptyStringsToNull + TrimStrings, an empty field means an absent one (values are not trimmed).
 */
import type { z } from 'zod';
import { type FieldErrors, ValidationError } from './errors.js';
import { fieldErrorsFromIssues } from './messages.js';

export type Validated<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deeper than any schema of the interface goes: below it, values are left as they are (validation
 * rejects them anyway), so hostile nesting cannot exhaust the stack.
 */
const NORMALIZE_DEPTH = 32;

/** A copy of `value` without null or blank object properties, down to NORMALIZE_DEPTH. */
export function dropAbsentValues(value: unknown, depth = 0): unknown {
  if (depth >= NORMALIZE_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => dropAbsentValues(item, depth + 1));
  if (!isPlainObject(value)) return value;
  // A null-prototype object: a `__proto__` key in the input stays an ordinary (unknown) key.
  const result: Record<string, unknown> = Object.create(null);
  for (const [key, item] of Object.entries(value)) {
    if (item === null || item === undefined) continue;
    if (typeof item === 'string' && item.trim() === '' && !FORBIDDEN_KEYS.has(key)) continue;
    result[key] = dropAbsentValues(item, depth + 1);
  }
  return result;
}

export function validate<S extends z.ZodType>(schema: S, input: unknown): Validated<z.output<S>> {
  const result = schema.safeParse(dropAbsentValues(input), { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, errors: fieldErrorsFromIssues(result.error.issues) };
}

/** Validates or throws a ValidationError carrying every field error. */
export function validateOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = validate(schema, input);
  if (!result.ok) throw new ValidationError(result.errors);
  return result.value;
}

export { isPlainObject };
