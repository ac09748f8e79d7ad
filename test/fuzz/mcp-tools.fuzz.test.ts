/**
 * Fuzzing every MCP tool through the real SDK client and our server (in-memory transport, real
 * service, real SQLite): random and adversarial arguments never make a JSON-RPC error (except for an
 * unknown tool), never an unexpected failure, and always answer either a success or the documented
 * error body; the built-in prototypes stay clean and the server keeps answering.
 *
 * Bounded: a fixed number of runs per tool and a time limit per property. The seed is printed with
 * any counterexample; FUZZ_SEED=<seed> replays it.
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributeName } from '../../src/domain/messages.js';
import { TOOLS } from '../../src/mcp/registry.js';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { type McpHarness, openMcpHarness, PNG_1X1, textOf } from '../mcp/harness.js';
import {
  fieldValue,
  fuzzOptions,
  keyArb,
  nest,
  objectFrom,
  PNG_BASE64,
  PROTOTYPE_KEYS,
  plausibleValue,
} from './arbitraries.js';
import { errorBodyProblems, prototypeSnapshot } from './shape.js';

const RUNS_PER_TOOL = 300;
const DEMO_BRANDS = ['Northwind Coffee', 'Kite & Key Studio'];
/** Field names of nested objects, used as keys too: they reach deeper validation paths. */
const NESTED_NAMES = [
  'question',
  'options',
  'period',
  'correctOptionIndex',
  'comment',
  'delay',
  'id',
  'url',
  'youtube',
  'playlists',
  'channelId',
  'playlistIds',
  'instagram',
  'location',
];

let h: McpHarness;
let pngPath: string;
let loopPath: string;
let addedToPrototypes: () => string[];
let drafts = 0;

beforeAll(async () => {
  addedToPrototypes = prototypeSnapshot();
  h = await openMcpHarness();
  pngPath = join(h.rt.dataDir, 'fuzz-pixel.png');
  writeFileSync(pngPath, PNG_1X1);
  loopPath = join(h.rt.dataDir, 'fuzz-loop');
  symlinkSync(loopPath, loopPath);
  // Posts for the lifecycle tools to find.
  for (let i = 0; i < 10; i++) await newDraft();
});

afterAll(async () => {
  await h?.close();
});

async function newDraft(): Promise<number> {
  const created = await h.rt.service.createPost({
    brandId: 1,
    collectionId: 1,
    publishMode: 'DRAFT',
    caption: `Fuzz draft ${++drafts}`,
  });
  return created.id!;
}

function fieldsOf(tool: ToolDefinition): string[] {
  return Object.keys(tool.input.shape);
}

/** Valid arguments (given the demo workspace and the drafts made above), to mutate one field at a time. */
function templatesFor(tool: ToolDefinition): Array<Record<string, unknown>> {
  const post = { brandId: 1, postId: 3 };
  switch (tool.name) {
    case 'get_profile':
      return [{}];
    case 'list_brands':
      return [{ page: 1, per_page: 10 }];
    case 'list_channels':
    case 'list_collections':
      return [{ brandId: 1, page: 1, per_page: 5 }];
    case 'upload_media':
      return [
        { brandId: 1, path: pngPath },
        { brandId: 1, base64: PNG_BASE64, filename: 'p.png' },
        { brandId: 2, url: 'http://127.0.0.1/a.png' },
      ];
    case 'create_post':
      return [
        { brandId: 1, collectionId: 1, publishMode: 'DRAFT', caption: 'Draft' },
        {
          brandId: 1,
          collectionId: 2,
          publishMode: 'SCHEDULE',
          scheduledAt: '2026-11-24 09:00:00',
          caption: 'At',
        },
        {
          brandId: 1,
          collectionId: 3,
          publishMode: 'QUEUE',
          poll: { question: 'Oat or whole?', options: ['Oat', 'Whole'], period: '1d', correctOptionIndex: 0 },
        },
        {
          brandId: 1,
          collectionId: 1,
          publishMode: 'IMMEDIATE',
          caption: 'Now',
          title: 'T',
          alt: 'A',
          link: 'https://example.com/x',
          postAsStory: true,
          comment: { comment: 'First!', delay: 60 },
          media: [{ url: 'https://example.com/a.png' }],
          platforms: {
            youtube: { tags: ['coffee'], playlists: [{ channelId: 6, playlistIds: ['PL1'] }] },
            instagram: {
              collab: 'x',
              location: { id: '1', name: 'Here' },
              trialReel: 'MANUAL',
              shareToFeed: true,
            },
          },
          idempotencyKey: 'fuzz-key',
        },
        { brandId: 2, collectionId: 5, publishMode: 'DRAFT', caption: 'Tokyo', dryRun: true },
      ];
    case 'list_posts':
      return [
        {
          brandId: 1,
          status: 'draft',
          collectionId: 1,
          from: '2026-01-01 00:00:00',
          to: '2027-01-01 00:00:00',
          order: 'calendar',
          page: 1,
          per_page: 20,
        },
      ];
    case 'update_post':
      return [{ ...post, caption: 'Changed', publishMode: 'SCHEDULE', scheduledAt: '2026-11-30 10:00:00' }];
    case 'get_queue':
      return [{ brandId: 1, count: 5 }];
    default:
      return [post];
  }
}

