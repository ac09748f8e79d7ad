/**
 * Compares a tool's input schema as our server lists it with the parameters a provider receives, field by
 * field, and finds the keywords a provider refuses. Both return readable lines (empty: all is well), so
 * that one failed assertion shows every problem at once.
 */
import { isDeepStrictEqual } from 'node:util';

export type JsonSchema = { [keyword: string]: unknown };

/** The keywords that limit a value; each must reach the model unchanged. */
export const LIMITS = [
  'enum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'pattern',
  'required',
] as const;
export type Limit = (typeof LIMITS)[number];

/** Where a refusal applies: the parameters object itself, or every schema inside it. */
export type Depth = 'top' | 'any';

/** One keyword a provider refuses in a function's parameters (see provider-formats.ts). */
export type Refusal =
  /** The keyword must not appear. */
  | { at: Depth; refuses: string }
  /** The keyword's value must be one of `accepts`; with `required`, it must also be present. */
  | { at: Depth; keyword: string; accepts: readonly unknown[]; required?: boolean }
  /** `format` only with these values, by the schema's type. */
  | { at: Depth; formats: Readonly<Record<string, readonly string[]>> }
  /** No keyword but these. */
  | { at: Depth; only: readonly string[] };

export function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A nullable field written as `anyOf: [X, {type: "null"}]` (or oneOf) as the one schema X whose type
 * list also names null; any other schema as it is.
 */
function collapseNullable(schema: JsonSchema): JsonSchema {
  const { anyOf, oneOf, ...rest } = schema;
  const union = anyOf ?? oneOf;
  if (!Array.isArray(union)) return schema;
  const others = union.filter((alternative) => !(isSchema(alternative) && alternative.type === 'null'));
  const [only] = others;
  if (others.length !== 1 || others.length === union.length || !isSchema(only)) return schema;
  return { ...rest, ...only, type: [...typesOf(only), 'null'] };
}

/** The JSON types a schema admits: its `type` (one or a list), its union's, and null when `nullable`. */
function typesOf(schema: JsonSchema): string[] {
  const own = schema.type === undefined ? [] : [schema.type].flat().map(String);
  const union = [schema.anyOf, schema.oneOf].flatMap((list) => (Array.isArray(list) ? list : []));
  const alternatives = union.filter(isSchema).flatMap(typesOf);
  const nullable = schema.nullable === true ? ['null'] : [];
  return [...new Set([...own, ...alternatives, ...nullable])].sort();
}

/**
 * Every field of `server` missing from `sent`, arriving with other types, or with a limit changed or
 * lost; `path` names the field in the lines. A limit in `dropped` may be absent (the converter is known to
 * drop it), never changed.
 */
export function fieldDifferences(
  server: JsonSchema,
  sent: unknown,
  path: string,
  dropped: readonly Limit[] = [],
): string[] {
  if (!isSchema(sent)) return [`${path}: missing`];
  const want = collapseNullable(server);
  const got = collapseNullable(sent);
  const differences: string[] = [];
  const [wantTypes, gotTypes] = [typesOf(want), typesOf(got)];
  if (!isDeepStrictEqual(wantTypes, gotTypes)) {
    differences.push(
      `${path}: type ${wantTypes.join('|') || '(any)'} arrived as ${gotTypes.join('|') || '(none)'}`,
    );
  }
  for (const limit of LIMITS) {
    if (!(limit in want) || (dropped.includes(limit) && !(limit in got))) continue;
    const [wanted, arrived] =
      limit === 'required' ? [sorted(want[limit]), sorted(got[limit])] : [want[limit], got[limit]];
    if (!isDeepStrictEqual(wanted, arrived)) {
      differences.push(
        `${path}: ${limit} ${JSON.stringify(wanted)} arrived as ${JSON.stringify(arrived) ?? '(none)'}`,
      );
    }
  }
  const sentProperties = isSchema(got.properties) ? got.properties : {};
  for (const [name, field] of Object.entries(isSchema(want.properties) ? want.properties : {})) {
    if (isSchema(field)) {
      differences.push(...fieldDifferences(field, sentProperties[name], `${path}.${name}`, dropped));
    }
  }
  if (isSchema(want.items)) {
    differences.push(...fieldDifferences(want.items, got.items, `${path}[]`, dropped));
  }
  return differences;
}

