/**
 * Fuzzing every REST endpoint through the real app (`app.request`, real service, real SQLite): random
 * path ids, query strings (odd, repeated, unicode, huge keys and values), bodies (random JSON, invalid
 * JSON, huge, deep), multipart uploads with odd parts, filenames and sizes, and odd Authorization, Host
 * and Origin headers. Every answer is one of the documented statuses with the documented body, never a
 * 500 (the app logs every unexpected failure: that log stays empty), nothing is left in the upload
 * staging directory, and the built-in prototypes stay clean.
 *
 * Bounded: a fixed number of runs per endpoint and a time limit per property. The seed is printed with
 * any counterexample; FUZZ_SEED=<seed> replays it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributeName } from '../../src/domain/messages.js';
import { PNG_1X1 } from '../mcp/harness.js';
import { KEY_A, KEY_B, openRestWorld, type RestWorld } from '../rest/support.js';
import {
  anyValue,
  deepValue,
  fuzzOptions,
  HUGE_ASCII,
  headerText,
  keyArb,
  leaf,
  objectFrom,
  PROTOTYPE_KEYS,
  plausibleValue,
  specialString,
} from './arbitraries.js';
import { errorBodyProblems, prototypeSnapshot } from './shape.js';

const RUNS_PER_ENDPOINT = 150;
const ALLOWED_STATUSES = [200, 201, 401, 403, 404, 413, 422];
/** Over the 1 MB JSON body limit. */
const OVERSIZED_JSON = JSON.stringify({ publishMode: 'DRAFT', caption: 'x'.repeat(1024 * 1024 + 10) });

let w: RestWorld;
let addedToPrototypes: () => string[];
let drafts = 0;

beforeAll(async () => {
  addedToPrototypes = prototypeSnapshot();
  w = await openRestWorld();
  for (let i = 0; i < 10; i++) await newDraft();
});

afterAll(async () => {
  await w?.close();
});

async function newDraft(): Promise<number> {
  const response = await w.request('POST', '/v1/brands/1/collections/1/posts', {
    json: { publishMode: 'DRAFT', caption: `REST fuzz draft ${++drafts}` },
  });
  const body = (await response.json()) as { data: { id: number } };
  return body.data.id;
}

// ------------------------------------------------------------------------------------- requests

interface FuzzRequest {
  method: string;
  /** Path and query, already encoded as a client would send them. */
  target: string;
  headers: Record<string, string>;
  body?: Uint8Array | string;
}

/** Percent-encodes like a client (a lone surrogate becomes U+FFFD: a URL cannot carry it). */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeURIComponent(Buffer.from(text).toString('utf8'));
  }
}

const pathId = fc.oneof(
  { arbitrary: fc.constantFrom('1', '2', '3', '4', '5'), weight: 6 },
  {
    arbitrary: fc.constantFrom(
      '0',
      '-1',
      '01',
      '1e3',
      '0x1',
      '1.0',
      '%201',
      '%zz',
      '%00',
      '%F0%9F%98%80',
      '9'.repeat(15),
      '9'.repeat(16),
      '9007199254740993',
      '__proto__',
      'constructor',
      'null',
      'NaN',
      '١',
    ),
    weight: 3,
  },
  { arbitrary: fc.string({ maxLength: 12 }).map(encode), weight: 2 },
  { arbitrary: fc.nat().map(String), weight: 1 },
);

const QUERY_KEYS = [
  'page',
  'per_page',
  'brandId',
  'postId',
  'collectionId',
  'status',
  'from',
  'to',
  'order',
  'count',
  ...PROTOTYPE_KEYS,
];

const queryValue = fc.oneof(
  { arbitrary: specialString, weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 1 },
  { arbitrary: fc.integer({ min: -5, max: 200 }).map(String), weight: 3 },
  {
    arbitrary: fc.constantFrom('draft', 'queued', 'calendar', 'newest', '2026-11-24 09:00:00'),
    weight: 1,
  },
);

