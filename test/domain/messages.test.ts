import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { attributeName, fieldErrorsFromIssues } from '../../src/domain/messages.js';
import { characterCount, text } from '../../src/domain/schemas.js';
import { dropAbsentValues, validate } from '../../src/domain/validation.js';

describe('attributeName', () => {
  it.each([
    ['publishMode', 'publish mode'],
    ['poll.correctOptionIndex', 'poll.correct option index'],
    ['per_page', 'per page'],
    ['__proto__', '__proto__'],
    ['poll.__proto__', 'poll.__proto__'],
    ['_leading', '_leading'],
    ['media.0.id', 'media.0.id'],
    ['platforms.youtube.playlists.1.channelId', 'platforms.youtube.playlists.1.channel id'],
  ])('%s → %s', (key, attribute) => {
    expect(attributeName(key)).toBe(attribute);
  });
});

describe('fieldErrorsFromIssues', () => {
  const schema = z.strictObject({
    a: z.number().int().min(2),
    b: z.array(z.string()).max(1),
    c: z.boolean(),
  });

  it('reports every issue, keyed by dotted path', () => {
    const result = schema.safeParse({ a: 1, b: [2], c: 'no', d: 1 }, { reportInput: true });
    expect(result.success).toBe(false);
    expect(fieldErrorsFromIssues(result.error!.issues)).toEqual({
      a: ['The a must be at least 2.'],
      'b.0': ['The b.0 must be a string.'],
      c: ['The c field must be true or false.'],
      d: ['The d field is not allowed.'],
    });
  });

  it('reports the size of an array', () => {
    const result = schema.safeParse({ a: 2, b: ['x', 'y'], c: true }, { reportInput: true });
    expect(fieldErrorsFromIssues(result.error!.issues)).toEqual({
      b: ['The b may not have more than 1 items.'],
    });
  });

  it('names a body that is not an object, and says it must be one', () => {
    for (const body of [[1], null, 'text', 123, true]) {
      const result = schema.safeParse(body, { reportInput: true });
      expect(fieldErrorsFromIssues(result.error!.issues), JSON.stringify(body)).toEqual({
        body: ['The body must be an object.'],
      });
    }
  });
});

describe('text', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(characterCount('😀é')).toBe(2);
    expect(validate(z.object({ t: text({ max: 3 }) }), { t: '😀😀😀' }).ok).toBe(true);
    expect(validate(z.object({ t: text({ max: 3 }) }), { t: '😀😀😀😀' })).toEqual({
      ok: false,
      errors: { t: ['The t may not be greater than 3 characters.'] },
    });
  });

  it('treats a blank required string as missing', () => {
    expect(validate(z.object({ t: z.array(text({ max: 3 })) }), { t: ['  '] })).toEqual({
      ok: false,
      errors: { 't.0': ['The t.0 field is required.'] },
    });
  });
});

describe('dropAbsentValues', () => {
  it('drops null and blank properties at every depth, keeps array items and other values verbatim', () => {
    expect(
      dropAbsentValues({ a: null, b: '  ', c: ' x ', d: { e: '', f: 0, g: false }, h: [null, ''] }),
    ).toEqual({
      c: ' x ',
      d: { f: 0, g: false },
      h: [null, ''],
    });
  });

  it('keeps a __proto__ key as plain data, without touching prototypes', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const output = dropAbsentValues(input) as Record<string, unknown>;
    expect(Object.keys(output)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(validate(z.strictObject({ a: z.number() }), input)).toEqual({
      ok: false,
      // An object literal's `__proto__:` would set the prototype; build the expected own key instead.
      errors: Object.fromEntries([['__proto__', ['The __proto__ field is not allowed.']]]),
    });
  });
});
