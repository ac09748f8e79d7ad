/**
 * A tool's arguments read against its input schema, by the dotted paths error keys use
 * (`poll.options.1`): the schema of a field, the value given, and what the field takes, in words.
 * Used to word the fix of a failed call (error-hints.ts).
 */
import { SCHEDULED_AT_FORMAT } from '../domain/time.js';
import { isPlainObject } from '../domain/validation.js';
import type { ToolDefinition } from './tool.js';
import { toJsonSchema } from './tool-list.js';

export type JsonSchema = Record<string, unknown>;

/**
 * Per tool, its full input schema as JSON Schema, before tools/list writes it in the portable subset
 * (tool-list.ts): nullable fields still `anyOf` with null, formats kept.
 */
const inputSchemas = new WeakMap<ToolDefinition, JsonSchema>();

export function fullInputSchemaOf(tool: ToolDefinition): JsonSchema {
  let schema = inputSchemas.get(tool);
  if (!schema) {
    schema = toJsonSchema(tool.input, 'input');
    inputSchemas.set(tool, schema);
  }
  return schema;
}

/** A nullable field (`anyOf: [X, {type: "null"}]`) as X. */
export function withoutNull(node: unknown): JsonSchema | undefined {
  if (!isPlainObject(node)) return undefined;
  if (!Array.isArray(node.anyOf)) return node;
  const [inner] = node.anyOf.filter((option) => isPlainObject(option) && option.type !== 'null');
  return withoutNull(inner);
}

/** The schema of the field at a dotted path (`poll.options.1`), or undefined when there is none. */
export function schemaAt(root: JsonSchema, segments: readonly string[]): JsonSchema | undefined {
  let node = withoutNull(root);
  for (const segment of segments) {
    const properties = node?.properties;
    if (isPlainObject(properties) && Object.hasOwn(properties, segment))
      node = withoutNull(properties[segment]);
    else if (node && /^\d+$/.test(segment)) node = withoutNull(node.items);
    else return undefined;
  }
  return node;
}

export function valueAt(args: unknown, segments: readonly string[]): unknown {
  let value = args;
  for (const segment of segments) {
    if (Array.isArray(value) && /^\d+$/.test(segment)) value = value[Number(segment)];
    else if (isPlainObject(value) && Object.hasOwn(value, segment)) value = value[segment];
    else return undefined;
  }
  return value;
}

export function allowedValues(node: JsonSchema | undefined): string[] | undefined {
  if (!Array.isArray(node?.enum)) return undefined;
  return node.enum.filter((value) => value !== null).map(String);
}

export function isWallClockPattern(pattern: unknown): boolean {
  if (typeof pattern !== 'string') return false;
  const test = new RegExp(pattern);
  return test.test('2026-11-24 09:00:00') && !test.test('2026-11-24T09:00:00Z');
}

/** `1 to 100`, `0 or more`: the bounds a number field states. */
export function rangeOf(node: JsonSchema | undefined): string | undefined {
  // zod's bound of a safe integer is no rule to tell.
  const bound = (value: unknown) =>
    typeof value === 'number' && Math.abs(value) < Number.MAX_SAFE_INTEGER ? value : undefined;
  const min = bound(node?.minimum);
  const max = bound(node?.maximum);
  if (min !== undefined && max !== undefined) return `${min} to ${max}`;
  if (min !== undefined) return `${min} or more`;
  if (max !== undefined) return `${max} or less`;
  return undefined;
}

/** What a field takes, in words: `one of 1d, 3d, 7d`, `a text of 1 to 280 characters`. */
export function expectedValue(node: JsonSchema | undefined, depth = 0): string | undefined {
  if (!node) return undefined;
  const values = allowedValues(node);
  if (values) return `one of ${values.join(', ')}`;
  const type = Array.isArray(node.type) ? node.type.find((t) => t !== 'null') : node.type;
  switch (type) {
    case 'integer':
    case 'number': {
      const range = rangeOf(node);
      return range ? `an integer, ${range}` : 'an integer';
    }
    case 'boolean':
      return 'true or false';
    case 'string':
      if (isWallClockPattern(node.pattern))
        return `a local time in the brand's timezone, written ${SCHEDULED_AT_FORMAT}`;
      if (node.format === 'uri') return 'an absolute http(s) URL';
      if (typeof node.maxLength === 'number')
        return `a text of ${node.minLength ?? 0} to ${node.maxLength} characters`;
      return 'a text';
    case 'array': {
      const items = depth < 2 ? expectedValue(withoutNull(node.items), depth + 1) : undefined;
      const count =
        typeof node.minItems === 'number' && typeof node.maxItems === 'number'
          ? `${node.minItems} to ${node.maxItems} `
          : '';
      return `a list of ${count}items${items ? ` (each ${items})` : ''}`;
    }
    case 'object': {
      const names = isPlainObject(node.properties) ? Object.keys(node.properties) : [];
      const required = Array.isArray(node.required) ? node.required.map(String) : [];
      const optional = names.filter((name) => !required.includes(name));
      if (required.length === 0) return `an object with any of ${names.join(', ')}`;
      return `an object with ${required.join(', ')}${optional.length ? ` (optional: ${optional.join(', ')})` : ''}`;
    }
    default:
      return undefined;
  }
}
