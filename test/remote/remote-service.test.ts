/**
 * The remote client against a real HTTP server on 127.0.0.1 that the test scripts: the exact requests
 * it sends, how it reads answers, and how error answers become the service's typed errors.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NotFoundError, UnauthenticatedError, ValidationError } from '../../src/domain/errors.js';
import { RemotePublishingService } from '../../src/remote/remote-service.js';
import {
  API_KEY,
  BRAND,
  CHANNEL,
  COLLECTION,
  listBody,
  ok,
  POST,
  QUEUE,
  type Reply,
  type ScriptedServer,
  type SeenRequest,
  startScriptedServer,
  USER,
} from './scripted-server.js';

let server: ScriptedServer | undefined;
let client: RemotePublishingService | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/** A client of a server that answers every request with `reply`. */
async function remote(reply: (request: SeenRequest, index: number) => Reply) {
  server = await startScriptedServer(reply);
  client = new RemotePublishingService({ baseUrl: server.baseUrl, apiKey: API_KEY, baseDelayMs: 1 });
  return { client, requests: server.requests };
}

async function failure(call: Promise<unknown>): Promise<Error> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`Expected a failure, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(Error);
  return outcome.error as Error;
}

describe('RemotePublishingService: requests and answers', () => {
  it('reads the profile with GET /me and the bearer key', async () => {
    const { client, requests } = await remote(() => ok({ ...USER, plan: 'pro' }));
    expect(await client.getProfile()).toEqual(USER);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'GET', path: '/v1/me', query: {} });
    expect(requests[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(requests[0]!.headers.accept).toBe('application/json');
    expect(requests[0]!.headers['user-agent']).toMatch(/social-publisher-mcp/);
  });

  it('lists brands with the page query and drops the page URLs', async () => {
    const pagination = { currentPage: 2, perPage: 1, total: 3, lastPage: 3 };
    const { client, requests } = await remote(() => ({
      status: 200,
      body: {
        ...listBody([{ ...BRAND, queueTimes: ['09:00'] }], pagination),
        pagination: { ...pagination, nextPageUrl: 'http://x/v1/brands?page=3', prevPageUrl: 'http://x/' },
      },
    }));
    const page = await client.listBrands({ page: 2, per_page: 1 });
    expect(page).toEqual({ data: [BRAND], pagination });
    expect(requests[0]).toMatchObject({
      method: 'GET',
      path: '/v1/brands',
      query: { page: '2', per_page: '1' },
    });
  });

  it('lists channels and collections of a brand; a string of digits is a brand id too', async () => {
    const { client, requests } = await remote((request) =>
      request.path.endsWith('/channels')
        ? { status: 200, body: listBody([CHANNEL]) }
        : { status: 200, body: listBody([COLLECTION]) },
    );
    expect((await client.listChannels({ brandId: 1 })).data).toEqual([CHANNEL]);
    expect((await client.listCollections({ brandId: '12', per_page: 100 })).data).toEqual([COLLECTION]);
    expect(requests.map((r) => [r.method, r.path, r.query])).toEqual([
      ['GET', '/v1/brands/1/channels', {}],
      ['GET', '/v1/brands/12/collections', { per_page: '100' }],
    ]);
  });

  it('sends the other fields of a GET as they are, for the server to judge', async () => {
    const { client, requests } = await remote(() => ({ status: 200, body: listBody([]) }));
    await client.listPosts({
      brandId: 1,
      status: 'scheduled',
      collectionId: 2,
      from: '2026-11-21 00:00:00',
      order: 'calendar',
      per_page: 'abc',
      to: null,
    });
    expect(requests[0]!.path).toBe('/v1/brands/1/posts');
    expect(requests[0]!.query).toEqual({
      status: 'scheduled',
      collectionId: '2',
      from: '2026-11-21 00:00:00',
      order: 'calendar',
      per_page: 'abc',
    });
  });

  it('creates a post with POST and the whole payload as JSON, ids taken out for the path', async () => {
    const { client, requests } = await remote(() => ok({ id: 41, message: 'Scheduled.', extra: 1 }, 201));
    const payload = {
      publishMode: 'SCHEDULE',
      caption: 'Fresh roast',
      scheduledAt: '2026-11-24 09:00:00',
      media: [{ id: 'med_1' }],
      platforms: { youtube: { tags: ['coffee'] } },
      idempotencyKey: 'launch-1',
      dryRun: false,
      title: null,
    };
    expect(await client.createPost({ brandId: 1, collectionId: '2', ...payload })).toEqual({
      id: 41,
      message: 'Scheduled.',
    });
    expect(requests[0]).toMatchObject({ method: 'POST', path: '/v1/brands/1/collections/2/posts' });
    expect(requests[0]!.headers['content-type']).toBe('application/json');
    expect(requests[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(requests[0]!.json).toEqual(payload);
  });

  it('reads the 200 answer of a duplicate and of a dry run', async () => {
    const { client } = await remote((_request, index) =>
      index === 0
        ? ok({ id: 41, message: 'Already created.', duplicate: true })
        : ok({ id: null, message: 'Would be scheduled.', dryRun: true }),
    );
    const request = { brandId: 1, collectionId: 2, publishMode: 'DRAFT', caption: 'x' };
    expect(await client.createPost(request)).toEqual({
      id: 41,
      message: 'Already created.',
      duplicate: true,
    });
    expect(await client.createPost({ ...request, dryRun: true })).toEqual({
      id: null,
      message: 'Would be scheduled.',
      dryRun: true,
    });
  });

  it('runs the post lifecycle on its endpoints', async () => {
    const { client, requests } = await remote((request) => {
      if (request.method === 'DELETE') return ok({ id: 7, status: 'cancelled', message: 'Cancelled.' });
      if (request.path.endsWith('/queue')) return ok(QUEUE);
      return ok(POST);
    });
    expect(await client.getPost({ brandId: 1, postId: 7 })).toEqual(POST);
    expect(await client.updatePost({ brandId: 1, postId: '7', caption: 'New ☕ roast', link: null })).toEqual(
      POST,
    );
    expect(await client.publishPost({ brandId: 1, postId: 7 })).toEqual(POST);
    expect(await client.deletePost({ brandId: 1, postId: 7 })).toEqual({
      id: 7,
      status: 'cancelled',
      message: 'Cancelled.',
    });
    expect(await client.getQueue({ brandId: 1, count: 2 })).toEqual(QUEUE);
    expect(requests.map((r) => [r.method, r.path, r.query, r.json])).toEqual([
      ['GET', '/v1/brands/1/posts/7', {}, undefined],
      ['PATCH', '/v1/brands/1/posts/7', {}, { caption: 'New ☕ roast', link: null }],
      ['POST', '/v1/brands/1/posts/7/publish', {}, undefined],
      ['DELETE', '/v1/brands/1/posts/7', {}, undefined],
      ['GET', '/v1/brands/1/queue', { count: '2' }, undefined],
    ]);
    for (const request of requests) expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('accepts a base URL with a trailing slash', async () => {
    server = await startScriptedServer(() => ok(USER));
    client = new RemotePublishingService({ baseUrl: `${server.baseUrl}/`, apiKey: API_KEY });
    await client.getProfile();
    expect(server.requests[0]!.path).toBe('/v1/me');
  });

  it('refuses a success answer not in the form of the interface, naming the request', async () => {
    const { client } = await remote((request) =>
      request.path === '/v1/me'
        ? ok({ ...USER, joinedAt: '2026-11-21' })
        : { status: 200, text: '<html>gateway</html>' },
    );
    const malformed = await failure(client.getProfile());
    expect(malformed.message).toContain('/v1/me');
    expect(malformed.message).toContain('data.joinedAt');
    const notJson = await failure(client.listBrands());
    expect(notJson.message).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/v1\/brands is not JSON/);
  });
});

describe('RemotePublishingService: error answers become the typed errors', () => {
  it('turns a 422 body into the ValidationError with every field error', async () => {
    const errors = {
      caption: ['The caption field is required when poll is not present.'],
      'poll.options.1': ['The poll.options.1 may not be greater than 30 characters.'],
    };
    const { client } = await remote(() => ({
      status: 422,
      body: { status: 'error', message: 'The given data was invalid.', errors },
    }));
    const error = await failure(client.createPost({ brandId: 1, collectionId: 1, publishMode: 'QUEUE' }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors).toEqual(errors);
    expect(error.message).toBe('The given data was invalid.');
  });

  it('turns 404 bodies into NotFoundError with the same key and message', async () => {
    const { client } = await remote((request) =>
      request.path.includes('/collections/')
        ? {
            status: 404,
            body: {
              status: 'error',
              message: 'Channel not found or does not belong to the brand',
              errors: {
                'platforms.youtube.playlists.0.channelId':
                  'Channel not found or does not belong to the brand',
              },
            },
          }
        : {
            status: 404,
            body: { status: 'error', message: 'Brand not found.', errors: { brand: 'Brand not found.' } },
          },
    );
    const brand = await failure(client.listChannels({ brandId: 999 }));
    expect(brand).toBeInstanceOf(NotFoundError);
    expect(brand).toMatchObject({ key: 'brand', message: 'Brand not found.', status: 404 });
    const playlist = await failure(client.createPost({ brandId: 1, collectionId: 1, publishMode: 'DRAFT' }));
    expect(playlist).toBeInstanceOf(NotFoundError);
    expect(playlist).toMatchObject({
      key: 'platforms.youtube.playlists.0.channelId',
      message: 'Channel not found or does not belong to the brand',
    });
  });

  it('turns a 401 into UnauthenticatedError', async () => {
    const { client } = await remote(() => ({
      status: 401,
      body: {
        status: 'error',
        message: 'Unauthenticated.',
        errors: { authorization: 'A valid API key is required.' },
      },
    }));
    const error = await failure(client.getProfile());
    expect(error).toBeInstanceOf(UnauthenticatedError);
    expect(error.message).toBe('Unauthenticated.');
    // The spec's message stays; the cause tells the person who set up remote mode what to check.
    expect((error.cause as Error).message).toBe(
      `The server at ${server!.baseUrl.replace(/\/+$/, '')} refused the API key (401 Unauthenticated). Check SOCIAL_PUBLISHER_API_KEY (the key of your user on that server) and SOCIAL_PUBLISHER_API_URL.`,
    );
    expect((error.cause as Error).message).not.toContain(API_KEY);
  });

  it('gives a plain Error with the status and the server message for anything else', async () => {
    const { client } = await remote((request) =>
      request.path === '/v1/me'
        ? { status: 403, body: { status: 'error', message: 'This key may not read profiles.', errors: {} } }
        : { status: 404, text: '<html>Not Found</html>' },
    );
    const forbidden = await failure(client.getProfile());
    expect(forbidden.constructor).toBe(Error);
    expect(forbidden.message).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/v1\/me failed after 1 attempt: the server answered 403: This key may not read profiles\.$/,
    );
    const wrongUrl = await failure(client.listBrands());
    expect(wrongUrl).not.toBeInstanceOf(NotFoundError);
    expect(wrongUrl.message).toContain('answered 404');
    expect(wrongUrl.message).toContain('including /v1');
  });
});

describe('RemotePublishingService: path ids are checked before anything is sent', () => {
  it('refuses a brand id that is not a positive integer with the local sentences', async () => {
    const { client, requests } = await remote(() => ok(USER));
    const words = await failure(client.listChannels({ brandId: 'one' }));
    expect(words).toBeInstanceOf(ValidationError);
    expect((words as ValidationError).errors).toEqual({ brandId: ['The brand id must be an integer.'] });
    const missing = await failure(client.listCollections({}));
    expect((missing as ValidationError).errors).toEqual({ brandId: ['The brand id field is required.'] });
    const zero = await failure(client.getQueue({ brandId: 0 }));
    expect((zero as ValidationError).errors).toEqual({ brandId: ['The brand id must be at least 1.'] });
    const fraction = await failure(client.listPosts({ brandId: 1.5 }));
    expect((fraction as ValidationError).errors).toEqual({ brandId: ['The brand id must be an integer.'] });
    expect(requests).toHaveLength(0);
  });

  it('reports the other field errors of the request too, as local mode does', async () => {
    const { client, requests } = await remote(() => ok(USER));
    const error = await failure(client.listChannels({ brandId: 'x', per_page: 500 }));
    expect((error as ValidationError).errors).toEqual({
      brandId: ['The brand id must be an integer.'],
      per_page: ['The per page may not be greater than 100.'],
    });
    const post = await failure(client.createPost({ caption: 'Hi', publishMode: 'QUEUE' }));
    expect((post as ValidationError).errors).toEqual({
      brandId: ['The brand id field is required.'],
      collectionId: ['The collection id field is required.'],
    });
    const update = await failure(client.updatePost({ brandId: 1, postId: 'seven', caption: 'x' }));
    expect((update as ValidationError).errors).toEqual({ postId: ['The post id must be an integer.'] });
    expect(requests).toHaveLength(0);
  });

  it('refuses unknown fields of delete and publish, whose endpoints carry only the ids', async () => {
    const { client, requests } = await remote(() => ok(POST));
    const remove = await failure(client.deletePost({ brandId: 1, postId: 7, force: true }));
    expect((remove as ValidationError).errors).toEqual({ force: ['The force field is not allowed.'] });
    const publish = await failure(client.publishPost({ brandId: 1 }));
    expect((publish as ValidationError).errors).toEqual({ postId: ['The post id field is required.'] });
    expect(requests).toHaveLength(0);
  });
});

describe('RemotePublishingService: construction', () => {
  it('refuses a base URL that is not http(s) or carries credentials, and an empty key', () => {
    expect(() => new RemotePublishingService({ baseUrl: 'ftp://host/v1', apiKey: API_KEY })).toThrow(/http/);
    expect(() => new RemotePublishingService({ baseUrl: 'not a url', apiKey: API_KEY })).toThrow(/not a URL/);
    expect(() => new RemotePublishingService({ baseUrl: 'http://u:p@host/v1', apiKey: API_KEY })).toThrow(
      /user or password/,
    );
    expect(() => new RemotePublishingService({ baseUrl: 'http://host/v1', apiKey: ' ' })).toThrow(/API key/);
    const badKey = `${API_KEY}\n`;
    expect(() => new RemotePublishingService({ baseUrl: 'http://host/v1', apiKey: badKey })).toThrow(
      /visible ASCII/,
    );
    expect(
      () => new RemotePublishingService({ baseUrl: 'http://host/v1', apiKey: API_KEY, maxRetries: -1 }),
    ).toThrow(/maxRetries/);
  });
});
