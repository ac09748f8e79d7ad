/**
 * Adversarial values for the fuzz tests: wrong types, huge strings, deep nesting, unicode (emoji, RTL,
 * lone surrogates, NUL), NaN/Infinity/-0/1e308/huge integers, prototype-pollution keys, JSON strings.
 * Nothing here reaches the network: every URL is loopback or not http(s) at all, so an upload from a
 * URL is refused before any connection is made.
 */
import fc from 'fast-check';

/**
 * One seed per run, printed by fast-check with the failing counterexample ("seed: …, path: …").
 * FUZZ_SEED=<n> replays a run.
 */
export const SEED = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;

/** fast-check options for one property: bounded in runs and in wall-clock time. */
export function fuzzOptions<T>(numRuns: number, timeLimitMs = 20_000): fc.Parameters<T> {
  return { seed: SEED, numRuns, interruptAfterTimeLimit: timeLimitMs, markInterruptAsFailure: false };
}

export const HUGE_ASCII = 'x'.repeat(100_000);
const HUGE_EMOJI = '😀'.repeat(50_000);
const HUGE_SURROGATES = '\ud800'.repeat(3001);

/** The names attackers try first. */
export const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'isPrototypeOf',
] as const;

/** Strings that have broken parsers, validators and databases before. */
export const specialString = fc.constantFrom(
  '',
  ' ',
  '\t\n\r ',
  '\u0000',
  'a\u0000b',
  '/a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '😀',
  '👩‍👩‍👧‍👦',
  '\u202eevil\u202c',
  'مرحبا بالعالم',
  'שלום',
  '\u200b',
  '\ufeff',
  'Ω≈ç√∫',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e308',
  '1e309',
  '0x1F',
  '1.5',
  ' 1 ',
  '01',
  '-1',
  '0',
  '1',
  '2',
  '9007199254740993',
  '999999999999999',
  '9'.repeat(400),
  'true',
  'false',
  '[]',
  '{}',
  '{',
  '[',
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '[{"__proto__":{"polluted":"yes"}}]',
  'DRAFT',
  'QUEUE',
  'SCHEDULE',
  'IMMEDIATE',
  'draft',
  '1d',
  '2026-11-24 09:00:00',
  '2000-01-01 00:00:00',
  '2027-03-14 02:30:00',
  '9999-12-31 23:59:59',
  '2026-02-30 10:00:00',
  '2026-11-24T09:00:00Z',
  'http://127.0.0.1/a.png',
  'http://localhost:1/a.png',
  'http://[::1]/a.png',
  'javascript:alert(1)',
  'file:///etc/passwd',
  '/etc/passwd',
  '/',
  '~',
  '~/does-not-exist.png',
  '../../etc/passwd',
  '%00',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, literally.
  '${7*7}',
  "'; DROP TABLE posts; --",
  '<script>alert(1)</script>',
  'med_does_not_exist',
  'iVBORw0KGgo=',
  '!!not base64!!',
  HUGE_ASCII,
  HUGE_EMOJI,
  HUGE_SURROGATES,
);

const randomString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

export const specialNumber = fc.constantFrom(
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -0,
  0,
  1,
  2,
  3,
  -1,
  1.5,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  2 ** 64,
  Number.MIN_VALUE,
  Number.EPSILON,
);

/** A scalar of any JSON-ish type (plus undefined and NaN, which only an in-process transport carries). */
export const leaf: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: specialString, weight: 4 },
  { arbitrary: randomString, weight: 2 },
  { arbitrary: specialNumber, weight: 3 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.double(), weight: 1 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: fc.constantFrom(null, undefined), weight: 1 },
);

/**
 * An object built from entries as JSON.parse builds it: every key an own, enumerable data property,
 * `__proto__` included (an object literal or plain assignment would set the prototype instead).
 */
export function objectFrom(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return object;
}

/** Keys for adversarial objects: prototype keys, the tools' own field names, and random keys. */
export function keyArb(fieldNames: readonly string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...PROTOTYPE_KEYS), weight: 2 },
    ...(fieldNames.length > 0 ? [{ arbitrary: fc.constantFrom(...fieldNames), weight: 2 }] : []),
    { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
  );
}

/** A value of any shape: leaves, arrays and objects (with prototype keys), a few levels deep. */
export function anyValue(fieldNames: readonly string[] = []): fc.Arbitrary<unknown> {
  const keys = keyArb(fieldNames);
  return fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>((tie) => ({
    value: fc.oneof({ depthSize: 'small', maxDepth: 4 }, leaf, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.array(fc.tuple(keys, tie('value')), { maxLength: 5 }).map(objectFrom),
  })).value;
}

/** Wraps `inner` in `depth` arrays or objects (or both, alternating). */
export function nest(inner: unknown, depth: number, style: 'array' | 'object' | 'mixed', key = 'a'): unknown {
  let value = inner;
  for (let level = 0; level < depth; level++) {
    const asArray = style === 'array' || (style === 'mixed' && level % 2 === 0);
    value = asArray ? [value] : objectFrom([[key, value]]);
  }
  return value;
}

/** Deep nesting, up to `maxDepth` levels. */
export function deepValue(fieldNames: readonly string[] = [], maxDepth = 200): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      leaf,
      fc.integer({ min: 20, max: maxDepth }),
      fc.constantFrom('array' as const, 'object' as const, 'mixed' as const),
      keyArb(fieldNames),
    )
    .map(([inner, depth, style, key]) => nest(inner, depth, style, key));
}

/** A JSON text of an adversarial value, as an assistant sends an object "as a JSON string". */
export function jsonText(fieldNames: readonly string[] = []): fc.Arbitrary<string> {
  return fc
    .oneof(anyValue(fieldNames), deepValue(fieldNames, 60))
    .map((value) => JSON.stringify(value) ?? 'undefined');
}

