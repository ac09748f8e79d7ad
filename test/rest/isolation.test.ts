/**
 * Isolation between users: a brand the user cannot access answers exactly like one that does not
 * exist, on every brand endpoint; posts and media of another brand are out of reach.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pngBytes } from '../contract/media-files.js';
import {
  BRAND_NOT_FOUND,
  expectExact,
  invalidBody,
  KEY_A,
  KEY_B,
  multipart,
  openRestWorld,
  POST_NOT_FOUND,
  type RestWorld,
  readJson,
  upload,
} from './support.js';

let world: RestWorld;
let aPost: number;
beforeEach(async () => {
  world = await openRestWorld();
  const created = await readJson(
    await world.request('POST', '/v1/brands/1/collections/2/posts', {
      json: { publishMode: 'SCHEDULE', caption: "A's scheduled post", scheduledAt: '2026-11-24 09:00:00' },
    }),
  );
  expect(created.status).toBe(201);
  aPost = created.body.data.id;
});
afterEach(async () => {
  expect(world.logged).toEqual([]);
  await world.close();
});

type Call = { method: string; path: (brand: number) => string; json?: unknown; upload?: boolean };

function brandEndpoints(postId: () => number): Call[] {
  return [
    { method: 'GET', path: (b) => `/v1/brands/${b}/channels` },
    { method: 'GET', path: (b) => `/v1/brands/${b}/collections` },
    { method: 'POST', path: (b) => `/v1/brands/${b}/media`, upload: true },
    {
      method: 'POST',
      path: (b) => `/v1/brands/${b}/collections/1/posts`,
      json: { publishMode: 'DRAFT', caption: 'From B' },
    },
    { method: 'GET', path: (b) => `/v1/brands/${b}/posts` },
    { method: 'GET', path: (b) => `/v1/brands/${b}/posts/${postId()}` },
    { method: 'PATCH', path: (b) => `/v1/brands/${b}/posts/${postId()}`, json: { caption: 'Hijacked' } },
    { method: 'DELETE', path: (b) => `/v1/brands/${b}/posts/${postId()}` },
    { method: 'POST', path: (b) => `/v1/brands/${b}/posts/${postId()}/publish` },
    { method: 'GET', path: (b) => `/v1/brands/${b}/queue` },
  ];
}

async function send(call: Call, brand: number, key: string): Promise<Response> {
  if (call.upload) {
    const { body, contentType } = multipart([{ field: 'media', filename: 'b.png', bytes: pngBytes(3) }]);
    return world.request(call.method, call.path(brand), {
      key,
      body: new Uint8Array(body),
      headers: { 'content-type': contentType },
    });
  }
  return world.request(call.method, call.path(brand), { key, json: call.json });
}

async function expectAPostUntouched(): Promise<void> {
  const { status, body } = await readJson(await world.request('GET', `/v1/brands/1/posts/${aPost}`));
  expect(status).toBe(200);
  expect(body.data).toMatchObject({
    id: aPost,
    status: 'scheduled',
    content: { caption: "A's scheduled post" },
    scheduledAt: '2026-11-24 09:00:00',
  });
}

describe("another user's brand", () => {
  it('answers B on every brand endpoint of brand 1 exactly like brand 999: the same 404 bytes', async () => {
    for (const call of brandEndpoints(() => aPost)) {
      for (const brand of [1, 2, 999]) {
        const response = await send(call, brand, KEY_B);
        const text = await response.text();
        expect({ call: `${call.method} ${call.path(brand)}`, status: response.status, text }).toEqual({
          call: `${call.method} ${call.path(brand)}`,
          status: 404,
          text: BRAND_NOT_FOUND,
        });
      }
    }
    await expectAPostUntouched();
    expect(world.stagingEntries()).toEqual([]);
    const posts = await readJson(await world.request('GET', '/v1/brands/1/posts'));
    expect(posts.body.pagination.total).toBe(1);
  });

  it("answers A on B's brand with the same 404", async () => {
    for (const call of brandEndpoints(() => aPost)) {
      await expectExact(await send(call, world.b.brandId, KEY_A), 404, BRAND_NOT_FOUND);
    }
  });

  it("does not list the demo brands for B, nor B's brand for A", async () => {
    const forB = await readJson(await world.request('GET', '/v1/brands?per_page=100', { key: KEY_B }));
    expect(forB.body.data.map((b: { id: number }) => b.id)).toEqual([world.b.brandId]);
    const forA = await readJson(await world.request('GET', '/v1/brands?per_page=100'));
    expect(forA.body.data.map((b: { id: number }) => b.id)).toEqual([1, 2]);
  });
});

describe("another user's posts", () => {
  it("answers B with 404 Post not found for A's post id under B's own brand, and changes nothing", async () => {
    const base = `/v1/brands/${world.b.brandId}/posts/${aPost}`;
    await expectExact(await world.request('GET', base, { key: KEY_B }), 404, POST_NOT_FOUND);
    await expectExact(
      await world.request('PATCH', base, { key: KEY_B, json: { caption: 'Hijacked' } }),
      404,
      POST_NOT_FOUND,
    );
    await expectExact(await world.request('POST', `${base}/publish`, { key: KEY_B }), 404, POST_NOT_FOUND);
    await expectExact(await world.request('DELETE', base, { key: KEY_B }), 404, POST_NOT_FOUND);
    await expectAPostUntouched();

    const list = await readJson(
      await world.request('GET', `/v1/brands/${world.b.brandId}/posts`, { key: KEY_B }),
    );
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    const queue = await readJson(
      await world.request('GET', `/v1/brands/${world.b.brandId}/queue`, { key: KEY_B }),
    );
    expect(queue.body.data.queued).toEqual([]);
  });

  it('answers A with 404 for a post of brand 1 read under brand 2, although A may use both brands', async () => {
    await expectExact(await world.request('GET', `/v1/brands/2/posts/${aPost}`), 404, POST_NOT_FOUND);
  });

  it("lets B work in B's own brand: the collection of B's brand, B's own post", async () => {
    const created = await readJson(
      await world.request('POST', `/v1/brands/${world.b.brandId}/collections/${world.b.collectionId}/posts`, {
        key: KEY_B,
        json: { publishMode: 'DRAFT', caption: "B's own draft" },
      }),
    );
    expect(created.status).toBe(201);
    const own = await readJson(
      await world.request('GET', `/v1/brands/${world.b.brandId}/posts/${created.body.data.id}`, {
        key: KEY_B,
      }),
    );
    expect(own.body.data).toMatchObject({ brandId: world.b.brandId, collectionId: world.b.collectionId });
    // A cannot reach it through a brand A owns.
    await expectExact(
      await world.request('GET', `/v1/brands/1/posts/${created.body.data.id}`),
      404,
      POST_NOT_FOUND,
    );
  });
});

describe("another brand's media", () => {
  it("refuses a media id of A's brand in B's post as an invalid media id", async () => {
    const uploaded = await readJson(await upload(world, 1, { name: 'a.png', bytes: pngBytes(11) }));
    expect(uploaded.status).toBe(201);
    const response = await world.request(
      'POST',
      `/v1/brands/${world.b.brandId}/collections/${world.b.collectionId}/posts`,
      {
        key: KEY_B,
        json: { publishMode: 'DRAFT', caption: 'Borrowed media', media: [{ id: uploaded.body.data.id }] },
      },
    );
    await expectExact(response, 422, invalidBody({ 'media.0.id': ['The selected media.0.id is invalid.'] }));
  });
});
