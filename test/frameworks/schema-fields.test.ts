/**
 * The checks adapters.test.ts relies on, on small schemas: each finds what it exists to find, so that a
 * clean result there means the conversions are clean, not that the checks look at nothing.
 */
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from './provider-formats.js';
import { fieldDifferences, meaninglessBounds, refusedKeywords } from './schema-fields.js';

const caption = { type: 'string', minLength: 1, maxLength: 3000 };
const server = {
  type: 'object',
  properties: { caption: { ...caption, type: ['string', 'null'] }, tags: { type: 'array', items: caption } },
  required: ['caption'],
};

describe('fieldDifferences', () => {
  it('takes null as a type list, `nullable` or an anyOf alternative alike', () => {
    const nullable = {
      ...server,
      properties: { ...server.properties, caption: { ...caption, nullable: true } },
    };
    const anyOf = {
      ...server,
      properties: { ...server.properties, caption: { anyOf: [caption, { type: 'null' }] } },
    };
    expect(fieldDifferences(server, nullable, 't')).toEqual([]);
    expect(fieldDifferences(server, anyOf, 't')).toEqual([]);
    expect(fieldDifferences(anyOf, server, 't')).toEqual([]);
  });

  it('reports a lost type, a lost or changed limit and a missing field, at any depth', () => {
    const sent = {
      type: 'object',
      properties: {
        caption: { maxLength: 3000 },
        tags: { type: 'array', items: { ...caption, maxLength: 10 } },
      },
    };
    expect(fieldDifferences(server, sent, 't')).toEqual([
      't: required ["caption"] arrived as (none)',
      't.caption: type null|string arrived as (none)',
      't.caption: minLength 1 arrived as (none)',
      't.tags[]: maxLength 3000 arrived as 10',
    ]);
    expect(fieldDifferences(server, { type: 'object', properties: {} }, 't')).toContain('t.caption: missing');
  });

  it('lets a dropped limit be absent, never changed', () => {
    const sent = {
      ...server,
      properties: { ...server.properties, tags: { type: 'array', items: { type: 'string', minLength: 2 } } },
    };
    expect(fieldDifferences(server, sent, 't', ['maxLength', 'minLength'])).toEqual([
      't.tags[]: minLength 1 arrived as 2',
    ]);
  });
});

describe('refusedKeywords', () => {
  it('finds a top-level union for OpenAI and Anthropic, and lets a nested one be', () => {
    const union = { type: 'object', anyOf: [{ properties: { a: { anyOf: [{ type: 'string' }] } } }] };
    expect(refusedKeywords(union, PROVIDERS.openai.refusals, 't')).toEqual(['t: anyOf']);
    expect(refusedKeywords(union, PROVIDERS.anthropic.refusals, 't')).toEqual(['t: anyOf']);
    expect(refusedKeywords({ properties: {} }, PROVIDERS.anthropic.refusals, 't')).toEqual([
      't: type (none)',
    ]);
  });

  it("finds what Gemini's Schema has no field for, a type list and a format it refuses", () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      properties: {
        link: { type: ['string', 'null'], format: 'uri' },
        when: { type: 'string', format: 'date-time' },
        items: { type: 'array', items: { $ref: '#/$defs/x' } },
      },
    };
    expect(refusedKeywords(schema, PROVIDERS.google.refusals, 't')).toEqual([
      't: additionalProperties',
      't.link: type ["string","null"]',
      't.link: format "uri"',
      't.items[]: $ref',
    ]);
  });
});

it('meaninglessBounds finds ±(2^53 − 1) at any depth', () => {
  const schema = {
    type: 'object',
    properties: { id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
  };
  expect(meaninglessBounds(schema, 't')).toEqual(['t.id: maximum 9007199254740991']);
});
