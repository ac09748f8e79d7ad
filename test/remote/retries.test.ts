/**
 * The remote client when the network or the server fails: GETs tried again with backoff (honouring
 * Retry-After), POST/PATCH/DELETE never; timeouts; a final error saying what happened and how often;
 * the API key in no error.
 */
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { RemotePublishingService, type RemoteServiceOptions } from '../../src/remote/remote-service.js';
import {
  API_KEY,
  closedPort,
  listBody,
  ok,
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

async function remote(
  reply: (request: SeenRequest, index: number) => Reply,
  options: Partial<RemoteServiceOptions> = {},
) {
  server = await startScriptedServer(reply);
  client = new RemotePublishingService({
    baseUrl: server.baseUrl,
    apiKey: API_KEY,
    baseDelayMs: 5,
    ...options,
  });
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

const serverError: Reply = { status: 500, body: { status: 'error', message: 'Server Error', errors: {} } };

describe('RemotePublishingService: GETs are tried again', () => {
  it('tries a GET again after a 500 and returns the later answer', async () => {
    const { client, requests } = await remote((_r, index) => (index === 0 ? serverError : ok(USER)));
    expect(await client.getProfile()).toEqual(USER);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('gives up after maxRetries with an error naming the status and the attempts', async () => {
    const { client, requests } = await remote(
      () => ({ status: 503, body: { message: 'Down for maintenance.' } }),
      {
        maxRetries: 3,
      },
    );
    const error = await failure(client.listBrands());
    expect(requests).toHaveLength(4);
    expect(error.message).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/v1\/brands failed after 4 attempts: the server answered 503: Down for maintenance\.$/,
    );
  });

  it('waits as long as a 429 Retry-After says', async () => {
    const { client, requests } = await remote(
      (_r, index) =>
        index === 0
          ? { status: 429, headers: { 'retry-after': '1' }, body: { message: 'Slow down.' } }
          : { status: 200, body: listBody([]) },
      { baseDelayMs: 1, maxDelayMs: 5000 },
    );
    const started = performance.now();
    await client.listChannels({ brandId: 1 });
    const waited = performance.now() - started;
    expect(requests).toHaveLength(2);
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(3000);
  });

  it('caps a long Retry-After at maxDelayMs', async () => {
    const { client, requests } = await remote(
      (_r, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '120' } } : ok(USER)),
      { baseDelayMs: 1, maxDelayMs: 300 },
    );
    const started = performance.now();
    await client.getProfile();
    const waited = performance.now() - started;
    expect(requests).toHaveLength(2);
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(2000);
  });

  it('backs off exponentially between attempts', async () => {
    const times: number[] = [];
    const { client } = await remote(
      () => {
        times.push(performance.now());
        return serverError;
      },
      { maxRetries: 3, baseDelayMs: 80, maxDelayMs: 10_000 },
    );
    await failure(client.getProfile());
    const gaps = times.slice(1).map((time, i) => time - times[i]!);
    // Equal jitter: each wait is between half and all of 80, 160, 320 ms.
    expect(gaps[0]).toBeGreaterThanOrEqual(38);
    expect(gaps[1]).toBeGreaterThanOrEqual(78);
    expect(gaps[2]).toBeGreaterThanOrEqual(158);
    expect(gaps[2]).toBeLessThan(1000);
  });

  it('times out a GET the server never answers, tries again, then fails saying so', async () => {
    const { client, requests } = await remote(() => 'hang', { timeoutMs: 200, maxRetries: 2 });
    const started = performance.now();
    const error = await failure(client.getPost({ brandId: 1, postId: 7 }));
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(590);
    expect(took).toBeLessThan(2000);
    expect(requests).toHaveLength(3);
    expect(error.message).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/v1\/brands\/1\/posts\/7 failed after 3 attempts: no answer within 200 ms\.$/,
    );
  });

  it('tries a GET again when the connection drops without an answer', async () => {
    const { client, requests } = await remote((_r, index) => (index < 2 ? 'drop' : ok(USER)));
    expect(await client.getProfile()).toEqual(USER);
    expect(requests).toHaveLength(3);
  });

  it('tries a GET again when nothing listens, then fails saying the connection was refused', async () => {
    const port = await closedPort();
    client = new RemotePublishingService({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: API_KEY,
      maxRetries: 3,
      baseDelayMs: 60,
    });
    const started = performance.now();
    const error = await failure(client.getProfile());
    // Three waits of at least 30, 60 and 120 ms: the attempts really were made one after another.
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    expect(error.message).toMatch(
      new RegExp(
        `^GET http://127\\.0\\.0\\.1:${port}/v1/me failed after 4 attempts: the connection was refused`,
      ),
    );
  });
});