const DELETE = Symbol('delete');

/** Arguments for one tool: its own fields with wrong-typed and adversarial values, or any object. */
function argumentsFor(tool: ToolDefinition): fc.Arbitrary<Record<string, unknown>> {
  const fields = fieldsOf(tool);
  const names = [...fields, ...NESTED_NAMES];
  // Valid arguments with one or two fields changed (or removed): gets past the other checks, so the
  // adversarial value reaches the code behind validation (files, database, time zones).
  const change = (template: Record<string, unknown>) => {
    const keys = Object.keys(template);
    const key = fc.oneof(
      ...(keys.length > 0 ? [{ arbitrary: fc.constantFrom(...keys), weight: 6 }] : []),
      ...(fields.length > 0 ? [{ arbitrary: fc.constantFrom(...fields), weight: 2 }] : []),
      { arbitrary: keyArb(names), weight: 1 },
    );
    return key.chain((name) =>
      fc.tuple(
        fc.constant(name),
        fc.oneof(
          { arbitrary: plausibleValue(name, { pngPath, loopPath }), weight: 3 },
          { arbitrary: fieldValue(names), weight: 3 },
          { arbitrary: fc.constant<typeof DELETE>(DELETE), weight: 1 },
        ),
      ),
    );
  };
  const mutated = fc
    .constantFrom(...templatesFor(tool))
    .chain((template) =>
      fc.tuple(fc.constant(template), fc.array(change(template), { minLength: 1, maxLength: 2 })),
    )
    .map(([template, changes]) => {
      const entries = new Map(Object.entries(template));
      for (const [key, value] of changes) {
        if (value === DELETE) entries.delete(key);
        else entries.set(key, value);
      }
      return objectFrom([...entries]);
    });
  const ownFields = fc
    .tuple(
      fc.record(
        Object.fromEntries(
          fields.map((field) => [field, fieldValue(names, plausibleValue(field, { pngPath, loopPath }))]),
        ),
        { requiredKeys: [] },
      ),
      fc.array(fc.tuple(keyArb(names), fieldValue(names)), { maxLength: 2 }),
    )
    .map(([record, extra]) => objectFrom([...Object.entries(record), ...extra]));
  const anyObject = fc.array(fc.tuple(keyArb(names), fieldValue(names)), { maxLength: 6 }).map(objectFrom);
  return fc.oneof(
    { arbitrary: mutated, weight: 4 },
    { arbitrary: ownFields, weight: 3 },
    { arbitrary: anyObject, weight: 1 },
  );
}

/** A short, printable description of an argument object for failure messages. */
function describeArgs(args: unknown): string {
  const text =
    JSON.stringify(args, (_key, value: unknown) =>
      typeof value === 'number' && !Number.isFinite(value) ? String(value) : value,
    ) ?? String(args);
  return text.length > 400 ? `${text.slice(0, 400)}… (${text.length} chars)` : text;
}

