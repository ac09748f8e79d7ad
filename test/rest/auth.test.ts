/** Authentication: `Authorization: Bearer <API key>` on every endpoint, the spec's 401 body otherwise. */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pngBytes } from '../contract/media-files.js';
import {
  expectExact,
  KEY_A,
  multipart,
  openRestWorld,
  type RestWorld,
  readJson,
  UNAUTHENTICATED,
} from './support.js';

let world: RestWorld;
let draftId: number;
beforeEach(async () => {
  world = await openRestWorld();
  const created = await readJson(
    await world.request('POST', '/v1/brands/1/collections/1/posts', {
      json: { publishMode: 'DRAFT', caption: 'A draft that must survive' },
    }),
  );
  expect(created.status).toBe(201);
  draftId = created.body.data.id;
});
afterEach(async () => {
  expect(world.logged).toEqual([]);
  await world.close();
});

function endpoints(): Array<{ method: string; path: string; json?: unknown; upload?: boolean }> {
  return [
    { method: 'GET', path: '/v1/me' },
    { method: 'GET', path: '/v1/brands' },
    { method: 'GET', path: '/v1/brands/1/channels' },
    { method: 'GET', path: '/v1/brands/1/collections' },
    { method: 'POST', path: '/v1/brands/1/media', upload: true },
    {
      method: 'POST',
      path: '/v1/brands/1/collections/1/posts',
      json: { publishMode: 'DRAFT', caption: 'Should never be stored' },
    },
    { method: 'GET', path: '/v1/brands/1/posts' },
    { method: 'GET', path: `/v1/brands/1/posts/${draftId}` },
    { method: 'PATCH', path: `/v1/brands/1/posts/${draftId}`, json: { caption: 'Changed by nobody' } },
    { method: 'DELETE', path: `/v1/brands/1/posts/${draftId}` },
    { method: 'POST', path: `/v1/brands/1/posts/${draftId}/publish` },
    { method: 'GET', path: '/v1/brands/1/queue' },
  ];
}

const BAD_CREDENTIALS: Array<[string, Record<string, string>]> = [
  ['no Authorization header', {}],
  ['the Basic scheme', { authorization: 'Basic x' }],
  ['Basic with a valid key', { authorization: `Basic ${KEY_A}` }],
  ['a wrong key', { authorization: 'Bearer this-key-matches-nobody-000' }],
  ['Bearer without a key', { authorization: 'Bearer ' }],
  ['the key without a scheme', { authorization: KEY_A }],
  ['a key with a suffix', { authorization: `Bearer ${KEY_A}x` }],
];

describe('401 Unauthenticated', () => {
  for (const [label, headers] of BAD_CREDENTIALS) {
    it(`answers every endpoint with the spec's 401 body for ${label}`, async () => {
      for (const endpoint of endpoints()) {
        let response: Response;
        if (endpoint.upload) {
          const { body, contentType } = multipart([
            { field: 'media', filename: 'a.png', bytes: pngBytes(7) },
          ]);
          response = await world.request(endpoint.method, endpoint.path, {
            key: null,
            body: new Uint8Array(body),
            headers: { ...headers, 'content-type': contentType },
          });
        } else {
          response = await world.request(endpoint.method, endpoint.path, {
            key: null,
            json: endpoint.json,
            headers,
          });
        }
        const text = await response.text();
        expect({ endpoint: `${endpoint.method} ${endpoint.path}`, status: response.status, text }).toEqual({
          endpoint: `${endpoint.method} ${endpoint.path}`,
          status: 401,
          text: UNAUTHENTICATED,
        });
      }
      // Nothing was created, changed, deleted or uploaded.
      const posts = await readJson(await world.request('GET', '/v1/brands/1/posts'));
      expect(posts.body.data).toHaveLength(1);
      expect(posts.body.data[0]).toMatchObject({
        id: draftId,
        status: 'draft',
        content: { caption: 'A draft that must survive' },
      });
      expect(world.stagingEntries()).toEqual([]);
    });
  }

  it('answers an unknown /v1 path without a key with 401 too (no route discovery without a key)', async () => {
    await expectExact(
      await world.request('GET', '/v1/brands/1/secrets', { key: null }),
      401,
      UNAUTHENTICATED,
    );
  });

  it('accepts the scheme case-insensitively, as RFC 7235 wants', async () => {
    const response = await world.request('GET', '/v1/me', {
      key: null,
      headers: { authorization: `bearer ${KEY_A}` },
    });
    expect(response.status).toBe(200);
  });
});