const queryString = fc.oneof(
  {
    arbitrary: fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ maxLength: 8 })), queryValue), {
        maxLength: 4,
      })
      .map((pairs) => pairs.map(([key, value]) => `${encode(key)}=${encode(value)}`).join('&')),
    weight: 6,
  },
  {
    arbitrary: fc.constantFrom(
      '%',
      '&&&',
      '=',
      'page',
      'page=1=2',
      'page=1&page=2&page=x',
      '%zz=1',
      'a[b]=1',
      'page[]=1',
      'page=%F0%9F',
      'page=+1+',
      '__proto__[polluted]=1',
      '__proto__.polluted=1',
      'constructor[prototype][polluted]=1',
      `page=${'9'.repeat(100_000)}`,
      `${'k'.repeat(100_000)}=1`,
      'per_page=1e2',
      'per_page=0x10',
    ),
    weight: 2,
  },
);

const authorization = fc.oneof(
  { arbitrary: fc.constant(`Bearer ${KEY_A}`), weight: 12 },
  {
    arbitrary: fc.constantFrom(
      `Bearer ${KEY_B}`,
      `bearer ${KEY_A}`,
      `Bearer    ${KEY_A}`,
      `Bearer ${KEY_A}x`,
      `Bearer ${KEY_A} ${KEY_A}`,
      `Bearer ${KEY_A.toUpperCase()}`,
      'Bearer',
      'Bearer ',
      'Basic cmVzdDpzZWNyZXQ=',
      `Token ${KEY_A}`,
      `Bearer ${'x'.repeat(20_000)}`,
      'Bearer demo',
      'Bearer __proto__',
    ),
    weight: 3,
  },
  { arbitrary: headerText(), weight: 1 },
  { arbitrary: fc.constant(undefined), weight: 1 },
);

const host = fc.oneof(
  { arbitrary: fc.constant('localhost'), weight: 12 },
  {
    arbitrary: fc.constantFrom(
      '127.0.0.1:8787',
      '[::1]:1',
      'LOCALHOST',
      'evil.example',
      'localhost.evil.example',
      '',
    ),
    weight: 1,
  },
);

const origin = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 12 },
  {
    arbitrary: fc.constantFrom(
      'null',
      'http://localhost:3000',
      'http://evil.example',
      'garbage',
      'http://[::1]',
    ),
    weight: 1,
  },
);

const commonHeaders = fc
  .record({
    authorization,
    host,
    origin,
    idempotencyKey: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 6 },
      { arbitrary: headerText(40), weight: 1 },
      { arbitrary: fc.constant('k'.repeat(300)), weight: 1 },
    ),
  })
  .map(({ authorization, host, origin, idempotencyKey }) => {
    const headers: Record<string, string> = { host };
    if (authorization !== undefined) headers.authorization = authorization;
    if (origin !== undefined) headers.origin = origin;
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    return headers;
  });

/** A post payload, valid or nearly: one or two fields changed to adversarial values. */
const POST_TEMPLATES: Array<Record<string, unknown>> = [
  { publishMode: 'DRAFT', caption: 'Draft' },
  { publishMode: 'SCHEDULE', scheduledAt: '2026-11-24 09:00:00', caption: 'At nine' },
  { publishMode: 'QUEUE', poll: { question: 'Oat?', options: ['Yes', 'No'], period: '1d' } },
  {
    publishMode: 'IMMEDIATE',
    caption: 'Now',
    link: 'https://example.com/x',
    comment: { comment: 'First!', delay: 60 },
    media: [{ url: 'https://example.com/a.png' }],
    platforms: { youtube: { playlists: [{ channelId: 6, playlistIds: ['PL1'] }] } },
  },
];
const POST_FIELDS = [
  'publishMode',
  'caption',
  'poll',
  'title',
  'alt',
  'link',
  'scheduledAt',
  'postAsStory',
  'comment',
  'media',
  'platforms',
  'idempotencyKey',
  'dryRun',
  'brandId',
  'collectionId',
  'postId',
];

