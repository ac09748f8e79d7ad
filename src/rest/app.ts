/**
 * The REST API of http-interface.md under /v1, plus our post-lifecycle endpoints under the brand.
 * Handlers are thin: path and query (or body) become the service's request object; the service
 * validates; errors become statuses in errors.ts.
 */
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { NotFoundError, toErrorBody, ValidationError } from '../domain/errors.js';
import { coerceArguments } from '../domain/lenient-input.js';
import { attributeName } from '../domain/messages.js';
import { ListPostsRequest, QueueRequest } from '../domain/post-schemas.js';
import { BrandPageRequest, ListBrandsRequest } from '../domain/schemas.js';
import { AuthThrottle, clientAddress, tooManyAttemptsResponse } from '../http/auth-throttle.js';
import type { UserRecord } from '../ports.js';
import type { StreamingPublishingService } from '../service/publishing-service.js';
import { duringRequest } from '../service/request-time.js';
import { bearerKey, presentedKey } from './auth.js';
import { errorResponse, jsonBody, routeNotFound } from './errors.js';
import { receiveMediaUpload } from './multipart.js';
import { openApiDocument } from './openapi.js';
import { listBody } from './pagination.js';

export interface RestOptions {
  /** The user an API key belongs to; throws UnauthenticatedError. */
  authenticate(apiKey: string): Promise<UserRecord>;
  serviceFor(user: UserRecord): StreamingPublishingService;
  log: (message: string, error: unknown) => void;
  /**
   * Counts failed key checks per client address; pass the one /mcp uses so that both count together.
   * Default: a throttle of its own with the default limits.
   */
  authThrottle?: AuthThrottle;
}

type Env = { Variables: { service: StreamingPublishingService } };

/** A post payload is at most a few tens of kilobytes; this leaves room without inviting abuse. */
export const JSON_BODY_MAX_BYTES = 1024 * 1024;

/** A path id: digits only, else the resource does not exist (a 404, as an unknown id is). */
function pathId(c: Context, name: string, notFound: () => NotFoundError): number {
  const text = c.req.param(name) ?? '';
  const id = /^\d{1,15}$/.test(text) ? Number(text) : 0;
  if (id < 1) throw notFound();
  return id;
}

const brandId = (c: Context) => pathId(c, 'brandId', NotFoundError.brand);

/** A JSON object body with the path's values added; the body may not carry them itself. */
function withPath(body: unknown, fromPath: Record<string, unknown>): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const clashes = Object.keys(fromPath).filter((key) => Object.hasOwn(body, key));
  if (clashes.length > 0) {
    throw new ValidationError(
      Object.fromEntries(
        clashes.map((key) => [
          key,
          [`The ${attributeName(key)} field is not allowed (it is given by the path).`],
        ]),
      ),
    );
  }
  return { ...body, ...fromPath };
}

function query(c: Context): Record<string, string> {
  return Object.fromEntries(new URL(c.req.url).searchParams);
}