/** A value of any kind for one field: wrong types and adversarial values, now and then a plausible one. */
export function fieldValue(fieldNames: readonly string[], plausible?: fc.Arbitrary<unknown>) {
  return fc.oneof(
    { arbitrary: leaf, weight: 4 },
    { arbitrary: anyValue(fieldNames), weight: 2 },
    { arbitrary: deepValue(fieldNames), weight: 1 },
    { arbitrary: jsonText(fieldNames), weight: 1 },
    ...(plausible ? [{ arbitrary: plausible, weight: 4 }] : []),
  );
}

/** A valid 1×1 PNG, base64. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** Values a field could legitimately hold (and their near misses), to get past the first checks. */
export function plausibleValue(
  field: string,
  extra: { pngPath?: string; loopPath?: string } = {},
): fc.Arbitrary<unknown> {
  switch (field) {
    case 'brandId':
      return fc.constantFrom(1, 2, 3, 999, '1', '2', 0);
    case 'collectionId':
      return fc.constantFrom(1, 2, 3, 4, 5, 6, '1', 99);
    case 'postId':
      return fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constantFrom('1', 123456));
    case 'page':
      return fc.oneof(fc.integer({ min: -3, max: 5 }), fc.constantFrom('1', '2', 1e6));
    case 'per_page':
    case 'count':
      return fc.oneof(fc.integer({ min: -3, max: 120 }), fc.constantFrom('10', '100', '101'));
    case 'publishMode':
      return fc.constantFrom('QUEUE', 'SCHEDULE', 'IMMEDIATE', 'DRAFT', 'draft', 'NOW');
    case 'status':
      return fc.constantFrom('draft', 'queued', 'scheduled', 'published', 'cancelled', 'DRAFT');
    case 'order':
      return fc.constantFrom('newest', 'calendar', 'oldest');
    case 'caption':
    case 'title':
    case 'alt':
    case 'idempotencyKey':
    case 'filename':
      return fc.oneof(
        fc.string({ minLength: 1, maxLength: 30 }),
        fc.constantFrom('p.png', 'Hello 😀', 'x'.repeat(256), 'x'.repeat(3001)),
      );
    case 'scheduledAt':
    case 'from':
    case 'to':
      return fc.constantFrom(
        '2026-11-24 09:00:00',
        '2030-06-01 12:00:00',
        '2000-01-01 00:00:00',
        '2027-03-14 02:30:00',
        '2026-11-24 9:00:00',
        '2026-13-01 00:00:00',
      );
    case 'dryRun':
    case 'postAsStory':
      return fc.constantFrom(true, false, 'true', 1);
    case 'link':
      return fc.constantFrom(
        'https://example.com/x',
        'ftp://example.com/x',
        `https://example.com/${'a'.repeat(1000)}`,
      );
    case 'poll':
      return fc.constantFrom<unknown>(
        { question: 'Tea?', options: ['Yes', 'No'], period: '1d' },
        { question: 'Tea?', options: ['Yes', 'No'], period: '1d', correctOptionIndex: 5 },
        { question: 'Tea?', options: ['Yes'], period: '2d' },
        { question: 'Tea?', options: ['a', 'b', 'c', 'd', 'e'], period: '7d', explanation: '' },
        '{"question":"Tea?","options":["Yes","No"],"period":"3d"}',
      );
    case 'comment':
      return fc.constantFrom<unknown>(
        { comment: 'First!', delay: 10 },
        { comment: 'First!', delay: -1 },
        { comment: 'First!', delay: 1.5 },
        '{"comment":"c","delay":0}',
      );
    case 'media':
      return fc.constantFrom<unknown>(
        [{ url: 'https://example.com/a.png' }],
        [{ id: 'med_nope' }],
        [{ id: 'med_nope', url: 'https://example.com/a.png' }],
        [{}],
        [null],
        '[{"url":"https://example.com/a.png"}]',
      );
    case 'platforms':
      return fc.constantFrom<unknown>(
        { youtube: { playlists: [{ channelId: 6, playlistIds: ['PL1'] }] } },
        { youtube: { playlists: [{ channelId: 999, playlistIds: ['PL1'] }] } },
        { instagram: { location: { id: '1', name: 'Here' }, shareToFeed: 'yes' } },
        { tiktok: { sendToInbox: true }, myspace: {} },
      );
    case 'base64':
      return fc.constantFrom(PNG_BASE64, '', 'AAAA', 'JVBERi0xLjQK', '!!!');
    case 'path':
      // Absolute paths get past the first check to the file system.
      return fc.oneof(
        fc.constantFrom(
          ...[extra.pngPath, extra.loopPath].filter((path): path is string => path !== undefined),
          '/does/not/exist.png',
          'relative/p.png',
          '/',
          '/etc/hostname',
          '/dev/null',
          '/dev/zero',
          '/proc/self/status',
          `/${'a'.repeat(300)}`,
          `/tmp/${'a/'.repeat(2100)}p.png`,
          '/tmp/a\u0000b.png',
          '/tmp/😀\u202e.png',
        ),
        fc.string({ unit: 'binary', maxLength: 30 }).map((name) => `/tmp/${name}`),
      );
    case 'url':
      return fc.constantFrom('http://127.0.0.1/a.png', 'http://localhost/a.png', 'ftp://x/y', 'not a url');
    default:
      return leaf;
  }
}

/** Printable Latin-1 text: what a Headers object accepts as a value. */
export const headerText = (maxLength = 60) =>
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((code) => code !== 0x7f)
      .map((code) => String.fromCharCode(code)),
    maxLength,
  });
