/** The OpenAPI document of the REST API, generated from the same zod schemas the service validates with. */
import { z } from 'zod';
import {
  CreatedPost,
  CreatePostRequest,
  DeletedPost,
  ListPostsRequest,
  Post,
  Queue,
  QueueRequest,
  UpdatePostRequest,
} from '../domain/post-schemas.js';
import { Brand, Channel, Collection, Media, Pagination, User } from '../domain/schemas.js';
import { ChannelDetail } from '../publish/connectors/schemas.js';

type Json = Record<string, unknown>;

const schema = (zod: z.ZodType, io: 'input' | 'output' = 'output'): Json => {
  const { $schema: _dialect, ...json } = z.toJSONSchema(zod, {
    target: 'openapi-3.0',
    io,
    unrepresentable: 'any',
  });
  return json;
};

const ErrorBody = z.object({
  status: z.literal('error'),
  message: z.string(),
  errors: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
});

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const success = (data: Json, status = '200', description = 'OK') => ({
  [status]: {
    description,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['status', 'data'],
          properties: { status: { type: 'string', enum: ['success'] }, data },
        },
      },
    },
  },
});
const list = (item: string) => ({
  '200': {
    description: 'A page',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['status', 'data', 'pagination'],
          properties: {
            status: { type: 'string', enum: ['success'] },
            data: { type: 'array', items: ref(item) },
            pagination: ref('Pagination'),
          },
        },
      },
    },
  },
});
const errors = (...statuses: string[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: { '401': 'Unauthenticated', '404': 'Not found', '422': 'Validation failed' }[status],
        content: { 'application/json': { schema: ref('Error') } },
      },
    ]),
  );
const param = (name: string, where: 'path' | 'query', type: Json, required = where === 'path') => ({
  name,
  in: where,
  required,
  schema: type,
});
const integer = { type: 'integer', minimum: 1 };
const pageParams = [
  param('page', 'query', integer),
  param('per_page', 'query', { type: 'integer', minimum: 1, maximum: 100 }),
];
const queryParams = (request: z.ZodObject, skip: string[]) =>
  Object.entries((schema(request, 'input').properties ?? {}) as Record<string, Json>)
    .filter(([name]) => !skip.includes(name))
    .map(([name, type]) => param(name, 'query', type));

let document: Json | undefined;

export function openApiDocument(): Json {
  document ??= {
    openapi: '3.0.3',
    info: { title: 'Social Publishing Service', version: 'v1' },
    servers: [{ url: '/v1' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        User: schema(User),
        Brand: schema(Brand),
        Channel: schema(Channel),
        ChannelDetail: schema(ChannelDetail),
        Collection: schema(Collection),
        Media: schema(Media),
        Pagination: schema(Pagination),
        PostPayload: schema(CreatePostRequest.omit({ brandId: true, collectionId: true }), 'input'),
        PostChanges: schema(UpdatePostRequest.omit({ brandId: true, postId: true }), 'input'),
        CreatedPost: schema(CreatedPost),
        Post: schema(Post),
        DeletedPost: schema(DeletedPost),
        Queue: schema(Queue),
        Error: schema(ErrorBody),
      },
    },
    paths: {
      '/me': {
        get: { summary: 'The authenticated user', responses: { ...success(ref('User')), ...errors('401') } },
      },
      '/brands': {
        get: {
          summary: 'Brands the user can access',
          parameters: pageParams,
          responses: { ...list('Brand'), ...errors('401', '422') },
        },
      },
      '/brands/{brandId}/channels': {
        get: {
          summary: "A brand's channels",
          parameters: [param('brandId', 'path', integer), ...pageParams],
          responses: { ...list('Channel'), ...errors('401', '404', '422') },
        },
      },
      '/brands/{brandId}/channels/{channelId}': {
        get: {
          summary:
            'A channel with its connection: connector, account, last error, last publication (never a secret)',
          parameters: [param('brandId', 'path', integer), param('channelId', 'path', integer)],
          responses: { ...success(ref('ChannelDetail')), ...errors('401', '404') },
        },
      },
      '/brands/{brandId}/collections': {
        get: {
          summary: "A brand's collections",
          parameters: [param('brandId', 'path', integer), ...pageParams],
          responses: { ...list('Collection'), ...errors('401', '404', '422') },
        },
      },
      '/brands/{brandId}/media': {
        post: {
          summary: 'Upload one media file (png, jpg, jpeg, mp4, mov, pdf; at most 100 MB)',
          parameters: [param('brandId', 'path', integer)],
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: ['media'],
                  properties: { media: { type: 'string', format: 'binary' } },
                },
              },
            },
          },
          responses: { ...success(ref('Media'), '201', 'Uploaded'), ...errors('401', '404', '422') },
        },
      },
      '/brands/{brandId}/collections/{collectionId}/posts': {
        post: {
          summary: 'Create a post in a collection',
          parameters: [
            param('brandId', 'path', integer),
            param('collectionId', 'path', integer),
            param('Idempotency-Key', 'query', { type: 'string' }, false),
          ].map((p) => (p.name === 'Idempotency-Key' ? { ...p, in: 'header' } : p)),
          requestBody: { required: true, content: { 'application/json': { schema: ref('PostPayload') } } },
          responses: {
            ...success(ref('CreatedPost'), '201', 'Created'),
            ...success(ref('CreatedPost'), '200', 'A duplicate or a dry run'),
            ...errors('401', '404', '422'),
          },
        },
      },
      '/brands/{brandId}/posts': {
        get: {
          summary: "A brand's posts",
          parameters: [param('brandId', 'path', integer), ...queryParams(ListPostsRequest, ['brandId'])],
          responses: { ...list('Post'), ...errors('401', '404', '422') },
        },
      },
      '/brands/{brandId}/posts/{postId}': {
        get: {
          summary: 'A post with its deliveries',
          parameters: [param('brandId', 'path', integer), param('postId', 'path', integer)],
          responses: { ...success(ref('Post')), ...errors('401', '404') },
        },
        patch: {
          summary: 'Change a draft, queued or scheduled post (null removes a field)',
          parameters: [param('brandId', 'path', integer), param('postId', 'path', integer)],
          requestBody: { required: true, content: { 'application/json': { schema: ref('PostChanges') } } },
          responses: { ...success(ref('Post')), ...errors('401', '404', '422') },
        },
        delete: {
          summary: 'Delete a draft or cancel a planned post',
          parameters: [param('brandId', 'path', integer), param('postId', 'path', integer)],
          responses: { ...success(ref('DeletedPost')), ...errors('401', '404', '422') },
        },
      },
      '/brands/{brandId}/posts/{postId}/publish': {
        post: {
          summary: 'Publish a draft, queued or scheduled post now',
          parameters: [param('brandId', 'path', integer), param('postId', 'path', integer)],
          responses: { ...success(ref('Post')), ...errors('401', '404', '422') },
        },
      },
      '/brands/{brandId}/queue': {
        get: {
          summary: "The brand's queue: local time, next free slots, queued posts",
          parameters: [param('brandId', 'path', integer), ...queryParams(QueueRequest, ['brandId'])],
          responses: { ...success(ref('Queue')), ...errors('401', '404', '422') },
        },
      },
    },
  };
  return document;
}