function sorted(value: unknown): unknown {
  return Array.isArray(value) ? [...value].sort() : value;
}

/** Keywords holding a map or a list of schemas, each with the path step to one of them. */
const SCHEMA_COLLECTIONS = {
  properties: '.',
  anyOf: '/anyOf/',
  oneOf: '/oneOf/',
  allOf: '/allOf/',
  $defs: '/$defs/',
  definitions: '/definitions/',
};

/** What sits directly inside `schema` where a schema may, each with the path step to it. */
function childrenOf(schema: JsonSchema): Array<[string, unknown]> {
  const children: Array<[string, unknown]> = [
    ['[]', schema.items],
    ['/additionalProperties', schema.additionalProperties],
    ['/not', schema.not],
  ];
  for (const [keyword, step] of Object.entries(SCHEMA_COLLECTIONS)) {
    const inner = schema[keyword];
    if (Array.isArray(inner) || isSchema(inner)) {
      for (const [key, child] of Object.entries(inner)) children.push([`${step}${key}`, child]);
    }
  }
  return children;
}

/** The schema and every schema inside it, each with its path and whether it is the top one. */
function* schemasIn(
  schema: JsonSchema,
  path: string,
  depth: Depth = 'top',
): Generator<[JsonSchema, string, Depth]> {
  yield [schema, path, depth];
  for (const [step, inner] of childrenOf(schema)) {
    if (isSchema(inner)) yield* schemasIn(inner, `${path}${step}`, 'any');
  }
}

/** Every use in `parameters` of a keyword that `refusals` say the provider refuses. */
export function refusedKeywords(parameters: unknown, refusals: readonly Refusal[], path: string): string[] {
  if (!isSchema(parameters)) return [];
  const found: string[] = [];
  for (const [schema, where, depth] of schemasIn(parameters, path)) {
    for (const refusal of refusals.filter(({ at }) => at === 'any' || depth === 'top')) {
      if ('refuses' in refusal && refusal.refuses in schema) found.push(`${where}: ${refusal.refuses}`);
      if ('keyword' in refusal) {
        const value = schema[refusal.keyword];
        const refused =
          refusal.keyword in schema
            ? !refusal.accepts.some((ok) => isDeepStrictEqual(ok, value))
            : refusal.required;
        if (refused) found.push(`${where}: ${refusal.keyword} ${JSON.stringify(value) ?? '(none)'}`);
      }
      if ('formats' in refusal && 'format' in schema) {
        const accepted = refusal.formats[String(schema.type)] ?? [];
        if (!accepted.includes(String(schema.format))) {
          found.push(`${where}: format ${JSON.stringify(schema.format)}`);
        }
      }
      if ('only' in refusal) {
        const others = Object.keys(schema).filter((keyword) => !refusal.only.includes(keyword));
        found.push(...others.map((keyword) => `${where}: ${keyword}`));
      }
    }
  }
  return found;
}

/**
 * Integers bounded by ±(2^53 − 1): a bound that only restates what JSON numbers can carry, and costs the
 * model tokens for nothing.
 */
export function meaninglessBounds(parameters: unknown, path: string): string[] {
  if (!isSchema(parameters)) return [];
  return [...schemasIn(parameters, path)].flatMap(([schema, at]) =>
    ['minimum', 'maximum']
      .filter((bound) => Math.abs(Number(schema[bound])) === Number.MAX_SAFE_INTEGER)
      .map((bound) => `${at}: ${bound} ${schema[bound]}`),
  );
}
