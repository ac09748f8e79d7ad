/**
 * The wording of two messages a client reads when its body is wrong: a JSON body that is not an object
 * (`null`, a string, a number, a boolean, a list) is told it must be an object, not "an array"; a field
 * named `__proto__` keeps its name in the sentence, not "The   proto   field".
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectExact, invalidBody, openRestWorld, type RestWorld, readJson } from './support.js';

let world: RestWorld;
beforeEach(async () => {
  world = await openRestWorld();
});
afterEach(async () => {
  expect(world.logged).toEqual([]);
  await world.close();
});

const CREATE = '/v1/brands/1/collections/1/posts';
const send = (method: string, path: string, body: string) =>
  world.request(method, path, { body, headers: { 'content-type': 'application/json' } });

async function draftPath(): Promise<string> {
  const created = await readJson(
    await world.request('POST', CREATE, { json: { publishMode: 'DRAFT', caption: 'Draft' } }),
  );
  expect(created.status).toBe(201);
  return `/v1/brands/1/posts/${created.body.data.id}`;
}

describe('a body that is not a JSON object', () => {
  const NOT_OBJECTS = ['null', '"text"', '123', 'true', 'false', '[]', '[{"publishMode":"DRAFT"}]'];

  it('is told it must be an object, on create_post', async () => {
    for (const body of NOT_OBJECTS) {
      await expectExact(
        await send('POST', CREATE, body),
        422,
        invalidBody({ body: ['The body must be an object.'] }),
      );
    }
  });

  it('is told it must be an object, on update_post', async () => {
    const path = await draftPath();
    for (const body of NOT_OBJECTS) {
      await expectExact(
        await send('PATCH', path, body),
        422,
        invalidBody({ body: ['The body must be an object.'] }),
      );
    }
  });

  it('leaves the spec\'s "must be an array" for a field that must be an object', async () => {
    await expectExact(
      await send('POST', CREATE, '{"publishMode":"DRAFT","caption":"x","poll":"x"}'),
      422,
      invalidBody({ poll: ['The poll must be an array.'] }),
    );
  });
});

describe('a field named __proto__', () => {
  it('is named as it is written, at the top level and nested', async () => {
    const response = await send(
      'POST',
      CREATE,
      '{"publishMode":"DRAFT","caption":"x","__proto__":{"polluted":"yes"},"poll":{"question":"Q?","options":["A","B"],"period":"1d","__proto__":1}}',
    );
    const errors: Array<[string, string[]]> = [
      ['__proto__', ['The __proto__ field is not allowed.']],
      ['poll.__proto__', ['The poll.__proto__ field is not allowed.']],
    ];
    const { status, body } = await readJson(response);
    expect(status).toBe(422);
    // An object literal's `__proto__:` would set the prototype; compare own entries instead.
    expect(Object.entries(body.errors).sort()).toEqual(errors);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('on update_post too, while snake_case fields still read as words', async () => {
    const path = await draftPath();
    const { status, body } = await readJson(
      await send('PATCH', path, '{"__proto__":1,"per_page":2,"caption":"y"}'),
    );
    expect(status).toBe(422);
    expect(Object.entries(body.errors).sort()).toEqual([
      ['__proto__', ['The __proto__ field is not allowed.']],
      ['per_page', ['The per page field is not allowed.']],
    ]);
  });
});