describe('RemotePublishingService: POST, PATCH and DELETE are sent once', () => {
  it('does not try a POST again after a 500', async () => {
    const { client, requests } = await remote(() => serverError);
    const error = await failure(
      client.createPost({ brandId: 1, collectionId: 2, publishMode: 'DRAFT', caption: 'x' }),
    );
    expect(requests).toHaveLength(1);
    expect(error.message).toMatch(
      /^POST http:\/\/127\.0\.0\.1:\d+\/v1\/brands\/1\/collections\/2\/posts failed after 1 attempt: the server answered 500: Server Error\.$/,
    );
  });

  it('does not try a POST again after a timeout or a 429', async () => {
    const { client, requests } = await remote(
      (request) =>
        request.path.endsWith('/publish') ? 'hang' : { status: 429, headers: { 'retry-after': '0' } },
      { timeoutMs: 200 },
    );
    const timeout = await failure(client.publishPost({ brandId: 1, postId: 7 }));
    expect(timeout.message).toContain('failed after 1 attempt: no answer within 200 ms');
    await failure(client.createPost({ brandId: 1, collectionId: 2 }));
    expect(requests.map((r) => r.method)).toEqual(['POST', 'POST']);
  });

  it('does not try a PATCH, a DELETE or an upload again after a 503', async () => {
    const { client, requests } = await remote(() => ({ status: 503 }));
    await failure(client.updatePost({ brandId: 1, postId: 7, caption: 'x' }));
    await failure(client.deletePost({ brandId: 1, postId: 7 }));
    await failure(client.uploadMedia({ brandId: 1, path: fileURLToPath(import.meta.url) }));
    expect(requests.map((r) => r.method)).toEqual(['PATCH', 'DELETE', 'POST']);
  });

  it('times out an upload whose answer never comes, and does not send it again', async () => {
    const { client, requests } = await remote(() => 'hang', { timeoutMs: 200 });
    const error = await failure(client.uploadMedia({ brandId: 1, path: fileURLToPath(import.meta.url) }));
    expect(requests).toHaveLength(1);
    expect(requests[0]!.path).toBe('/v1/brands/1/media');
    expect(error.message).toMatch(
      /^POST http:\/\/127\.0\.0\.1:\d+\/v1\/brands\/1\/media failed after 1 attempt: no answer within 200 ms\.$/,
    );
  });

  it('does not try a GET again after a 4xx', async () => {
    const { client, requests } = await remote(() => ({
      status: 404,
      body: { errors: { post: 'Post not found.' } },
    }));
    await failure(client.getPost({ brandId: 1, postId: 7 }));
    expect(requests).toHaveLength(1);
  });
});

describe('RemotePublishingService: the API key is in no error', () => {
  it('keeps the key out of every error, even one whose server echoes it', async () => {
    const { client } = await remote(
      (request) => {
        if (request.path === '/v1/me')
          return { status: 500, body: { message: `Key ${API_KEY} is rate limited.` } };
        if (request.path === '/v1/brands') return 'hang';
        if (request.path.endsWith('/channels'))
          return { status: 200, body: { status: 'success', data: API_KEY } };
        if (request.path.endsWith('/collections')) return { status: 401, body: { message: API_KEY } };
        if (request.path.endsWith('/queue')) return 'drop';
        return { status: 422, body: { errors: { caption: ['Bad.'] } } };
      },
      { timeoutMs: 150, maxRetries: 1 },
    );
    const errors = [
      await failure(client.getProfile()),
      await failure(client.listBrands()),
      await failure(client.listChannels({ brandId: 1 })),
      await failure(client.listCollections({ brandId: 1 })),
      await failure(client.getQueue({ brandId: 1 })),
      await failure(client.createPost({ brandId: 1, collectionId: 1 })),
      await failure(client.listPosts({ brandId: 'x' })),
    ];
    expect(errors[0]!.message).toContain('Key [API key] is rate limited');
    const port = await closedPort();
    const unreachable = new RemotePublishingService({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: API_KEY,
      maxRetries: 0,
    });
    errors.push(await failure(unreachable.getPost({ brandId: 1, postId: 1 })));
    await unreachable.close();
    for (const error of errors) {
      expect(error.message).not.toContain(API_KEY);
      expect(inspect(error, { depth: 10 })).not.toContain(API_KEY);
    }
  });
});
