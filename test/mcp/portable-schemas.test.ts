/**
 * The JSON Schemas of tools/list, over the real protocol: input schemas in the subset every provider
 * format keeps (test/frameworks/ converts them through the adapters themselves), output schemas exact
 * and written without repetition, and the size of what a model receives bounded.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpHarness, openMcpHarness } from './harness.js';

type Schema = Record<string, unknown>;

let h: McpHarness;

beforeAll(async () => {
  h = await openMcpHarness();
});

afterAll(async () => {
  await h.close();
});

/** Every schema node under `schema`, with its path. */
function* nodes(schema: unknown, path = ''): Generator<[string, Schema]> {
  if (typeof schema !== 'object' || schema === null) return;
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries()) yield* nodes(item, `${path}/${index}`);
    return;
  }
  yield [path, schema as Schema];
  for (const [key, value] of Object.entries(schema)) yield* nodes(value, `${path}/${key}`);
}

/** The fields of an input schema, by dotted path (`poll.options[]`). */
function fields(schema: Schema, prefix = ''): Array<[string, Schema]> {
  const out: Array<[string, Schema]> = [];
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const path = prefix ? `${prefix}.${name}` : name;
    out.push([path, child], ...fields(child, path));
    const items = child.items as Schema | undefined;
    if (items) out.push([`${path}[]`, items], ...fields(items, `${path}[]`));
  }
  return out;
}

const tool = (name: string): Tool => h.tools.find((t) => t.name === name)!;

describe('input schemas a model receives', () => {
  it('carry no format, no $ref, no anyOf for null and no meaningless integer bound, in any tool', () => {
    for (const t of h.tools) {
      for (const [path, node] of nodes(t.inputSchema)) {
        const where = `${t.name}${path}`;
        expect(node.format, where).toBeUndefined();
        expect(node.$ref ?? node.definitions ?? node.$defs, where).toBeUndefined();
        expect(node.anyOf ?? node.oneOf ?? node.allOf, where).toBeUndefined();
        for (const bound of ['minimum', 'maximum'] as const) {
          if (typeof node[bound] === 'number')
            expect(Math.abs(node[bound] as number), where).toBeLessThan(2 ** 40);
        }
      }
    }
  });

  it('give every field a type, and write a nullable field as a type list', () => {
    for (const t of h.tools) {
      for (const [path, field] of fields(t.inputSchema as Schema))
        expect(field.type, `${t.name}.${path}`).toBeDefined();
    }
    const update = fields(tool('update_post').inputSchema as Schema);
    const nullable = update.filter(([, field]) => Array.isArray(field.type)).map(([path]) => path);
    expect(nullable.sort()).toEqual(
      [
        'alt',
        'caption',
        'comment',
        'link',
        'media',
        'platforms',
        'poll',
        'postAsStory',
        'scheduledAt',
        'title',
      ].sort(),
    );
    const caption = update.find(([path]) => path === 'caption')![1];
    expect(caption).toMatchObject({ type: ['string', 'null'], minLength: 1, maxLength: 3000 });
  });

  it('say in words that a URL field takes a URL, with its length limit', () => {
    const urls: Array<[string, string]> = [
      ['create_post', 'link'],
      ['create_post', 'media[].url'],
      ['upload_media', 'url'],
    ];
    for (const [name, path] of urls) {
      const field = fields(tool(name).inputSchema as Schema).find(([p]) => p === path)![1];
      expect(field.description, `${name}.${path}`).toMatch(/URL/);
      expect(field.maxLength, `${name}.${path}`).toBeGreaterThan(0);
    }
  });
});

describe('output schemas', () => {
  it('write no subtree of 64 bytes or more twice, and every $ref names a definition', () => {
    for (const t of h.tools) {
      const schema = t.outputSchema as Schema;
      const definitions = (schema.definitions ?? {}) as Record<string, Schema>;
      const seen = new Map<string, string>();
      for (const [path, node] of nodes(schema)) {
        if (typeof node.$ref === 'string')
          expect(definitions[node.$ref.replace('#/definitions/', '')], `${t.name}${path}`).toBeDefined();
        const text = JSON.stringify(node);
        if (text.length < 64 || path.endsWith('/properties') || path.endsWith('/definitions')) continue;
        expect(seen.get(text), `${t.name}${path} repeats ${seen.get(text)}`).toBeUndefined();
        seen.set(text, path);
      }
    }
  });

  it('still check a post exactly: a field of the wrong type or a bad timestamp is refused', async () => {
    const created = await h.call('create_post', {
      brandId: 1,
      collectionId: 1,
      publishMode: 'DRAFT',
      caption: 'Draft for the schema test',
    });
    const postId = (created.structuredContent as { data: { id: number } }).data.id;
    const got = await h.call('get_post', { brandId: 1, postId });
    const validate = new AjvJsonSchemaValidator().getValidator(tool('get_post').outputSchema!);
    const body = got.structuredContent as { data: Record<string, unknown> };
    expect(validate(body).valid).toBe(true);
    expect(validate({ ...body, data: { ...body.data, createdAt: '2026-11-22 10:00:00' } }).valid).toBe(false);
    expect(validate({ ...body, data: { ...body.data, dueAt: 17 } }).valid).toBe(false);
    const content = body.data.content as Record<string, unknown>;
    const badOverride = { ...content, platforms: { mastodon: { caption: 5 } } };
    expect(validate({ ...body, data: { ...body.data, content: badOverride } }).valid).toBe(false);
  });
});

/** What a model receives of one tool: its name, description and input schema. */
const modelBytes = (t: Tool) =>
  Buffer.byteLength(
    JSON.stringify({ name: t.name, description: t.description, input_schema: t.inputSchema }),
  );

/**
 * Budgets, in bytes of compact JSON (tokens are counted with a real tokenizer in test/frameworks/).
 * Measured at 19,800 bytes for the 13 tools (26,088 before the lean-down of issue 13); connect_channel
 * (issue 27) brought the 14 to about 20,700.
 */
const TOTAL_BUDGET = 21_200;
const PER_TOOL_BUDGET: Record<string, number> = { create_post: 6_300, update_post: 6_100 };
const OTHER_TOOL_BUDGET = 1_400;

describe('size of the tool list', () => {
  it('keeps what a model receives for the whole tool list within its budget', () => {
    const rows = h.tools.map((t) => [t.name, modelBytes(t)] as const);
    const total = rows.reduce((sum, [, bytes]) => sum + bytes, 0);
    const listBytes = Buffer.byteLength(JSON.stringify({ tools: h.tools }));
    console.log(
      [
        ...rows.map(([name, bytes]) => `${name.padEnd(18)} ${bytes} bytes`),
        `model-facing total ${total} bytes; whole tools/list ${listBytes} bytes`,
      ].join('\n'),
    );
    for (const [name, bytes] of rows)
      expect(bytes, name).toBeLessThanOrEqual(PER_TOOL_BUDGET[name] ?? OTHER_TOOL_BUDGET);
    expect(total).toBeLessThanOrEqual(TOTAL_BUDGET);
  });
});
