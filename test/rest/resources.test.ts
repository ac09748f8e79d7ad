/** GET /v1/me, /v1/brands, /v1/brands/{id}/channels and /collections: statuses, fields, types; 404s. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHANNEL_TYPES } from '../../src/domain/schemas.js';
import {
  B_BRAND_TITLE,
  BRAND_NOT_FOUND,
  COLLECTION_NOT_FOUND,
  expectExact,
  expectTimestamps,
  KEY_B,
  notFoundBody,
  openRestWorld,
  POST_NOT_FOUND,
  type RestWorld,
  readJson,
  TIMESTAMP,
} from './support.js';

let world: RestWorld;
beforeEach(async () => {
  world = await openRestWorld();
});
afterEach(async () => {
  expect(world.logged).toEqual([]);
  await world.close();
});

const NOW = '2026-11-21T12:00:00.000000Z';

describe('GET /v1/me', () => {
  it("answers 200 with the key owner's profile", async () => {
    const { status, body } = await readJson(await world.request('GET', '/v1/me'));
    expect(status).toBe(200);
    expect(body).toEqual({
      status: 'success',
      data: { id: expect.any(String), name: 'User A', joinedAt: NOW, timezone: 'Pacific/Auckland' },
    });
    expect(Object.keys(body.data)).toEqual(['id', 'name', 'joinedAt', 'timezone']);

    const other = await readJson(await world.request('GET', '/v1/me', { key: KEY_B }));
    expect(other.body.data.name).toBe('User B');
    expect(other.body.data.id).not.toBe(body.data.id);
  });
});

describe('GET /v1/brands', () => {
  it('lists the brands of the user with all six fields', async () => {
    const { status, body } = await readJson(await world.request('GET', '/v1/brands'));
    expect(status).toBe(200);
    expect(body.status).toBe('success');
    expect(body.data).toEqual([
      {
        id: 1,
        title: 'Northwind Coffee',
        description: 'Specialty coffee roaster',
        timezone: 'America/New_York',
        createdAt: NOW,
        updatedAt: NOW,
      },
      {
        id: 2,
        title: 'Kite & Key Studio',
        description: null,
        timezone: 'Asia/Tokyo',
        createdAt: NOW,
        updatedAt: NOW,
      },
    ]);
    expect(body.pagination).toEqual({
      currentPage: 1,
      perPage: 10,
      total: 2,
      lastPage: 1,
      nextPageUrl: null,
      prevPageUrl: null,
    });
  });

  it("lists only B's own brand for B", async () => {
    const { status, body } = await readJson(await world.request('GET', '/v1/brands', { key: KEY_B }));
    expect(status).toBe(200);
    expect(body.data.map((brand: { title: string }) => brand.title)).toEqual([B_BRAND_TITLE]);
    expect(body.data[0]).toMatchObject({ id: world.b.brandId, description: null, timezone: 'Europe/Paris' });
    expect(body.pagination.total).toBe(1);
  });
});

describe('GET /v1/brands/{brandId}/channels', () => {
  it('lists active and inactive channels with their fields', async () => {
    const { status, body } = await readJson(await world.request('GET', '/v1/brands/1/channels?per_page=100'));
    expect(status).toBe(200);
    expect(body.status).toBe('success');
    expect(body.data).toHaveLength(12);
    for (const channel of body.data) {
      expect(Object.keys(channel)).toEqual(['id', 'name', 'status', 'type', 'createdAt', 'updatedAt']);
      expect(Number.isInteger(channel.id)).toBe(true);
      expect(channel.name).toBe(`Northwind Coffee on ${channel.type}`);
      expect(channel.status).toBe(channel.type === 'Pinterest' ? 'INACTIVE' : 'ACTIVE');
      expect(channel.createdAt).toMatch(TIMESTAMP);
      expect(channel.updatedAt).toMatch(TIMESTAMP);
    }
    expect(body.data.map((c: { type: string }) => c.type).sort()).toEqual([...CHANNEL_TYPES].sort());
    expect(body.pagination).toMatchObject({ currentPage: 1, perPage: 100, total: 12, lastPage: 1 });
  });

  it("lists the other demo brand's four channels", async () => {
    const { body } = await readJson(await world.request('GET', '/v1/brands/2/channels'));
    expect(body.data.map((c: { type: string }) => c.type).sort()).toEqual(
      ['Bluesky', 'Instagram', 'LinkedIn', 'X/Twitter'].sort(),
    );
  });
});

describe('GET /v1/brands/{brandId}/collections', () => {
  it('lists the collections with their embedded channels', async () => {
    const { status, body } = await readJson(await world.request('GET', '/v1/brands/1/collections'));
    expect(status).toBe(200);
    expect(body.status).toBe('success');
    const channels = (await readJson(await world.request('GET', '/v1/brands/1/channels?per_page=100'))).body
      .data;
    expect(body.data.map((c: { id: number; title: string }) => [c.id, c.title])).toEqual([
      [1, 'Everywhere'],
      [2, 'Visual'],
      [3, 'Conversation'],
      [4, 'Newsletter'],
    ]);
    for (const collection of body.data) {
      expect(Object.keys(collection)).toEqual([
        'id',
        'title',
        'description',
        'status',
        'createdAt',
        'updatedAt',
        'channels',
      ]);
      expect(collection.status).toBe('ACTIVE');
      expect(collection.description === null || typeof collection.description === 'string').toBe(true);
      // Embedded channels are the Channel resource, field for field.
      for (const channel of collection.channels) {
        expect(channels).toContainEqual(channel);
      }
    }
    expectTimestamps(body.data);
    const byTitle = Object.fromEntries(
      body.data.map((c: { title: string; channels: Array<{ type: string }> }) => [
        c.title,
        c.channels.map((channel) => channel.type).sort(),
      ]),
    );
    expect(byTitle.Everywhere).toHaveLength(12);
    expect(byTitle.Visual).toEqual(['Facebook', 'Instagram', 'Pinterest', 'TikTok', 'YouTube']);
    expect(byTitle.Conversation).toEqual([
      'Bluesky',
      'LinkedIn',
      'Mastodon',
      'Telegram',
      'Threads',
      'X/Twitter',
    ]);
    expect(byTitle.Newsletter).toEqual([]);
    expect(body.pagination).toMatchObject({ total: 4, lastPage: 1, nextPageUrl: null, prevPageUrl: null });
  });
});

describe('404s', () => {
  it('answers 404 Brand not found for a brand that does not exist', async () => {
    for (const path of ['/v1/brands/999/channels', '/v1/brands/999/collections', '/v1/brands/999/posts']) {
      await expectExact(await world.request('GET', path), 404, BRAND_NOT_FOUND);
    }
  });

  it('answers 404 for non-numeric, zero, negative and fractional path ids', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '1e2', '%20']) {
      await expectExact(await world.request('GET', `/v1/brands/${id}/channels`), 404, BRAND_NOT_FOUND);
      await expectExact(await world.request('GET', `/v1/brands/${id}/collections`), 404, BRAND_NOT_FOUND);
      await expectExact(
        await world.request('POST', `/v1/brands/1/collections/${id}/posts`, {
          json: { publishMode: 'DRAFT', caption: `x ${id}` },
        }),
        404,
        COLLECTION_NOT_FOUND,
      );
      await expectExact(await world.request('GET', `/v1/brands/1/posts/${id}`), 404, POST_NOT_FOUND);
    }
  });

  it('answers 404 Collection not found for a missing collection and for one of another brand', async () => {
    const post = { publishMode: 'DRAFT', caption: 'Where does this go?' };
    await expectExact(
      await world.request('POST', '/v1/brands/1/collections/999/posts', { json: post }),
      404,
      COLLECTION_NOT_FOUND,
    );
    // Collection 5 belongs to brand 2, which A can use; B's collection belongs to B's brand.
    for (const collectionId of [5, world.b.collectionId]) {
      await expectExact(
        await world.request('POST', `/v1/brands/1/collections/${collectionId}/posts`, { json: post }),
        404,
        COLLECTION_NOT_FOUND,
      );
    }
    const list = await readJson(await world.request('GET', '/v1/brands/1/posts'));
    expect(list.body.pagination.total).toBe(0);
  });

  it('answers an unknown route with a JSON 404 error body naming the route', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing-here'],
      ['GET', '/v1/brands/1/nothing-here'],
      ['PUT', '/v1/me'],
      ['GET', '/nothing-here'],
    ] as const) {
      const message = `No endpoint ${method} ${path}; the API is described at /v1/openapi.json.`;
      await expectExact(await world.request(method, path), 404, notFoundBody('route', message));
    }
  });
});