const postPayload = fc
  .tuple(
    fc.constantFrom(...POST_TEMPLATES),
    fc.array(
      fc.tuple(
        fc.oneof(
          { arbitrary: fc.constantFrom(...POST_FIELDS), weight: 4 },
          { arbitrary: keyArb(), weight: 1 },
        ),
        fc.oneof(
          leaf,
          anyValue(POST_FIELDS),
          fc.constantFrom(...POST_FIELDS).chain((f) => plausibleValue(f)),
        ),
      ),
      { maxLength: 2 },
    ),
  )
  .map(([template, changes]) => objectFrom([...Object.entries(template), ...changes]));

/** JSON bodies: payloads, any JSON, invalid JSON, deep, huge, random bytes. */
const jsonBody: fc.Arbitrary<string | Uint8Array | undefined> = fc.oneof(
  { arbitrary: postPayload.map((payload) => JSON.stringify(payload)), weight: 6 },
  { arbitrary: anyValue(POST_FIELDS).map((value) => JSON.stringify(value) ?? ''), weight: 2 },
  { arbitrary: deepValue(POST_FIELDS).map((value) => JSON.stringify(value) ?? ''), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      '',
      '{',
      '[',
      '{"a":}',
      'NaN',
      "{'publishMode':'DRAFT'}",
      '\u0000',
      '{"publishMode":"DRAFT","caption":"x"}garbage',
      '\ufeff{"publishMode":"DRAFT","caption":"x"}',
      '{"caption":"\\ud800","publishMode":"DRAFT"}',
      '{"__proto__":{"polluted":"yes"},"publishMode":"DRAFT","caption":"proto"}',
      '{"constructor":{"prototype":{"polluted":"yes"}}}',
      '{"publishMode":"DRAFT","caption":"dup","caption":"licate"}',
      '1e999',
      'null',
      'true',
      '"just a string"',
      OVERSIZED_JSON,
      JSON.stringify({ publishMode: 'DRAFT', caption: HUGE_ASCII }),
    ),
    weight: 2,
  },
  { arbitrary: fc.uint8Array({ maxLength: 200 }), weight: 1 },
  { arbitrary: fc.constant(undefined), weight: 1 },
);

const jsonContentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 8 },
  {
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/json; charset=latin1',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      '',
    ),
    weight: 1,
  },
  { arbitrary: fc.constant(undefined), weight: 1 },
);

// ------------------------------------------------------------------------------------- multipart

const JPEG_HEAD = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);
const PDF_HEAD = Buffer.from(
  '%PDF-1.4\n%\u00e2\u00e3\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n',
  'latin1',
);

interface Part {
  field: string;
  filename: string | undefined;
  type: string | undefined;
  bytes: Uint8Array;
}

const partArb: fc.Arbitrary<Part> = fc.record({
  field: fc.oneof(
    { arbitrary: fc.constant('media'), weight: 8 },
    { arbitrary: fc.constantFrom('MEDIA', 'file', 'media[]', '', ...PROTOTYPE_KEYS), weight: 2 },
    { arbitrary: headerText(20).filter((name) => !name.includes('"')), weight: 1 },
  ),
  filename: fc.oneof(
    { arbitrary: fc.constantFrom('a.png', 'A.JPG', 'photo.jpeg'), weight: 6 },
    {
      arbitrary: fc.constantFrom(
        undefined,
        '',
        '../../../etc/passwd',
        '/etc/passwd',
        'C:\\Windows\\win.ini',
        '😀 \u202egnp.exe',
        'a"b.png',
        'nul\u0000.png',
        'x'.repeat(1000),
        '.png',
        '__proto__',
      ),
      weight: 3,
    },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 1 },
  ),
  type: fc.constantFrom(
    undefined,
    'image/png',
    'application/octet-stream',
    'text/html',
    '',
    'image/png; x=y',
  ),
  bytes: fc.oneof(
    { arbitrary: fc.constant(PNG_1X1), weight: 4 },
    // Distinct bytes that are still a PNG (a stored file is deduplicated by hash otherwise).
    {
      arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((tail) => concat(PNG_1X1, tail)),
      weight: 3,
    },
    { arbitrary: fc.constantFrom(new Uint8Array(0), JPEG_HEAD, PDF_HEAD), weight: 3 },
    { arbitrary: fc.uint8Array({ maxLength: 2_000 }), weight: 2 },
    { arbitrary: fc.integer({ min: 100_000, max: 300_000 }).map((size) => new Uint8Array(size)), weight: 1 },
  ),
});

