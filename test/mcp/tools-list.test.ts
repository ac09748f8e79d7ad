/** tools/list over the real protocol: names, titles, annotations and the JSON Schemas clients see. */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/mcp/registry.js';
import { type McpHarness, openMcpHarness } from './harness.js';

const NAMES = [
  'get_profile',
  'list_brands',
  'list_channels',
  'list_collections',
  'upload_media',
  'create_post',
];
const READ_ONLY = ['get_profile', 'list_brands', 'list_channels', 'list_collections'];

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; items?: Schema };

let h: McpHarness;

beforeEach(async () => {
  h = await openMcpHarness();
});

afterEach(async () => {
  await h.close();
});

function tool(name: string): Tool {
  const found = h.tools.find((t) => t.name === name);
  if (!found) throw new Error(`tools/list has no ${name}`);
  return found;
}

function property(schema: unknown, ...path: string[]): Schema {
  let current = schema as Schema;
  for (const key of path) {
    const next = key === '[]' ? current.items : current.properties?.[key];
    if (!next) throw new Error(`no ${key} in ${JSON.stringify(current)}`);
    current = next;
  }
  return current;
}

describe('tools/list', () => {
  it('lists every registered tool exactly once, and the six fixed names', () => {
    const listed = h.tools.map((t) => t.name);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual(TOOLS.map((t) => t.name).sort());
    for (const name of NAMES) expect(listed.filter((n) => n === name)).toHaveLength(1);
  });

  it('gives every tool a title, a real description and all four annotation hints', () => {
    for (const t of h.tools) {
      expect(t.title, t.name).toEqual(expect.any(String));
      expect(t.title!.trim().length, t.name).toBeGreaterThan(0);
      expect(t.description!.length, t.name).toBeGreaterThanOrEqual(40);
      const hints = t.annotations ?? {};
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof hints[hint], `${t.name}.${hint}`).toBe('boolean');
      }
    }
  });

  it('marks the list and get tools read-only and the writing tools not', () => {
    for (const name of READ_ONLY) {
      expect(tool(name).annotations?.readOnlyHint, name).toBe(true);
      expect(tool(name).annotations?.destructiveHint, name).toBe(false);
    }
    expect(tool('create_post').annotations?.readOnlyHint).toBe(false);
    expect(tool('create_post').annotations?.idempotentHint).toBe(false);
    expect(tool('upload_media').annotations?.readOnlyHint).toBe(false);
  });

  it('declares object input and output schemas for every tool', () => {
    for (const t of h.tools) {
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
    }
  });

  it("shows create_post's constraints in its input schema", () => {
    const input = tool('create_post').inputSchema;
    expect(input.additionalProperties).toBe(false);
    expect(input.required).toEqual(expect.arrayContaining(['brandId', 'collectionId', 'publishMode']));
    expect(property(input, 'publishMode').enum).toEqual(['QUEUE', 'SCHEDULE', 'IMMEDIATE', 'DRAFT']);
    expect(property(input, 'caption')).toMatchObject({ type: 'string', maxLength: 3000 });
    expect(property(input, 'title').maxLength).toBe(255);
    expect(property(input, 'alt').maxLength).toBe(255);
    expect(property(input, 'link').maxLength).toBe(1000);
    expect(property(input, 'brandId').type).toBe('integer');
    expect(property(input, 'postAsStory').type).toBe('boolean');

    const options = property(input, 'poll', 'options');
    expect(options).toMatchObject({ type: 'array', minItems: 2, maxItems: 4 });
    expect(property(options, '[]')).toMatchObject({ type: 'string', maxLength: 30 });
    expect(property(input, 'poll', 'question').maxLength).toBe(280);
    expect(property(input, 'poll', 'explanation').maxLength).toBe(512);
    expect(property(input, 'poll', 'period').enum).toEqual(['1d', '3d', '7d']);
    expect(property(input, 'poll').additionalProperties).toBe(false);
    expect(property(input, 'comment', 'comment').maxLength).toBe(1000);

    const pattern = new RegExp(String(property(input, 'scheduledAt').pattern));
    expect(pattern.test('2026-11-24 09:00:00')).toBe(true);
    expect(pattern.test('2026-11-24T09:00:00Z')).toBe(false);
    expect(pattern.test('24/11/2026 09:00')).toBe(false);
  });

  it('limits per_page to 100 on every list tool', () => {
    for (const name of ['list_brands', 'list_channels', 'list_collections']) {
      const input = tool(name).inputSchema;
      expect(property(input, 'per_page'), name).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
      expect(property(input, 'page').minimum, name).toBe(1);
      expect(input.additionalProperties, name).toBe(false);
    }
    expect(tool('list_channels').inputSchema.required).toEqual(['brandId']);
    expect(tool('list_collections').inputSchema.required).toEqual(['brandId']);
  });

  it('asks upload_media for a brand and one source: path, url or base64 with filename', () => {
    const input = tool('upload_media').inputSchema;
    expect(input.required).toEqual(['brandId']);
    for (const source of ['path', 'url', 'base64', 'filename'])
      expect(property(input, source).type).toBe('string');
    // No `format` (Google's function declarations refuse "uri"): the description says it is a URL.
    expect(property(input, 'url')).toMatchObject({
      maxLength: 2048,
      description: expect.stringMatching(/URL/),
    });
    expect(property(input, 'url').format).toBeUndefined();
  });
});

describe('output schemas', () => {
  it('accept the success body and the error body, and reject anything else', () => {
    const validator = new AjvJsonSchemaValidator();
    for (const t of h.tools) {
      const check = validator.getValidator(t.outputSchema!);
      expect(
        check({ status: 'error', message: 'Brand not found.', errors: { brand: 'Brand not found.' } }).valid,
        t.name,
      ).toBe(true);
      expect(
        check({ status: 'error', message: 'The given data was invalid.', errors: { caption: ['x'] } }).valid,
        t.name,
      ).toBe(true);
      expect(check({ status: 'success', data: 'not the resource' }).valid, t.name).toBe(false);
      expect(check({ status: 'ok' }).valid, t.name).toBe(false);
    }
    const brands = validator.getValidator(tool('list_brands').outputSchema!);
    expect(brands({ status: 'success', data: [] }).valid).toBe(false);
  });
});
