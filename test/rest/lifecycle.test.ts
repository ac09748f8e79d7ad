/**
 * The post lifecycle endpoints under a brand: list (filters, pages), read, change, delete, publish now,
 * and the queue.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  expectExact,
  expectTimestamps,
  invalidBody,
  openRestWorld,
  POST_NOT_FOUND,
  type RestWorld,
  readJson,
} from './support.js';

let world: RestWorld;
beforeEach(async () => {
  world = await openRestWorld();
});
afterEach(async () => {
  expect(world.logged).toEqual([]);
  await world.close();
});

async function create(payload: Record<string, unknown>, collection = 1): Promise<number> {
  const { status, body } = await readJson(
    await world.request('POST', `/v1/brands/1/collections/${collection}/posts`, { json: payload }),
  );
  expect(status, JSON.stringify(body)).toBe(201);
  return body.data.id;
}

const getPost = async (id: number) => readJson(await world.request('GET', `/v1/brands/1/posts/${id}`));
const listPosts = async (query = '') => readJson(await world.request('GET', `/v1/brands/1/posts${query}`));

const POST_FIELDS = [
  'id',
  'brandId',
  'collectionId',
  'status',
  'publishMode',
  'timezone',
  'scheduledAt',
  'dueAt',
  'content',
  'deliveries',
  'createdAt',
  'updatedAt',
  'publishedAt',
];

describe('GET /v1/brands/{brandId}/posts/{postId}', () => {
  it('answers 200 with the post resource', async () => {
    const id = await create(
      { publishMode: 'SCHEDULE', caption: 'Scheduled', title: 'T', scheduledAt: '2026-11-24 09:00:00' },
      2,
    );
    const { status, body } = await getPost(id);
    expect(status).toBe(200);
    expect(body.status).toBe('success');
    expect(Object.keys(body.data)).toEqual(POST_FIELDS);
    expect(body.data).toEqual({
      id,
      brandId: 1,
      collectionId: 2,
      status: 'scheduled',
      publishMode: 'SCHEDULE',
      timezone: 'America/New_York',
      scheduledAt: '2026-11-24 09:00:00',
      dueAt: '2026-11-24T14:00:00.000000Z',
      content: { caption: 'Scheduled', title: 'T' },
      deliveries: [],
      createdAt: '2026-11-21T12:00:00.000000Z',
      updatedAt: '2026-11-21T12:00:00.000000Z',
      publishedAt: null,
    });
  });

  it('answers 404 Post not found for an unknown id', async () => {
    await expectExact(await world.request('GET', '/v1/brands/1/posts/4242'), 404, POST_NOT_FOUND);
  });
});

describe('GET /v1/brands/{brandId}/posts', () => {
  it('lists posts newest planned time first, and filters by status, collection, time and order', async () => {
    const draft = await create({ publishMode: 'DRAFT', caption: 'Draft' }, 1);
    const queued = await create({ publishMode: 'QUEUE', caption: 'Queued' }, 3);
    const early = await create(
      { publishMode: 'SCHEDULE', caption: 'Early', scheduledAt: '2026-11-23 08:00:00' },
      2,
    );
    const late = await create(
      { publishMode: 'SCHEDULE', caption: 'Late', scheduledAt: '2026-12-05 18:30:00' },
      2,
    );

    const all = await listPosts('?per_page=100');
    expect(all.status).toBe(200);
    expect(all.body.pagination).toMatchObject({ total: 4, perPage: 100, currentPage: 1, lastPage: 1 });
    expect(all.body.data.map((p: { id: number }) => p.id).sort()).toEqual(
      [draft, queued, early, late].sort(),
    );
    expectTimestamps(all.body.data);

    const ids = async (query: string) =>
      (await listPosts(query)).body.data.map((p: { id: number }) => p.id) as number[];
    expect(await ids('?status=scheduled&order=calendar')).toEqual([early, late]);
    expect(await ids('?status=scheduled&order=newest')).toEqual([late, early]);
    expect(await ids('?status=queued')).toEqual([queued]);
    expect(await ids('?status=draft')).toEqual([draft]);
    expect(await ids('?collectionId=2&order=calendar')).toEqual([early, late]);
    expect(await ids('?collectionId=3')).toEqual([queued]);
    // Bounds are local times of the brand (New York): 2026-11-23 08:00 EST is 13:00 UTC.
    expect(await ids('?from=2026-11-23%2008:00:00&to=2026-12-01%2000:00:00')).toEqual([early]);
    expect(await ids('?from=2026-11-23%2008:00:01&status=scheduled')).toEqual([late]);
  });

  it('answers bad filters with 422', async () => {
    await expectExact(
      await world.request('GET', '/v1/brands/1/posts?status=gone'),
      422,
      invalidBody({ status: ['The selected status is invalid.'] }),
    );
    await expectExact(
      await world.request('GET', '/v1/brands/1/posts?from=yesterday'),
      422,
      invalidBody({ from: ['The from does not match the format Y-m-d H:i:s.'] }),
    );
    const both = await readJson(await world.request('GET', '/v1/brands/1/posts?order=random&colour=red'));
    expect(both).toEqual({
      status: 422,
      body: {
        status: 'error',
        message: 'The given data was invalid.',
        errors: { colour: ['The colour field is not allowed.'], order: ['The selected order is invalid.'] },
      },
    });
  });
});

describe('PATCH /v1/brands/{brandId}/posts/{postId}', () => {
  it('changes the given fields, removes a field given null, and keeps the rest', async () => {
    const id = await create({
      publishMode: 'SCHEDULE',
      caption: 'Before',
      title: 'Title',
      scheduledAt: '2026-11-24 09:00:00',
    });
    const { status, body } = await readJson(
      await world.request('PATCH', `/v1/brands/1/posts/${id}`, {
        json: { caption: 'After', title: null, scheduledAt: '2026-11-25 10:15:00' },
      }),
    );
    expect(status).toBe(200);
    expect(body.status).toBe('success');
    expect(body.data).toMatchObject({
      id,
      status: 'scheduled',
      content: { caption: 'After' },
      scheduledAt: '2026-11-25 10:15:00',
      dueAt: '2026-11-25T15:15:00.000000Z',
    });
    expect(body.data.content.title).toBeUndefined();
    const { warnings: _warnings, ...stored } = body.data;
    expect((await getPost(id)).body.data).toEqual(stored);
  });

  it('validates the change with the messages of creation, and changes nothing', async () => {
    const id = await create({ publishMode: 'DRAFT', caption: 'Stable' });
    await expectExact(
      await world.request('PATCH', `/v1/brands/1/posts/${id}`, {
        json: { publishMode: 'SCHEDULE', scheduledAt: '2026-11-20 09:00:00' },
      }),
      422,
      invalidBody({ scheduledAt: ['The scheduled at must be a future date.'] }),
    );
    await expectExact(
      await world.request('PATCH', `/v1/brands/1/posts/${id}`, { json: { caption: null } }),
      422,
      invalidBody({ caption: ['The caption field is required when poll is not present.'] }),
    );
    await expectExact(
      await world.request('PATCH', `/v1/brands/1/posts/${id}`, { json: { postId: id + 1, caption: 'x' } }),
      422,
      invalidBody({ postId: ['The post id field is not allowed (it is given by the path).'] }),
    );
    await expectExact(
      await world.request('PATCH', `/v1/brands/1/posts/${id}`, {
        body: '{"caption":',
        headers: { 'content-type': 'application/json' },
      }),
      422,
      invalidBody({ body: ['The body must be valid JSON.'] }),
    );
    expect((await getPost(id)).body.data).toMatchObject({ status: 'draft', content: { caption: 'Stable' } });
  });

  it('answers 404 for a post that does not exist', async () => {
    await expectExact(
      await world.request('PATCH', '/v1/brands/1/posts/777', { json: { caption: 'x' } }),
      404,
      POST_NOT_FOUND,
    );
  });
});

describe('DELETE /v1/brands/{brandId}/posts/{postId}', () => {
  it('deletes a draft: 200, then 404', async () => {
    const id = await create({ publishMode: 'DRAFT', caption: 'Bin me' });
    await expectExact(
      await world.request('DELETE', `/v1/brands/1/posts/${id}`),
      200,
      JSON.stringify({
        status: 'success',
        data: { id, status: 'deleted', message: `Draft ${id} was deleted.` },
      }),
    );
    await expectExact(await world.request('GET', `/v1/brands/1/posts/${id}`), 404, POST_NOT_FOUND);
    await expectExact(await world.request('DELETE', `/v1/brands/1/posts/${id}`), 404, POST_NOT_FOUND);
  });

  it('cancels a scheduled post; a second delete is a 422 on postId', async () => {
    const id = await create({
      publishMode: 'SCHEDULE',
      caption: 'Cancel me',
      scheduledAt: '2026-11-24 09:00:00',
    });
    const { status, body } = await readJson(await world.request('DELETE', `/v1/brands/1/posts/${id}`));
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ id, status: 'cancelled' });
    expect(body.data.message).toContain(`Post ${id} was cancelled`);
    expect((await getPost(id)).body.data.status).toBe('cancelled');
    await expectExact(
      await world.request('DELETE', `/v1/brands/1/posts/${id}`),
      422,
      invalidBody({
        postId: [`The post ${id} is cancelled: only draft, queued and scheduled posts can be deleted.`],
      }),
    );
  });
});

describe('POST /v1/brands/{brandId}/posts/{postId}/publish', () => {
  it('publishes a draft now: one delivery per channel of its collection', async () => {
    const id = await create({ publishMode: 'DRAFT', caption: 'Go now' }, 3);
    const { status, body } = await readJson(await world.request('POST', `/v1/brands/1/posts/${id}/publish`));
    expect(status).toBe(200);
    expect(body.status).toBe('success');
    expect(Object.keys(body.data)).toEqual(POST_FIELDS);
    expect(body.data).toMatchObject({ id, status: 'publishing', publishMode: 'IMMEDIATE' });
    expect(body.data.deliveries.map((d: { channelType: string }) => d.channelType).sort()).toEqual(
      ['Bluesky', 'LinkedIn', 'Mastodon', 'Telegram', 'Threads', 'X/Twitter'].sort(),
    );
    expectTimestamps(body.data);

    await expectExact(
      await world.request('POST', `/v1/brands/1/posts/${id}/publish`),
      422,
      invalidBody({
        postId: [
          `The post ${id} is publishing: only draft, queued and scheduled posts can be published now.`,
        ],
      }),
    );
    await expectExact(
      await world.request('PATCH', `/v1/brands/1/posts/${id}`, { json: { caption: 'Too late' } }),
      422,
      invalidBody({
        postId: [`The post ${id} is publishing: only draft, queued and scheduled posts can be changed.`],
      }),
    );
  });

  it('answers 404 for a post that does not exist', async () => {
    await expectExact(await world.request('POST', '/v1/brands/1/posts/555/publish'), 404, POST_NOT_FOUND);
  });
});

describe('GET /v1/brands/{brandId}/queue', () => {
  it("shows the brand's local time, its next free slots and its queued posts", async () => {
    const first = await create({ publishMode: 'QUEUE', caption: 'First in line' });
    const { status, body } = await readJson(await world.request('GET', '/v1/brands/1/queue?count=3'));
    expect(status).toBe(200);
    expect(body.status).toBe('success');
    expect(body.data).toMatchObject({
      brandId: 1,
      timezone: 'America/New_York',
      localNow: '2026-11-21 07:00:00',
      now: '2026-11-21T12:00:00.000000Z',
      queueTimes: ['09:00', '12:00', '17:00'],
      // 09:00 is taken by the queued post.
      nextSlots: [
        { scheduledAt: '2026-11-21 12:00:00', at: '2026-11-21T17:00:00.000000Z' },
        { scheduledAt: '2026-11-21 17:00:00', at: '2026-11-21T22:00:00.000000Z' },
        { scheduledAt: '2026-11-22 09:00:00', at: '2026-11-22T14:00:00.000000Z' },
      ],
    });
    expect(body.data.queued).toHaveLength(1);
    expect(body.data.queued[0]).toMatchObject({
      id: first,
      status: 'queued',
      scheduledAt: '2026-11-21 09:00:00',
    });
    expectTimestamps(body.data);
  });

  it('validates count', async () => {
    await expectExact(
      await world.request('GET', '/v1/brands/1/queue?count=51'),
      422,
      invalidBody({ count: ['The count may not be greater than 50.'] }),
    );
  });
});