function concat(...chunks: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(chunks.map((chunk) => Buffer.from(chunk))));
}

const multipartRequest = fc
  .record({
    parts: fc.array(partArb, { maxLength: 3 }),
    boundary: fc.constantFrom('fuzzBoundary7MA4YWxk', '----x', 'a'.repeat(70), 'b o u n d'),
    contentType: fc.constantFrom(
      'ok',
      'ok',
      'ok',
      'ok',
      'quoted',
      'none',
      'missing',
      'other',
      'mixed',
      'plain',
    ),
    preamble: fc.constantFrom('', '', 'garbage before the first boundary\r\n'),
    closing: fc.constantFrom(true, true, true, false),
    truncate: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { freq: 6 }),
    contentLength: fc.option(fc.constantFrom('0', '-1', 'abc', '99999999999', '1'), { freq: 10 }),
  })
  .map(({ parts, boundary, contentType, preamble, closing, truncate, contentLength }) => {
    const chunks: Uint8Array[] = [Buffer.from(preamble)];
    for (const part of parts) {
      const disposition =
        part.filename === undefined
          ? `form-data; name="${part.field}"`
          : `form-data; name="${part.field}"; filename="${part.filename}"`;
      const typeLine = part.type === undefined ? '' : `Content-Type: ${part.type}\r\n`;
      chunks.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${typeLine}\r\n`),
        part.bytes,
        Buffer.from('\r\n'),
      );
    }
    if (closing) chunks.push(Buffer.from(`--${boundary}--\r\n`));
    let body = concat(...chunks);
    if (truncate !== null) body = body.subarray(0, Math.floor(body.length * truncate));
    const headers: Record<string, string> = {};
    const types: Record<string, string | undefined> = {
      ok: `multipart/form-data; boundary=${boundary}`,
      quoted: `multipart/form-data; boundary="${boundary}"`,
      none: 'multipart/form-data',
      missing: undefined,
      other: 'multipart/form-data; boundary=not-the-one',
      mixed: `multipart/mixed; boundary=${boundary}`,
      plain: 'text/plain',
    };
    const type = types[contentType];
    if (type !== undefined) headers['content-type'] = type;
    if (contentLength !== null) headers['content-length'] = contentLength;
    return { body, headers };
  });

// ------------------------------------------------------------------------------------- endpoints

interface Endpoint {
  method: string;
  /** `:id` segments are replaced by fuzzed path ids. */
  path: string;
  body?: 'json' | 'multipart';
}

const ENDPOINTS: Endpoint[] = [
  { method: 'GET', path: '/v1/me' },
  { method: 'GET', path: '/v1/brands' },
  { method: 'GET', path: '/v1/brands/:id/channels' },
  { method: 'GET', path: '/v1/brands/:id/collections' },
  { method: 'POST', path: '/v1/brands/:id/media', body: 'multipart' },
  { method: 'POST', path: '/v1/brands/:id/collections/:id/posts', body: 'json' },
  { method: 'GET', path: '/v1/brands/:id/posts' },
  { method: 'GET', path: '/v1/brands/:id/posts/:id' },
  { method: 'PATCH', path: '/v1/brands/:id/posts/:id', body: 'json' },
  { method: 'DELETE', path: '/v1/brands/:id/posts/:id' },
  { method: 'POST', path: '/v1/brands/:id/posts/:id/publish' },
  { method: 'GET', path: '/v1/brands/:id/queue' },
  { method: 'GET', path: '/v1/openapi.json' },
];

function requestFor(endpoint: Endpoint): fc.Arbitrary<FuzzRequest> {
  const idCount = endpoint.path.split(':id').length - 1;
  const method = fc.oneof(
    { arbitrary: fc.constant(endpoint.method), weight: 12 },
    { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'), weight: 1 },
  );
  const body: fc.Arbitrary<{ body?: Uint8Array | string; headers: Record<string, string> }> =
    endpoint.body === 'multipart'
      ? multipartRequest
      : endpoint.body === 'json'
        ? fc.tuple(jsonBody, jsonContentType).map(([content, type]) => ({
            ...(content === undefined ? {} : { body: content }),
            headers: type === undefined ? {} : { 'content-type': type },
          }))
        : fc.oneof(
            { arbitrary: fc.constant({ headers: {} }), weight: 6 },
            { arbitrary: jsonBody.map((content) => ({ body: content ?? '', headers: {} })), weight: 1 },
          );
  return fc
    .record({
      method,
      ids: fc.array(pathId, { minLength: idCount, maxLength: idCount }),
      query: fc.option(queryString, { freq: 2 }),
      headers: commonHeaders,
      body,
    })
    .map(({ method, ids, query, headers, body: content }) => {
      let index = 0;
      const path = endpoint.path.replace(/:id/g, () => ids[index++]!);
      const request: FuzzRequest = {
        method,
        target: query === null ? path : `${path}?${query}`,
        headers: { ...headers, ...content.headers },
      };
      // A GET or HEAD request cannot carry a body.
      if (content.body !== undefined && method !== 'GET' && method !== 'HEAD') request.body = content.body;
      return request;
    });
}

function describeRequest(request: FuzzRequest): string {
  const body =
    request.body === undefined
      ? ''
      : typeof request.body === 'string'
        ? request.body.slice(0, 300)
        : `<${request.body.length} bytes: ${Buffer.from(request.body.subarray(0, 200)).toString('latin1')}>`;
  const target = request.target.length > 300 ? `${request.target.slice(0, 300)}…` : request.target;
  const headers = JSON.stringify(request.headers, (_key, value: unknown) =>
    typeof value === 'string' && value.length > 100 ? `${value.slice(0, 100)}…` : value,
  );
  return `${request.method} ${target} ${headers} ${body}`;
}

async function send(request: FuzzRequest): Promise<Response> {
  return w.http.app.request(`http://localhost${request.target}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
}

/** What every answer must be, whatever was sent. */
async function expectDocumentedResponse(request: FuzzRequest, loggedBefore: number): Promise<void> {
  const where = describeRequest(request);
  const staged = new Set(w.stagingEntries());
  const response = await send(request);
  const text = await response.text();
  const logged = w.logged.slice(loggedBefore);
  expect(
    logged.map(
      ({ message, error }) => `${message}: ${String((error as Error)?.stack ?? error).slice(0, 600)}`,
    ),
    `unexpected failure (a 500) for ${where}`,
  ).toEqual([]);
  expect(ALLOWED_STATUSES, `status ${response.status} for ${where}: ${text.slice(0, 300)}`).toContain(
    response.status,
  );
  if (request.method !== 'HEAD') {
    expect(response.headers.get('content-type'), where).toMatch(/^application\/json/);
    let body: unknown;
    expect(
      () => {
        body = JSON.parse(text);
      },
      `body is not JSON for ${where}: ${text.slice(0, 300)}`,
    ).not.toThrow();
    if (response.status >= 400) {
      expect(errorBodyProblems(body, response.status), `${where}\n${text.slice(0, 500)}`).toEqual([]);
    } else if (!request.target.startsWith('/v1/openapi.json')) {
      expect((body as { status?: unknown }).status, where).toBe('success');
    }
  }
  // Compared with before the request, so that a leftover is blamed on the request that left it; an
  // upload's work may go on for a moment after its answer, so let it settle first.
  if (request.target.includes('/media')) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await leftInStaging(staged), `upload staging left behind by ${where}`).toEqual([]);
  expect(addedToPrototypes(), `prototype pollution by ${where}`).toEqual([]);
}

/**
 * Staged files that are new since `before` and still there a moment later (a rejected upload may be
 * cleaned up just after its answer; what stays is kept for good).
 */
async function leftInStaging(before: ReadonlySet<string>): Promise<string[]> {
  const deadline = Date.now() + 500;
  for (;;) {
    const added = w.stagingEntries().filter((entry) => !before.has(entry));
    if (added.length === 0 || Date.now() > deadline) return added;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function expectStillServing(): Promise<void> {
  const response = await w.request('GET', '/v1/brands');
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: Array<{ title: string }> };
  expect(body.data.map((brand) => brand.title)).toEqual(['Northwind Coffee', 'Kite & Key Studio']);
}

describe('every endpoint, random and adversarial requests', () => {
  it.each(ENDPOINTS.map((endpoint) => [`${endpoint.method} ${endpoint.path}`, endpoint] as const))(
    '%s answers a documented status and body',
    async (_name, endpoint) => {
      await fc.assert(
        fc.asyncProperty(requestFor(endpoint), async (request) => {
          await expectDocumentedResponse(request, w.logged.length);
          await expectStillServing();
        }),
        fuzzOptions(RUNS_PER_ENDPOINT, 10_000),
      );
    },
    60_000,
  );

  it('random routes and methods answer a documented status and body', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'v1',
        'brands',
        'posts',
        'media',
        'collections',
        'channels',
        'queue',
        'publish',
        'me',
        '..',
        '.',
      ),
      pathId,
    );
    const randomRequest = fc
      .record({
        method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
        segments: fc.array(segment, { maxLength: 7 }),
        headers: commonHeaders,
      })
      .map(({ method, segments, headers }) => ({ method, target: `/${segments.join('/')}`, headers }));
    await fc.assert(
      fc.asyncProperty(randomRequest, async (request) => {
        await expectDocumentedResponse(request, w.logged.length);
      }),
      fuzzOptions(300, 10_000),
    );
  }, 60_000);
});