/** What one call must answer, whatever the arguments. */
function expectDocumentedResult(result: CallToolResult, args: unknown): void {
  const where = `arguments ${describeArgs(args)}`;
  const text = textOf(result);
  expect(text.length, `no text content for ${where}`).toBeGreaterThan(0);
  const body = result.structuredContent as Record<string, unknown> | undefined;
  if (result.isError) {
    expect(errorBodyProblems(body), `${where}\n${text}`).toEqual([]);
    expect(text, where).toContain(String(body!.message));
  } else {
    expect(body?.status, `${where}\n${text}`).toBe('success');
    expect(body, where).toHaveProperty('data');
  }
}

/** Nothing went unexpectedly wrong in the server (it logs what it did not expect). */
function expectNothingLogged(loggedBefore: number, args: unknown): void {
  const logged = h.logged.slice(loggedBefore);
  expect(
    logged.map(
      ({ message, error }) => `${message}: ${String((error as Error)?.stack ?? error).slice(0, 600)}`,
    ),
    `unexpected failure for arguments ${describeArgs(args)}`,
  ).toEqual([]);
}

/** The server is still whole: nothing unexpected logged, prototypes clean, list_brands right. */
async function expectServerWhole(loggedBefore: number, args: unknown): Promise<void> {
  expectNothingLogged(loggedBefore, args);
  expect(addedToPrototypes(), `prototype pollution by ${describeArgs(args)}`).toEqual([]);
  const brands = await h.call('list_brands', {});
  expect(brands.isError ?? false).toBe(false);
  expect((brands.structuredContent as { data: Array<{ title: string }> }).data.map((b) => b.title)).toEqual(
    DEMO_BRANDS,
  );
}

describe('every tool, random and adversarial arguments', () => {
  it.each(TOOLS.map((tool) => [tool.name, tool] as const))(
    '%s answers a success or the documented error',
    async (_name, tool) => {
      await fc.assert(
        fc.asyncProperty(argumentsFor(tool), async (args) => {
          const before = h.logged.length;
          const result = await h.call(tool.name, args);
          expectNothingLogged(before, args);
          expectDocumentedResult(result, args);
          await expectServerWhole(before, args);
        }),
        fuzzOptions(RUNS_PER_TOOL, 8_000),
      );
    },
    60_000,
  );
});

/** Arguments every check passes, so that the only thing wrong is the key added to them. */
async function validArguments(tool: ToolDefinition): Promise<Record<string, unknown>> {
  switch (tool.name) {
    case 'get_profile':
    case 'list_brands':
      return {};
    case 'upload_media':
      return { brandId: 1, base64: PNG_BASE64, filename: 'p.png' };
    case 'create_post':
      return { brandId: 1, collectionId: 1, publishMode: 'DRAFT', caption: 'Dry', dryRun: true };
    case 'get_post':
    case 'delete_post':
    case 'publish_post':
      return { brandId: 1, postId: await newDraft() };
    case 'update_post':
      return { brandId: 1, postId: await newDraft(), caption: 'Changed' };
    case 'connect_channel':
      return { brandId: 1, platform: 'linkedin' };
    default:
      return { brandId: 1 };
  }
}

describe('unknown argument names, prototype keys included', () => {
  // product.md: "unknown field (a typo must never pass silently)" → `The {attr} field is not allowed.`
  it('every tool reports an unknown argument as not allowed', async () => {
    const unknownKey = fc.oneof(
      fc.constantFrom(...PROTOTYPE_KEYS),
      fc.string({ minLength: 1, maxLength: 12 }),
    );
    const presentValue = fc.oneof(
      fc.integer(),
      fc.boolean(),
      fc.string({ minLength: 1, maxLength: 10 }).filter((text) => text.trim() !== ''),
      fc.constant({ polluted: 'yes' }),
      fc.constant(['x']),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TOOLS.map((tool) => tool.name)),
        unknownKey,
        presentValue,
        async (name, key, value) => {
          const tool = TOOLS.find((candidate) => candidate.name === name)!;
          fc.pre(!fieldsOf(tool).includes(key));
          // zod, inside the SDK's tools/call parsing, strips "__proto__" keys before any server code runs
          // (safe: nothing is polluted, nothing reaches us). The REST fuzz sends "__proto__" with every
          // kind of value through JSON bodies and query strings, where it must be refused.
          fc.pre(key !== '__proto__');
          const before = h.logged.length;
          const args = objectFrom([...Object.entries(await validArguments(tool)), [key, value]]);
          const result = await h.call(tool.name, args);
          expectNothingLogged(before, args);
          expectDocumentedResult(result, args);
          expect(result.isError, `${tool.name} accepted the unknown argument ${JSON.stringify(key)}`).toBe(
            true,
          );
          const errors = (result.structuredContent as { errors: Record<string, unknown> }).errors;
          expect(Object.hasOwn(errors, key) ? errors[key] : errors, describeArgs(args)).toEqual([
            `The ${attributeName(key)} field is not allowed.`,
          ]);
          await expectServerWhole(before, args);
        },
      ),
      fuzzOptions(300, 10_000),
    );
  }, 60_000);
});

