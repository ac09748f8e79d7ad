/** GET /v1/openapi.json: an OpenAPI 3 document of every endpoint, its schemas from the validating zod. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Json, openRestWorld, type RestWorld, readJson } from './support.js';

let world: RestWorld;
let doc: Json;
beforeEach(async () => {
  world = await openRestWorld();
  const { status, body } = await readJson(await world.request('GET', '/v1/openapi.json'));
  expect(status).toBe(200);
  doc = body;
});
afterEach(async () => {
  expect(world.logged).toEqual([]);
  await world.close();
});

const OPERATIONS: Array<[string, string]> = [
  ['get', '/me'],
  ['get', '/brands'],
  ['get', '/brands/{brandId}/channels'],
  ['get', '/brands/{brandId}/channels/{channelId}'],
  ['get', '/brands/{brandId}/collections'],
  ['post', '/brands/{brandId}/media'],
  ['post', '/brands/{brandId}/collections/{collectionId}/posts'],
  ['get', '/brands/{brandId}/posts'],
  ['get', '/brands/{brandId}/posts/{postId}'],
  ['patch', '/brands/{brandId}/posts/{postId}'],
  ['delete', '/brands/{brandId}/posts/{postId}'],
  ['post', '/brands/{brandId}/posts/{postId}/publish'],
  ['get', '/brands/{brandId}/queue'],
];

/** Every `$ref` in a value. */
function refs(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refs);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) =>
    key === '$ref' && typeof item === 'string' ? [item] : refs(item),
  );
}

describe('GET /v1/openapi.json', () => {
  it('is an OpenAPI 3 document under /v1 with bearer security', () => {
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(doc.servers).toEqual([{ url: '/v1' }]);
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearer: [] }]);
  });

  it('describes every endpoint, with its path parameters and a 401', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => `${method} ${path}`),
    );
    expect(documented.sort()).toEqual(OPERATIONS.map(([method, path]) => `${method} ${path}`).sort());
    for (const [method, path] of OPERATIONS) {
      const operation = doc.paths[path][method];
      const placeholders = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const pathParams = (operation.parameters ?? [])
        .filter((p: { in: string }) => p.in === 'path')
        .map((p: { name: string; required: boolean; schema: { type: string } }) => {
          expect(p.required).toBe(true);
          expect(p.schema.type).toBe('integer');
          return p.name;
        });
      expect(pathParams, `${method} ${path}`).toEqual(placeholders);
      expect(Object.keys(operation.responses), `${method} ${path}`).toContain('401');
    }
  });

  it('gives the success statuses of the spec', () => {
    expect(Object.keys(doc.paths['/brands/{brandId}/media'].post.responses)).toContain('201');
    expect(
      doc.paths['/brands/{brandId}/media'].post.requestBody.content['multipart/form-data'].schema,
    ).toMatchObject({
      required: ['media'],
      properties: { media: { type: 'string', format: 'binary' } },
    });
    const create = doc.paths['/brands/{brandId}/collections/{collectionId}/posts'].post;
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '404', '422']));
    expect(create.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/PostPayload',
    });
    expect(create.parameters).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }),
    );
    const pageParams = doc.paths['/brands'].get.parameters;
    expect(pageParams).toContainEqual(
      expect.objectContaining({
        name: 'per_page',
        in: 'query',
        schema: expect.objectContaining({ maximum: 100 }),
      }),
    );
  });

  it('resolves every $ref to a component schema', () => {
    const names = Object.keys(doc.components.schemas);
    for (const ref of refs(doc)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(names).toContain(ref.replace('#/components/schemas/', ''));
    }
  });

  it('has the resources of the spec with their fields', () => {
    const { schemas } = doc.components;
    const fields = (name: string) => Object.keys(schemas[name].properties);
    expect(fields('Brand')).toEqual(['id', 'title', 'description', 'timezone', 'createdAt', 'updatedAt']);
    expect(schemas.Brand.required).toHaveLength(6);
    expect(fields('User')).toEqual(['id', 'name', 'joinedAt', 'timezone']);
    expect(fields('Channel')).toEqual(['id', 'name', 'status', 'type', 'createdAt', 'updatedAt']);
    expect(schemas.Channel.properties.status.enum).toEqual(['ACTIVE', 'INACTIVE']);
    expect(schemas.Channel.properties.type.enum).toHaveLength(12);
    expect(fields('Collection')).toEqual([
      'id',
      'title',
      'description',
      'status',
      'createdAt',
      'updatedAt',
      'channels',
    ]);
    expect(fields('Media')).toEqual(['id', 'type', 'size']);
    expect(fields('Pagination')).toEqual([
      'currentPage',
      'perPage',
      'total',
      'lastPage',
      'nextPageUrl',
      'prevPageUrl',
    ]);
    expect(fields('Error')).toEqual(['status', 'message', 'errors']);
  });

  it('gives the post payload its enums and limits', () => {
    const payload = doc.components.schemas.PostPayload;
    expect(payload.required).toEqual(['publishMode']);
    expect(payload.properties.publishMode.enum).toEqual(['QUEUE', 'SCHEDULE', 'IMMEDIATE', 'DRAFT']);
    expect(payload.properties.caption).toMatchObject({ type: 'string', minLength: 1, maxLength: 3000 });
    expect(payload.properties.title.maxLength).toBe(255);
    expect(payload.properties.alt.maxLength).toBe(255);
    expect(payload.properties.link.maxLength).toBe(1000);
    expect(payload.properties.scheduledAt.pattern).toBe('^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$');
    const poll = payload.properties.poll;
    expect(poll.properties.options).toMatchObject({ minItems: 2, maxItems: 4 });
    expect(poll.properties.period.enum).toEqual(['1d', '3d', '7d']);
    expect(payload.properties.comment.properties.comment.maxLength).toBe(1000);
  });

  it('documents every body field the create endpoint accepts (dryRun is accepted in the body)', async () => {
    const payload = doc.components.schemas.PostPayload;
    const response = await world.request('POST', '/v1/brands/1/collections/1/posts', {
      json: { publishMode: 'DRAFT', caption: 'Just checking', dryRun: true },
    });
    expect(response.status).toBe(200);
    // The only way to ask for a dry run over REST is the body, so the document must show it; the
    // payload schema is closed (additionalProperties: false), so a validating client would refuse it.
    expect(Object.keys(payload.properties)).toContain('dryRun');
  });
});