describe('unknown fields, prototype keys included', () => {
  // product.md: "unknown field (a typo must never pass silently)" → `The {attr} field is not allowed.`
  const unknownKey = fc.oneof(
    fc.constantFrom(...PROTOTYPE_KEYS),
    fc
      .string({ minLength: 1, maxLength: 10 })
      .filter((key) => !QUERY_KEYS.includes(key) && !POST_FIELDS.includes(key)),
  );

  async function expectNotAllowed(request: FuzzRequest, key: string): Promise<void> {
    const before = w.logged.length;
    const response = await send(request);
    const body = (await response.json()) as { errors?: Record<string, unknown> };
    expect(w.logged.slice(before), describeRequest(request)).toEqual([]);
    expect(
      {
        status: response.status,
        error: body.errors && Object.hasOwn(body.errors, key) ? body.errors[key] : body,
      },
      `${describeRequest(request)} must name the unknown field ${JSON.stringify(key)}`,
    ).toEqual({ status: 422, error: [`The ${attributeName(key)} field is not allowed.`] });
    expect(addedToPrototypes()).toEqual([]);
  }

  it('in a query string', async () => {
    const listEndpoints = [
      '/v1/me',
      '/v1/brands',
      '/v1/brands/1/channels',
      '/v1/brands/1/collections',
      '/v1/brands/1/posts',
      '/v1/brands/1/posts/1',
      '/v1/brands/1/queue',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...listEndpoints), unknownKey, async (path, key) => {
        await expectNotAllowed(
          { method: 'GET', target: `${path}?${encode(key)}=1`, headers: authHeaders() },
          key,
        );
      }),
      fuzzOptions(200, 10_000),
    );
  });

  it('in a JSON body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), unknownKey, async (create, key) => {
        const payload = objectFrom([
          ['publishMode', 'DRAFT'],
          ['caption', `Unknown ${key}`],
          [key, 1],
        ]);
        const target = create ? '/v1/brands/1/collections/1/posts' : `/v1/brands/1/posts/${await newDraft()}`;
        await expectNotAllowed(
          {
            method: create ? 'POST' : 'PATCH',
            target,
            headers: { ...authHeaders(), 'content-type': 'application/json' },
            body: JSON.stringify(payload),
          },
          key,
        );
      }),
      fuzzOptions(200, 10_000),
    );
  });

  it('as an extra multipart field beside the file', async () => {
    await fc.assert(
      fc.asyncProperty(
        // A backslash escapes the next character inside a MIME quoted-string (name="..."): not a plain name.
        unknownKey.filter((key) => !/["\\\r\n]/.test(key) && key !== 'media'),
        fc.uint8Array({ minLength: 1, maxLength: 16 }),
        async (key, tail) => {
          const boundary = 'fuzzBoundary7MA4YWxk';
          const body = concat(
            Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\nvalue\r\n`),
            Buffer.from(
              `--${boundary}\r\nContent-Disposition: form-data; name="media"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
            ),
            concat(PNG_1X1, tail),
            Buffer.from(`\r\n--${boundary}--\r\n`),
          );
          await expectNotAllowed(
            {
              method: 'POST',
              target: '/v1/brands/1/media',
              headers: { ...authHeaders(), 'content-type': `multipart/form-data; boundary=${boundary}` },
              body,
            },
            key,
          );
        },
      ),
      fuzzOptions(100, 10_000),
    );
  });
});