describe('the protocol edges', () => {
  it('answers an unknown tool with a JSON-RPC InvalidParams error, and keeps answering', async () => {
    const known = new Set(TOOLS.map((tool) => tool.name));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 30 }),
          fc.constantFrom(...PROTOTYPE_KEYS, 'LIST_BRANDS', 'list_brands '),
        ),
        fc.array(fc.tuple(keyArb(), fieldValue([])), { maxLength: 3 }).map(objectFrom),
        async (name, args) => {
          fc.pre(!known.has(name));
          const before = h.logged.length;
          const error = await h.call(name, args).then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
          expect(error, `tool ${JSON.stringify(name)}`).toBeInstanceOf(McpError);
          expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
          await expectServerWhole(before, args);
        },
      ),
      fuzzOptions(100, 5_000),
    );
  });

  it('answers arguments that are not an object with an error, and keeps answering', async () => {
    const notAnObject = fc.oneof(
      fc.array(fieldValue([]), { maxLength: 3 }),
      fc.string({ maxLength: 20 }),
      fc.constantFrom<unknown>(42, Number.NaN, true, '{"brandId":1}', [{ brandId: 1 }]),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TOOLS.map((tool) => tool.name)),
        notAnObject,
        async (name, args) => {
          const before = h.logged.length;
          const outcome = await h.client.callTool({ name, arguments: args as Record<string, unknown> }).then(
            (result) => ({ result: result as CallToolResult }),
            (thrown: unknown) => ({ thrown }),
          );
          if ('thrown' in outcome) {
            // The request itself breaks the MCP schema (arguments is a JSON object): a protocol error is a
            // right answer. The SDK's request-schema check answers it as InternalError (-32603).
            expect(outcome.thrown, describeArgs(args)).toBeInstanceOf(McpError);
            expect([ErrorCode.InvalidParams, ErrorCode.InternalError]).toContain(
              (outcome.thrown as McpError).code,
            );
          } else {
            expectDocumentedResult(outcome.result, args);
          }
          await expectServerWhole(before, args);
        },
      ),
      fuzzOptions(100, 5_000),
    );
  });

  it('answers a local path the file system refuses with a 422 on path', async () => {
    // Counterexamples the property above finds: each must be a field error, not an unexpected failure.
    const paths = {
      'a NUL byte': '/tmp/a\u0000b.png',
      'a name longer than the file system allows': `/tmp/${'a'.repeat(300)}.png`,
      'a symbolic link loop': loopPath,
    };
    for (const [what, path] of Object.entries(paths)) {
      const before = h.logged.length;
      const result = await h.call('upload_media', { brandId: 1, path });
      expectNothingLogged(before, `path with ${what}`);
      expect(result.isError, what).toBe(true);
      expect(Object.keys((result.structuredContent as { errors: object }).errors), what).toEqual(['path']);
      expectDocumentedResult(result, `path with ${what}`);
    }
  });

  it('answers arguments nested 10,000 levels deep with a validation error', async () => {
    // Far deeper than the property above goes (200), still a small message (about 60 KB of JSON).
    for (const style of ['array', 'object'] as const) {
      const args = { brandId: 1, collectionId: 1, publishMode: 'DRAFT', caption: nest('x', 10_000, style) };
      const before = h.logged.length;
      const result = await h.call('create_post', args);
      await expectServerWhole(before, `caption nested 10,000 levels (${style})`);
      expectDocumentedResult(result, `caption nested 10,000 levels (${style})`);
      expect(result.structuredContent).toEqual({
        status: 'error',
        message: 'The given data was invalid.',
        errors: { caption: ['The caption must be a string.'] },
      });
    }
  });
});