export function createRestApp(options: RestOptions): Hono<Env> {
  const app = new Hono<Env>();
  app.onError((error, c) => errorResponse(c, error, options.log));
  app.notFound(routeNotFound);

  app.get('/v1/openapi.json', (c) => c.json(openApiDocument()));

  const throttle = options.authThrottle ?? new AuthThrottle();
  // The request's time is read as it arrives, before its key is looked up (request-time.ts).
  app.use('/v1/*', (c, next) =>
    duringRequest(async () => {
      const header = c.req.header('authorization');
      const admission = await throttle.authenticate(clientAddress(c.env), presentedKey(header), () =>
        options.authenticate(bearerKey(header)),
      );
      if (!admission.admitted) return tooManyAttemptsResponse(admission.retryAfterSeconds);
      c.set('service', options.serviceFor(admission.value));
      await next();
    }),
  );
  // JSON bodies are read whole: bound them. (The media upload streams and has its own limit.)
  const jsonLimit = bodyLimit({
    maxSize: JSON_BODY_MAX_BYTES,
    // The rest of the body is left unread, so the connection cannot carry another request: saying
    // keep-alive had a client's next request sent on a socket the server was about to close.
    onError: (c) =>
      c.json(
        toErrorBody(
          ValidationError.single(
            'body',
            `The body may not be greater than ${JSON_BODY_MAX_BYTES / 1024} kilobytes.`,
          ),
        ),
        413,
        { connection: 'close' },
      ),
  });
  app.patch('/v1/*', jsonLimit);
  app.post('/v1/brands/:brandId/collections/:collectionId/posts', jsonLimit);

  app.get('/v1/me', async (c) =>
    c.json({ status: 'success', data: await c.var.service.getProfile(query(c)) }),
  );

  app.get('/v1/brands', async (c) => {
    const request = coerceArguments(ListBrandsRequest, query(c), { jsonStrings: false });
    return c.json(listBody(await c.var.service.listBrands(request), c.req.url));
  });

  app.get('/v1/brands/:brandId/channels', async (c) => {
    const request = coerceArguments(
      BrandPageRequest,
      { ...query(c), brandId: brandId(c) },
      { jsonStrings: false },
    );
    return c.json(listBody(await c.var.service.listChannels(request), c.req.url));
  });

  app.get('/v1/brands/:brandId/channels/:channelId', async (c) =>
    c.json({
      status: 'success',
      data: await c.var.service.getChannel({
        ...query(c),
        brandId: brandId(c),
        channelId: pathId(c, 'channelId', NotFoundError.channel),
      }),
    }),
  );

  app.get('/v1/brands/:brandId/collections', async (c) => {
    const request = coerceArguments(
      BrandPageRequest,
      { ...query(c), brandId: brandId(c) },
      { jsonStrings: false },
    );
    return c.json(listBody(await c.var.service.listCollections(request), c.req.url));
  });

  app.post('/v1/brands/:brandId/media', async (c) => {
    const service = c.var.service;
    const id = brandId(c);
    await service.requireBrand(id);
    const media = await receiveMediaUpload(c.req.raw, (file) => service.stageMediaUpload(id, file));
    return c.json({ status: 'success', data: media }, 201);
  });

  app.post('/v1/brands/:brandId/collections/:collectionId/posts', async (c) => {
    const body = await jsonBody(c);
    const key = c.req.header('idempotency-key');
    const fromPath = {
      brandId: brandId(c),
      collectionId: pathId(c, 'collectionId', NotFoundError.collection),
      ...(key ? { idempotencyKey: key } : {}),
    };
    const created = await c.var.service.createPost(withPath(body, fromPath));
    return c.json({ status: 'success', data: created }, created.duplicate || created.dryRun ? 200 : 201);
  });

  const postId = (c: Context) => pathId(c, 'postId', NotFoundError.post);

  app.get('/v1/brands/:brandId/posts', async (c) => {
    const request = coerceArguments(
      ListPostsRequest,
      { ...query(c), brandId: brandId(c) },
      { jsonStrings: false },
    );
    return c.json(listBody(await c.var.service.listPosts(request), c.req.url));
  });

  app.get('/v1/brands/:brandId/posts/:postId', async (c) =>
    c.json({
      status: 'success',
      data: await c.var.service.getPost({ ...query(c), brandId: brandId(c), postId: postId(c) }),
    }),
  );

  app.patch('/v1/brands/:brandId/posts/:postId', async (c) => {
    const body = await jsonBody(c);
    const ids = { brandId: brandId(c), postId: postId(c) };
    return c.json({ status: 'success', data: await c.var.service.updatePost(withPath(body, ids)) });
  });

  app.delete('/v1/brands/:brandId/posts/:postId', async (c) =>
    c.json({
      status: 'success',
      data: await c.var.service.deletePost({ brandId: brandId(c), postId: postId(c) }),
    }),
  );

  app.post('/v1/brands/:brandId/posts/:postId/publish', async (c) =>
    c.json({
      status: 'success',
      data: await c.var.service.publishPost({ brandId: brandId(c), postId: postId(c) }),
    }),
  );

  // An OAuth sign-in the server completes on /oauth/callback (product.md).
  app.post('/v1/brands/:brandId/connections', jsonLimit, async (c) => {
    const body = withPath(await jsonBody(c), { brandId: brandId(c) });
    return c.json({ status: 'success', data: await c.var.service.startConnection(body) }, 201);
  });

  app.get('/v1/brands/:brandId/queue', async (c) => {
    const request = coerceArguments(
      QueueRequest,
      { ...query(c), brandId: brandId(c) },
      { jsonStrings: false },
    );
    return c.json({ status: 'success', data: await c.var.service.getQueue(request) });
  });

  return app;
}