function authHeaders(): Record<string, string> {
  return { host: 'localhost', authorization: `Bearer ${KEY_A}` };
}

describe('deep nesting within the body size limit', () => {
  it.each(['array', 'object'] as const)(
    'answers a body nested 10,000 levels deep (%s) with a 422, not a 500',
    async (style) => {
      // 20–60 KB, far under the 1 MB body limit. Written by hand: JSON.stringify itself recurses.
      const depth = 10_000;
      const caption =
        style === 'array'
          ? `${'['.repeat(depth)}"x"${']'.repeat(depth)}`
          : `${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}`;
      const body = `{"publishMode":"DRAFT","caption":${caption}}`;
      const request: FuzzRequest = {
        method: 'POST',
        target: '/v1/brands/1/collections/1/posts',
        headers: { ...authHeaders(), 'content-type': 'application/json' },
        body,
      };
      await expectDocumentedResponse(request, w.logged.length);
      await expectStillServing();
    },
  );
});

describe('a rejected upload keeps nothing', () => {
  // http-interface.md: 422 for a bad upload; product.md: "nothing is kept from a rejected upload".
  it('a complete media part followed by a part the body ends in', async () => {
    const boundary = 'fuzzBoundary7MA4YWxk';
    const whole = concat(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="media"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      concat(PNG_1X1, Buffer.from('truncated-upload')),
      Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nthe body ends`),
    );
    // As a client whose connection drops: the file part arrives whole, then the body just ends.
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(whole);
        await new Promise((resolve) => setTimeout(resolve, 100));
        controller.enqueue(Buffer.from(' here'));
        controller.close();
      },
    });
    const before = new Set(w.stagingEntries());
    const loggedBefore = w.logged.length;
    const response = await w.http.app.request('http://localhost/v1/brands/1/media', {
      method: 'POST',
      headers: { ...authHeaders(), 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit);
    const text = await response.text();
    expect(w.logged.slice(loggedBefore)).toEqual([]);
    expect(response.status, text).toBe(422);
    expect(errorBodyProblems(JSON.parse(text), 422)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await leftInStaging(before), `staged file kept after a rejected upload (${text})`).toEqual([]);
  });
});
