/** POST /v1/brands/{brandId}/collections/{collectionId}/posts: 201, the spec's 422s and 404s, idempotency. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  expectExact,
  expectTimestamps,
  invalidBody,
  notFoundBody,
  openRestWorld,
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

const create = (
  payload: unknown,
  options: { brand?: number; collection?: number; headers?: Record<string, string> } = {},
) =>
  world.request('POST', `/v1/brands/${options.brand ?? 1}/collections/${options.collection ?? 1}/posts`, {
    json: payload,
    ...(options.headers ? { headers: options.headers } : {}),
  });

async function postCount(brand = 1): Promise<number> {
  return (await readJson(await world.request('GET', `/v1/brands/${brand}/posts`))).body.pagination.total;
}

describe('201 Created', () => {
  it('creates a post in every mode and answers {id, message}', async () => {
    const payloads = [
      { publishMode: 'DRAFT', caption: 'A draft' },
      { publishMode: 'QUEUE', caption: 'Queued' },
      { publishMode: 'SCHEDULE', caption: 'Scheduled', scheduledAt: '2026-12-01 10:30:00' },
      { publishMode: 'IMMEDIATE', caption: 'Now' },
      {
        publishMode: 'DRAFT',
        poll: { question: 'Tea or coffee?', options: ['Tea', 'Coffee'], period: '1d' },
      },
    ];
    const ids: number[] = [];
    for (const payload of payloads) {
      const { status, body } = await readJson(await create(payload, { collection: 3 }));
      expect(status, JSON.stringify(body)).toBe(201);
      expect(body.status).toBe('success');
      expect(Object.keys(body.data)).toEqual(['id', 'message']);
      expect(Number.isInteger(body.data.id)).toBe(true);
      expect(typeof body.data.message).toBe('string');
      ids.push(body.data.id);
    }
    expect(new Set(ids).size).toBe(payloads.length);
    const list = await readJson(await world.request('GET', '/v1/brands/1/posts?order=calendar&per_page=100'));
    expect(list.body.data.map((p: { status: string }) => p.status).sort()).toEqual(
      ['draft', 'draft', 'publishing', 'queued', 'scheduled'].sort(),
    );
    expectTimestamps(list.body.data);
  });

  it('reads scheduledAt in the brand timezone, not UTC and not the user timezone', async () => {
    const newYork = await readJson(
      await create({ publishMode: 'SCHEDULE', caption: 'NY morning', scheduledAt: '2026-11-24 09:00:00' }),
    );
    expect(newYork.status).toBe(201);
    expect(newYork.body.data.message).toContain('2026-11-24T14:00:00.000000Z');
    const stored = await readJson(await world.request('GET', `/v1/brands/1/posts/${newYork.body.data.id}`));
    expect(stored.body.data).toMatchObject({
      scheduledAt: '2026-11-24 09:00:00',
      dueAt: '2026-11-24T14:00:00.000000Z',
      timezone: 'America/New_York',
    });

    const tokyo = await readJson(
      await create(
        { publishMode: 'SCHEDULE', caption: 'Tokyo morning', scheduledAt: '2026-11-24 09:00:00' },
        { brand: 2, collection: 5 },
      ),
    );
    expect(tokyo.status).toBe(201);
    expect(tokyo.body.data.message).toContain('2026-11-24T00:00:00.000000Z');
  });

  it('publishes to a collection of brand 2 through its own path', async () => {
    const { status } = await readJson(
      await create({ publishMode: 'DRAFT', caption: 'Kite' }, { brand: 2, collection: 5 }),
    );
    expect(status).toBe(201);
    expect(await postCount(2)).toBe(1);
    expect(await postCount(1)).toBe(0);
  });
});

describe('422 validation', () => {
  const cases: Array<[string, unknown, Record<string, string[]>]> = [
    [
      'caption and poll both absent',
      { publishMode: 'QUEUE' },
      { caption: ['The caption field is required when poll is not present.'] },
    ],
    [
      'scheduledAt in the past',
      { publishMode: 'SCHEDULE', caption: 'Late', scheduledAt: '2026-11-21 06:59:59' },
      { scheduledAt: ['The scheduled at must be a future date.'] },
    ],
    [
      'scheduledAt exactly now (07:00 in New York)',
      { publishMode: 'SCHEDULE', caption: 'Now is not future', scheduledAt: '2026-11-21 07:00:00' },
      { scheduledAt: ['The scheduled at must be a future date.'] },
    ],
    [
      'SCHEDULE without scheduledAt',
      { publishMode: 'SCHEDULE', caption: 'When?' },
      { scheduledAt: ['The scheduled at field is required when publish mode is SCHEDULE.'] },
    ],
    [
      'scheduledAt in ISO format',
      { publishMode: 'SCHEDULE', caption: 'ISO', scheduledAt: '2026-11-24T09:00:00' },
      { scheduledAt: ['The scheduled at does not match the format Y-m-d H:i:s.'] },
    ],
    [
      'publishMode not one of the four',
      { publishMode: 'LATER', caption: 'Hm' },
      { publishMode: ['The selected publish mode is invalid.'] },
    ],
    ['publishMode missing', { caption: 'No mode' }, { publishMode: ['The publish mode field is required.'] }],
    [
      'caption too long',
      { publishMode: 'DRAFT', caption: 'x'.repeat(3001) },
      { caption: ['The caption may not be greater than 3000 characters.'] },
    ],
    [
      'unknown field',
      { publishMode: 'DRAFT', caption: 'Typo', captoin: 'x' },
      { captoin: ['The captoin field is not allowed.'] },
    ],
    [
      'brandId inside the body',
      { publishMode: 'DRAFT', caption: 'Mine', brandId: 2 },
      { brandId: ['The brand id field is not allowed (it is given by the path).'] },
    ],
    [
      'collectionId inside the body',
      { publishMode: 'DRAFT', caption: 'Mine', collectionId: 2 },
      { collectionId: ['The collection id field is not allowed (it is given by the path).'] },
    ],
  ];
  for (const [label, payload, errors] of cases) {
    it(`answers 422 for ${label}`, async () => {
      await expectExact(await create(payload), 422, invalidBody(errors));
      expect(await postCount()).toBe(0);
    });
  }

  it('reports several failures at once', async () => {
    const { status, body } = await readJson(
      await create({
        publishMode: 'SCHEDULE',
        scheduledAt: '24/11/2026 9am',
        title: 't'.repeat(256),
        link: 'not a url',
        poll: { question: 'Q?', options: ['only one'], period: '2d' },
      }),
    );
    expect(status).toBe(422);
    expect(body).toEqual({
      status: 'error',
      message: 'The given data was invalid.',
      errors: {
        scheduledAt: ['The scheduled at does not match the format Y-m-d H:i:s.'],
        title: ['The title may not be greater than 255 characters.'],
        link: ['The link format is invalid.'],
        'poll.options': ['The poll.options must have at least 2 items.'],
        'poll.period': ['The selected poll.period is invalid.'],
      },
    });
    expect(await postCount()).toBe(0);
  });

  it('reports caption, scheduledAt and publishMode together', async () => {
    const { status, body } = await readJson(
      await create({ publishMode: 'SCHEDULE', scheduledAt: '2020-01-01 00:00:00', postAsStory: 'yes' }),
    );
    expect(status).toBe(422);
    expect(body.errors).toEqual({
      caption: ['The caption field is required when poll is not present.'],
      scheduledAt: ['The scheduled at must be a future date.'],
      postAsStory: ['The post as story field must be true or false.'],
    });
  });

  it('answers an invalid JSON body with 422 on body', async () => {
    const response = await world.request('POST', '/v1/brands/1/collections/1/posts', {
      body: '{"publishMode": "DRAFT", "caption": ',
      headers: { 'content-type': 'application/json' },
    });
    await expectExact(response, 422, invalidBody({ body: ['The body must be valid JSON.'] }));
  });

  it('answers a JSON body that is not an object with 422', async () => {
    for (const body of ['[1,2]', '"text"', '42']) {
      const response = await world.request('POST', '/v1/brands/1/collections/1/posts', {
        body,
        headers: { 'content-type': 'application/json' },
      });
      const { status, body: answer } = await readJson(response);
      expect(status).toBe(422);
      expect(answer.status).toBe('error');
      expect(answer.message).toBe('The given data was invalid.');
    }
    expect(await postCount()).toBe(0);
  });

  it('refuses a non-DRAFT post in the empty collection on collectionId', async () => {
    await expectExact(
      await create({ publishMode: 'QUEUE', caption: 'To nobody' }, { collection: 4 }),
      422,
      invalidBody({
        collectionId: [
          'The collection has no channels: only a DRAFT can be created in it. Add channels to the collection or use publishMode DRAFT.',
        ],
      }),
    );
    expect(
      (await readJson(await create({ publishMode: 'DRAFT', caption: 'Later' }, { collection: 4 }))).status,
    ).toBe(201);
  });
});

describe('404 for a YouTube playlist channel', () => {
  const playlists = (channelIds: number[]) => ({
    publishMode: 'DRAFT',
    caption: `Playlists ${channelIds.join(',')}`,
    platforms: {
      youtube: { playlists: channelIds.map((channelId) => ({ channelId, playlistIds: ['PL1'] })) },
    },
  });
  const channelNotFound = (index: number) =>
    notFoundBody(
      `platforms.youtube.playlists.${index}.channelId`,
      'Channel not found or does not belong to the brand',
    );

  it('answers 404 for a channel that does not exist', async () => {
    await expectExact(await create(playlists([999])), 404, channelNotFound(0));
  });

  it("answers 404 for a channel of another brand, at that playlist's index", async () => {
    // Channel 6 is Northwind's YouTube channel; channel 13 belongs to brand 2; B's channel to B's brand.
    await expectExact(await create(playlists([6, 13])), 404, channelNotFound(1));
    await expectExact(await create(playlists([6, world.b.channelId])), 404, channelNotFound(1));
    expect(await postCount()).toBe(0);
  });

  it('accepts a channel of the brand', async () => {
    const channels = (await readJson(await world.request('GET', '/v1/brands/1/channels?per_page=100'))).body
      .data;
    const youtube = channels.find((c: { type: string }) => c.type === 'YouTube').id;
    expect((await create(playlists([youtube]))).status).toBe(201);
  });
});

describe('Idempotency-Key and dryRun', () => {
  it('answers the same key a second time with 200, the same id and duplicate true', async () => {
    const payload = { publishMode: 'QUEUE', caption: 'Only once' };
    const headers = { 'idempotency-key': 'rest-idem-0001' };
    const first = await readJson(await create(payload, { headers }));
    expect(first.status).toBe(201);
    const second = await readJson(await create(payload, { headers }));
    expect(second.status).toBe(200);
    expect(second.body.status).toBe('success');
    expect(second.body.data).toMatchObject({ id: first.body.data.id, duplicate: true });
    expect(second.body.data.message).toContain('same idempotency key');
    expect(await postCount()).toBe(1);
  });

  it('refuses the same key with different content', async () => {
    const headers = { 'idempotency-key': 'rest-idem-0002' };
    const first = await readJson(await create({ publishMode: 'DRAFT', caption: 'First' }, { headers }));
    const response = await create({ publishMode: 'DRAFT', caption: 'Second' }, { headers });
    await expectExact(
      response,
      422,
      invalidBody({
        idempotencyKey: [
          `The idempotency key was already used for post ${first.body.data.id}, with different content. Use a new key for a new post.`,
        ],
      }),
    );
  });

  it('answers a dry run with 200 and id null, and stores nothing', async () => {
    const { status, body } = await readJson(
      await create({
        publishMode: 'SCHEDULE',
        caption: 'Try',
        scheduledAt: '2026-11-24 09:00:00',
        dryRun: true,
      }),
    );
    expect(status).toBe(200);
    expect(body.status).toBe('success');
    expect(body.data).toMatchObject({ id: null, dryRun: true });
    expect(body.data.message).toContain('2026-11-24T14:00:00.000000Z');
    expect(await postCount()).toBe(0);
  });
});

describe('body size', () => {
  it('refuses a JSON body over 1 MB with 413 and the error body, before validating it', async () => {
    const world = await openRestWorld();
    try {
      const response = await world.request('POST', '/v1/brands/1/collections/1/posts', {
        json: { publishMode: 'DRAFT', caption: 'x'.repeat(1024 * 1024) },
      });
      expect(response.status).toBe(413);
      expect(await response.text()).toBe(
        JSON.stringify({
          status: 'error',
          message: 'The given data was invalid.',
          errors: { body: ['The body may not be greater than 1024 kilobytes.'] },
        }),
      );
    } finally {
      await world.close();
    }
  });
});
