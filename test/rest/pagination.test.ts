/**
 * Pagination of every list endpoint: defaults, validation messages, and absolute neighbour-page URLs
 * built from the real Host of a loopback listener, keeping the request's other query parameters.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/serve.js';
import {
  invalidBody,
  type Json,
  KEY_A,
  listenOnLoopback,
  openRestWorld,
  type RestWorld,
  readJson,
} from './support.js';

let world: RestWorld;
let server: RunningServer;
beforeEach(async () => {
  world = await openRestWorld();
  server = await listenOnLoopback(world);
});
afterEach(async () => {
  await server.close();
  expect(world.logged).toEqual([]);
  await world.close();
});

const get = async (pathOrUrl: string) =>
  readJson(await fetch(new URL(pathOrUrl, server.url), { headers: { authorization: `Bearer ${KEY_A}` } }));

/** The page and other query parameters of a neighbour URL, after checking it is absolute on `origin`. */
function target(url: string, origin = server.url, pathname?: string): Record<string, string> {
  const parsed = new URL(url);
  expect(parsed.origin).toBe(origin);
  if (pathname) expect(parsed.pathname).toBe(pathname);
  return Object.fromEntries(parsed.searchParams);
}

describe('defaults', () => {
  it('pages 10 per page from page 1, with total and lastPage', async () => {
    const { status, body } = await get('/v1/brands/1/channels');
    expect(status).toBe(200);
    expect(body.data).toHaveLength(10);
    const { nextPageUrl, ...rest } = body.pagination;
    expect(rest).toEqual({ currentPage: 1, perPage: 10, total: 12, lastPage: 2, prevPageUrl: null });
    expect(target(nextPageUrl, server.url, '/v1/brands/1/channels')).toEqual({ page: '2', per_page: '10' });

    const next = await get(nextPageUrl);
    expect(next.body.data).toHaveLength(2);
    expect(next.body.pagination).toMatchObject({ currentPage: 2, perPage: 10, total: 12, lastPage: 2 });
    expect(next.body.pagination.nextPageUrl).toBeNull();
    expect(target(next.body.pagination.prevPageUrl, server.url, '/v1/brands/1/channels')).toEqual({
      page: '1',
      per_page: '10',
    });
    const ids = [...body.data, ...next.body.data].map((c: { id: number }) => c.id);
    expect(new Set(ids).size).toBe(12);
  });
});

describe('walking the pages', () => {
  it('follows nextPageUrl to the last page and prevPageUrl back, on every list endpoint', async () => {
    // Five posts, so that /posts has pages too.
    for (let i = 0; i < 5; i++) {
      const response = await fetch(new URL('/v1/brands/1/collections/1/posts', server.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
        body: JSON.stringify({ publishMode: 'DRAFT', caption: `Draft ${i}` }),
      });
      expect(response.status).toBe(201);
    }
    const lists: Array<[string, number]> = [
      ['/v1/brands', 2],
      ['/v1/brands/1/channels', 12],
      ['/v1/brands/1/collections', 4],
      ['/v1/brands/1/posts', 5],
    ];
    for (const [path, total] of lists) {
      const seen: number[] = [];
      let url: string | null = `${path}?per_page=2`;
      let page = 0;
      let last: { pagination: Record<string, unknown> } | undefined;
      while (url) {
        const { status, body } = await get(url);
        expect(status, path).toBe(200);
        page++;
        expect(body.pagination).toMatchObject({
          currentPage: page,
          perPage: 2,
          total,
          lastPage: Math.ceil(total / 2),
        });
        seen.push(...body.data.map((item: { id: number }) => item.id));
        if (page === 1) expect(body.pagination.prevPageUrl).toBeNull();
        else
          expect(target(body.pagination.prevPageUrl, server.url, path)).toMatchObject({
            page: String(page - 1),
          });
        url = body.pagination.nextPageUrl;
        last = body;
      }
      expect(seen).toHaveLength(total);
      expect(new Set(seen).size).toBe(total);
      expect(last?.pagination.nextPageUrl).toBeNull();
    }
  });

  it('keeps the other query parameters in both neighbour URLs', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await fetch(new URL('/v1/brands/1/collections/2/posts', server.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          publishMode: 'SCHEDULE',
          caption: `Visual ${i}`,
          scheduledAt: `2026-12-0${i + 1} 10:00:00`,
        }),
      });
      expect(response.status).toBe(201);
    }
    const query = 'status=scheduled&collectionId=2&order=calendar&per_page=1&page=2';
    const { body } = await get(`/v1/brands/1/posts?${query}`);
    expect(body.data.map((p: { scheduledAt: string }) => p.scheduledAt)).toEqual(['2026-12-02 10:00:00']);
    const expected = { status: 'scheduled', collectionId: '2', order: 'calendar', per_page: '1' };
    expect(target(body.pagination.nextPageUrl, server.url, '/v1/brands/1/posts')).toEqual({
      ...expected,
      page: '3',
    });
    expect(target(body.pagination.prevPageUrl, server.url, '/v1/brands/1/posts')).toEqual({
      ...expected,
      page: '1',
    });
    const next = await get(body.pagination.nextPageUrl);
    expect(next.body.data.map((p: { scheduledAt: string }) => p.scheduledAt)).toEqual([
      '2026-12-03 10:00:00',
    ]);
    expect(next.body.pagination.nextPageUrl).toBeNull();
  });

  it('builds the URLs from the Host the client used', async () => {
    const port = new URL(server.url).port;
    const answer = await new Promise<{ status: number; body: Json }>((resolve, reject) => {
      const request = httpRequest(new URL('/v1/brands/1/channels?per_page=5', server.url), {
        headers: { host: `localhost:${port}`, authorization: `Bearer ${KEY_A}` },
      });
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      });
      request.on('error', reject);
      request.end();
    });
    expect(answer.status).toBe(200);
    expect(target(answer.body.pagination.nextPageUrl, `http://localhost:${port}`)).toEqual({
      page: '2',
      per_page: '5',
    });
  });

  it('answers a page past the last one with no data and the real total', async () => {
    const { status, body } = await get('/v1/brands/1/collections?page=9');
    expect(status).toBe(200);
    expect(body.data).toEqual([]);
    expect(body.pagination).toMatchObject({
      currentPage: 9,
      perPage: 10,
      total: 4,
      lastPage: 1,
      nextPageUrl: null,
    });
  });
});

