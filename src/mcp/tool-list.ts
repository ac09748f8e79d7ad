/**
 * What tools/list shows: each tool's name, title, description, annotations and its JSON Schemas, derived
 * from the zod schemas the service validates with.
 *
 * Input schemas are what a model receives, through whatever framework converts them to its provider's
 * function-calling format (OpenAI, Anthropic, Google; LangChain, the AI SDK). So they are written in the
 * subset all of those keep: a nullable field is a type list (`["string", "null"]`), never `anyOf` with
 * `{type: "null"}`, which some conversions turn into a field without a type; no `format`, which Google's
 * function declarations refuse (a URL says so in its description); no bound that means nothing (zod's
 * integer bound of ±2^53-1). Output schemas are exact, with a schema used more than once written once
 * under `definitions`. The server's own validation, REST and OpenAPI keep every rule either way.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { Pagination } from '../domain/schemas.js';
import { toolIcons } from './icons.js';
import type { ToolDefinition } from './tool.js';

type JsonSchema = Record<string, unknown>;

const ErrorBodySchema = z.object({
  status: z.literal('error'),
  message: z.string(),
  errors: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
});

/** JSON Schema for clients: draft-07 (what the SDK's validator speaks), no `$schema`. */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io,
    unrepresentable: 'any',
  });
  return json;
}

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `anyOf: [X, {type: "null"}]` as X taking null too; undefined when `schema` is not that. */
function asTypeList(schema: JsonSchema): JsonSchema | undefined {
  const options = schema.anyOf;
  if (!Array.isArray(options) || options.length !== 2) return undefined;
  const nonNull = options.filter((option) => !(isSchema(option) && option.type === 'null'));
  const [inner] = nonNull;
  if (nonNull.length !== 1 || !isSchema(inner) || typeof inner.type !== 'string') return undefined;
  const { anyOf: _anyOf, ...outer } = schema;
  const merged: JsonSchema = { ...inner, ...outer, type: [inner.type, 'null'] };
  if (Array.isArray(inner.enum)) merged.enum = [...inner.enum, null];
  return merged;
}

const URL_FORMATS = new Set(['uri', 'url']);

const SCHEMA_MAPS = new Set(['properties', 'definitions', '$defs']);
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf']);

/** One schema node in the portable subset (see the module comment), its children first. */
export function portable(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  const child = (value: unknown) => (isSchema(value) ? portable(value) : value);
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(key) && isSchema(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, child(inner)]));
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map(child);
    } else if (key === 'items' || key === 'additionalProperties') {
      out[key] = child(value);
    } else if (key === 'format') {
      // Dropped; a URL field says what it takes in words (the server still checks it).
      if (URL_FORMATS.has(String(value)) && !/\burl\b/i.test(String(schema.description ?? ''))) {
        out.description = schema.description ? `${String(schema.description)} (http(s) URL)` : 'http(s) URL';
      }
    } else if (
      (key === 'maximum' || key === 'minimum') &&
      Math.abs(Number(value)) >= Number.MAX_SAFE_INTEGER
    ) {
      // zod's bound of a safe integer: no rule a model needs.
    } else if (!(key in out)) {
      out[key] = value;
    }
  }
  return asTypeList(out) ?? out;
}

/** The smallest subtree worth writing once under `definitions` (a `$ref` costs about 30 bytes). */
const SHARED_MIN_BYTES = 64;

/**
 * Writes each subtree that occurs more than once under `definitions`, named after the first property
 * that holds it, and refers to it from every place: the largest first, until nothing repeats.
 */
export function withoutRepetition(root: JsonSchema): JsonSchema {
  let schema = root;
  const definitions: Record<string, JsonSchema> = {};
  for (;;) {
    const seen = new Map<string, { count: number; name: string; node: JsonSchema }>();
    const visit = (node: unknown, name: string): void => {
      if (Array.isArray(node)) {
        for (const item of node) visit(item, name);
        return;
      }
      if (!isSchema(node)) return;
      const key = JSON.stringify(node);
      if (key.length >= SHARED_MIN_BYTES && typeof node.$ref !== 'string') {
        const entry = seen.get(key);
        if (entry) entry.count += 1;
        else seen.set(key, { count: 1, name, node });
      }
      for (const [child, value] of Object.entries(node)) {
        if (SCHEMA_MAPS.has(child) && isSchema(value)) {
          for (const [property, inner] of Object.entries(value)) visit(inner, property);
        } else visit(value, name);
      }
    };
    visit(schema, 'schema');
    for (const body of Object.values(definitions)) visit(body, 'schema');
    const repeated = [...seen.entries()]
      .filter(([, entry]) => entry.count > 1)
      .sort(([a], [b]) => b.length - a.length)[0];
    if (!repeated) break;
    const [key, { name, node }] = repeated;
    let unique = name;
    for (let n = 2; unique in definitions; n += 1) unique = `${name}${n}`;
    const ref = { $ref: `#/definitions/${unique}` };
    const replace = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(replace);
      if (!isSchema(value)) return value;
      if (JSON.stringify(value) === key) return ref;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v)]));
    };
    schema = replace(schema) as JsonSchema;
    for (const [defined, body] of Object.entries(definitions))
      definitions[defined] = replace(body) as JsonSchema;
    definitions[unique] = node;
  }
  return Object.keys(definitions).length === 0 ? schema : { ...schema, definitions };
}

/** The declared output schema accepts the success body and the error body alike. */
export function outputSchemaOf(tool: ToolDefinition): JsonSchema {
  const success = z.object({
    status: z.literal('success'),
    data: tool.output,
    ...(tool.paginated ? { pagination: Pagination } : {}),
  });
  const both = portable(toJsonSchema(z.union([success, ErrorBodySchema]), 'input'));
  return withoutRepetition({ type: 'object', ...both });
}

export function inputSchemaOf(tool: ToolDefinition): JsonSchema {
  return portable(toJsonSchema(tool.input, 'input'));
}

/** The tools/list entry of each tool. */
export function listedTools(tools: readonly ToolDefinition[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchemaOf(tool) as Tool['inputSchema'],
    outputSchema: outputSchemaOf(tool) as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
    icons: toolIcons(tool.name),
  }));
}
