/**
 * Leniency for how callers send values, before the service validates them. An integer field that
 * arrives as a string of digits is read as a number (query strings and path parameters are always
 * strings; assistants sometimes quote numbers). For MCP arguments, an object or array that arrives as
 * a JSON string is parsed too. Anything else passes through untouched for validation to judge.
 */
import { z } from 'zod';

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (
    current instanceof z.ZodOptional ||
    current instanceof z.ZodNullable ||
    current instanceof z.ZodDefault
  ) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

function parseJsonContainer(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return text;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return typeof parsed === 'object' && parsed !== null ? parsed : text;
  } catch {
    return text;
  }
}

export function coerceArguments(
  input: z.ZodObject,
  args: unknown,
  options: { jsonStrings: boolean },
): unknown {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return args;
  const shape = input.shape as Record<string, z.ZodType>;
  // Null prototype: a `__proto__` argument stays a key (and fails validation) instead of vanishing.
  const result: Record<string, unknown> = Object.create(null);
  for (const [key, value] of Object.entries(args)) {
    const field = Object.hasOwn(shape, key) ? unwrap(shape[key]!) : undefined;
    if (
      options.jsonStrings &&
      typeof value === 'string' &&
      (field instanceof z.ZodObject || field instanceof z.ZodArray)
    ) {
      result[key] = parseJsonContainer(value);
    } else if (
      typeof value === 'string' &&
      field instanceof z.ZodNumber &&
      /^-?\d{1,15}$/.test(value.trim())
    ) {
      result[key] = Number(value.trim());
    } else {
      result[key] = value;
    }
  }
  return result;
}