describe('validation', () => {
  const cases: Array<[string, Record<string, string[]>]> = [
    ['per_page=101', { per_page: ['The per page may not be greater than 100.'] }],
    ['per_page=0', { per_page: ['The per page must be at least 1.'] }],
    ['per_page=abc', { per_page: ['The per page must be an integer.'] }],
    ['per_page=2.5', { per_page: ['The per page must be an integer.'] }],
    ['page=0', { page: ['The page must be at least 1.'] }],
    ['page=abc', { page: ['The page must be an integer.'] }],
    [
      'page=0&per_page=500',
      { page: ['The page must be at least 1.'], per_page: ['The per page may not be greater than 100.'] },
    ],
  ];
  for (const path of [
    '/v1/brands',
    '/v1/brands/1/channels',
    '/v1/brands/1/collections',
    '/v1/brands/1/posts',
  ]) {
    it(`answers bad page parameters on ${path} with 422 and the Laravel messages`, async () => {
      for (const [query, errors] of cases) {
        const response = await fetch(new URL(`${path}?${query}`, server.url), {
          headers: { authorization: `Bearer ${KEY_A}` },
        });
        expect({ query, status: response.status, text: await response.text() }).toEqual({
          query,
          status: 422,
          text: invalidBody(errors),
        });
      }
    });
  }

  it('calls a negative page an integer below the minimum, as Laravel does', async () => {
    for (const [query, errors] of [
      ['page=-3', { page: ['The page must be at least 1.'] }],
      ['per_page=-5', { per_page: ['The per page must be at least 1.'] }],
    ] as const) {
      const response = await fetch(new URL(`/v1/brands/1/channels?${query}`, server.url), {
        headers: { authorization: `Bearer ${KEY_A}` },
      });
      expect({ query, status: response.status, text: await response.text() }).toEqual({
        query,
        status: 422,
        text: invalidBody(errors),
      });
    }
  });

  it('accepts the bounds: per_page=1 and per_page=100', async () => {
    expect((await get('/v1/brands/1/channels?per_page=1')).body.data).toHaveLength(1);
    expect((await get('/v1/brands/1/channels?per_page=100')).body.pagination).toMatchObject({
      perPage: 100,
      lastPage: 1,
    });
  });

  it('refuses an unknown query parameter rather than ignoring it', async () => {
    const response = await fetch(new URL('/v1/brands?perPage=5', server.url), {
      headers: { authorization: `Bearer ${KEY_A}` },
    });
    expect(response.status).toBe(422);
    expect(await response.text()).toBe(invalidBody({ perPage: ['The per page field is not allowed.'] }));
  });
});
