/**
 * The BUILT program over stdio, with a fresh data directory, fed random and adversarial tool calls and
 * malformed JSON-RPC lines: every byte it writes to stdout belongs to the protocol (each line one
 * JSON-RPC 2.0 message, valid UTF-8), every well-formed request gets exactly one answer, and the
 * process stays up, answers a final list_brands, and exits cleanly when stdin closes.
 *
 * Bounded: a fixed number of calls, generated from one seed (printed with any failure; FUZZ_SEED=<seed>
 * replays it).
 */
import fc from 'fast-check';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { TOOLS } from '../../src/mcp/registry.js';
import { type JsonRpcMessage, StdioProcess } from '../crash/stdio-process.js';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import {
  fieldValue,
  keyArb,
  objectFrom,
  PNG_BASE64,
  PROTOTYPE_KEYS,
  plausibleValue,
  SEED,
} from './arbitraries.js';

const CALLS = 250;
const TOOL_NAMES = TOOLS.map((tool) => tool.name);

beforeAll(() => {
  requireBuild();
});

afterEach(async () => {
  await cleanup();
});

/** A tool call as it would be written on the wire (NaN and Infinity become null, undefined vanishes). */
const toolCall = fc
  .record({
    name: fc.oneof(
      { arbitrary: fc.constantFrom(...TOOL_NAMES), weight: 12 },
      { arbitrary: fc.constantFrom('nope', 'LIST_BRANDS', '', ...PROTOTYPE_KEYS), weight: 1 },
    ),
  })
  .chain(({ name }) => {
    const tool = TOOLS.find((candidate) => candidate.name === name);
    const own = tool ? Object.keys(tool.input.shape) : [];
    const fields = own.length > 0 ? own : ['brandId'];
    const key = fc.oneof(
      { arbitrary: fc.constantFrom(...fields), weight: 6 },
      { arbitrary: keyArb(fields), weight: 1 },
    );
    const entry = key.chain((field) =>
      fc.tuple(
        fc.constant(field),
        fc.oneof(
          { arbitrary: plausibleValue(field), weight: 1 },
          { arbitrary: fieldValue(fields), weight: 1 },
        ),
      ),
    );
    return fc
      .array(entry, { maxLength: 5 })
      .map((entries) => ({ name, arguments: objectFrom(entries) as Record<string, unknown> }));
  });

/** Lines no client should send: the server must ignore or answer them, and write nothing else. */
function malformedLines(): Array<string | Uint8Array> {
  const deep = 100_000;
  return [
    '',
    '   ',
    'garbage',
    '{',
    '[]',
    '{}',
    'null',
    '"a string"',
    '42',
    '\ufeff{"jsonrpc":"2.0","id":9001,"method":"ping"}',
    '{"jsonrpc":"1.0","id":9002,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":null,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
    '{"jsonrpc":"2.0","id":"__proto__","method":"ping"}',
    '{"__proto__":{"jsonrpc":"2.0","id":9003,"method":"ping"}}',
    '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"create_post","arguments":{}}}',
    '{"jsonrpc":"2.0","id":9004,"method":"no/such/method"}',
    '{"jsonrpc":"2.0","id":9005,"method":"tools/call"}',
    '{"jsonrpc":"2.0","id":9006,"method":"tools/call","params":{"name":42}}',
    '{"jsonrpc":"2.0","id":9007,"method":"tools/call","params":{"name":"list_brands","arguments":[]}}',
    '{"jsonrpc":"2.0","id":9008,"method":"tools/call","params":{"name":"list_brands","arguments":"{}"}}',
    '[{"jsonrpc":"2.0","id":9009,"method":"ping"},{"jsonrpc":"2.0","id":9010,"method":"ping"}]',
    '{"jsonrpc":"2.0","id":9011,"result":{}}',
    '{"jsonrpc":"2.0","id":9012,"error":{"code":1,"message":"x"}}',
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}',
    '{"jsonrpc":"2.0","id":9013,"method":"ping"}\r',
    '{"jsonrpc":"2.0","id":9014,"method":"ping","params":{"_meta":{"progressToken":{"a":[]}}}}',
    `{"jsonrpc":"2.0","id":9015,"method":"tools/call","params":{"name":"create_post","arguments":{"brandId":1,"collectionId":1,"publishMode":"DRAFT","caption":${'['.repeat(deep)}1${']'.repeat(deep)}}}}`,
    `${'['.repeat(deep)}${']'.repeat(deep)}`,
    `{"jsonrpc":"2.0","id":9016,"method":"tools/call","params":{"name":"upload_media","arguments":{"brandId":1,"base64":"${PNG_BASE64}","filename":"p.png"}}}`,
    `{"garbage":"${'x'.repeat(1024 * 1024)}"}`,
    Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0xc3, 0x28, 0xa0, 0xa1, 0xed, 0xa0, 0x80]),
    Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":9017,"method":"ping","x":"'),
      Buffer.from([0xc3]),
      Buffer.from('"}'),
    ]),
  ];
}

/** What a JSON-RPC 2.0 message on stdout may be: a response, a request or a notification. */
function jsonRpcProblem(line: string): string | undefined {
  let message: JsonRpcMessage;
  try {
    message = JSON.parse(line) as JsonRpcMessage;
  } catch {
    return 'not JSON';
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'not an object';
  if (message.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  const hasId = 'id' in message;
  if (typeof message.method === 'string') {
    if (hasId && typeof message.id !== 'string' && typeof message.id !== 'number') return 'bad request id';
    return undefined;
  }
  if (!hasId) return 'neither a request, a notification nor a response';
  if (message.id !== null && typeof message.id !== 'string' && typeof message.id !== 'number')
    return 'bad id';
  const hasResult = 'result' in message;
  const hasError = 'error' in message;
  if (hasResult === hasError) return 'a response needs exactly one of result and error';
  if (hasError && (typeof message.error?.code !== 'number' || typeof message.error?.message !== 'string')) {
    return 'an error needs a numeric code and a message';
  }
  return undefined;
}

it('writes nothing but JSON-RPC to stdout, whatever it is sent, and keeps serving', async () => {
  const server = new StdioProcess(tempDir('spm-stdout-fuzz-'));
  const replay = `(seed ${SEED}; replay with FUZZ_SEED=${SEED})`;
  const init = await server.initialize();
  expect(init.result, `initialize ${replay}`).toBeDefined();

  // Random calls with malformed lines between them, all written without waiting.
  const calls = fc.sample(toolCall, { seed: SEED, numRuns: CALLS });
  const junk = malformedLines();
  const answers = new Map<string, JsonRpcMessage[]>();
  const sent = new Map<string, { name: string; arguments: Record<string, unknown> }>();
  calls.forEach((call, index) => {
    const id = server.requestNoWait('tools/call', call, (message) => {
      answers.set(id, [...(answers.get(id) ?? []), message]);
    });
    sent.set(id, call);
    if (index % 7 === 0) server.writeLine(junk[(index / 7) % junk.length]!);
  });
  for (const line of junk) server.writeLine(line);

  // The last word: the server still answers, with the demo workspace.
  const final = await server.callTool('list_brands', {}, 60_000);
  expect(final.error, `final list_brands ${replay}`).toBeUndefined();
  const brands = (final.result as { structuredContent: { data: Array<{ title: string }> } })
    .structuredContent;
  expect(brands.data.map((brand) => brand.title)).toEqual(['Northwind Coffee', 'Kite & Key Studio']);
  // Calls are not answered in the order they arrive (a tool's module loads on its first call, so a
  // later call to a loaded tool may overtake it): wait for every call's answer, then a little longer
  // for any second answer, which must not come.
  const deadline = Date.now() + 30_000;
  while ([...sent.keys()].some((id) => !answers.has(id)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(server.alive, `the server died ${replay}; stderr: ${server.stderr().slice(-2000)}`).toBe(true);

  // Every well-formed call got exactly one answer: a tool result, or a JSON-RPC error for an unknown tool.
  for (const [id, call] of sent) {
    const got = answers.get(id) ?? [];
    const what = `${call.name} ${JSON.stringify(call.arguments).slice(0, 300)} ${replay}`;
    expect(got.length, `answers to ${what}`).toBe(1);
    const answer = got[0]!;
    if (TOOL_NAMES.includes(call.name)) {
      expect(answer.error, what).toBeUndefined();
      const result = answer.result as { content?: unknown; structuredContent?: { status?: unknown } };
      expect(Array.isArray(result.content), what).toBe(true);
      expect(['success', 'error'], what).toContain(result.structuredContent?.status);
    } else {
      expect(answer.error?.code, what).toBe(-32602);
    }
  }

  // Closing stdin ends the session: the process exits by itself, cleanly.
  server.child.stdin!.end();
  const exit = await Promise.race([
    server.exited,
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000)),
  ]);
  expect(exit, `exit after stdin closed ${replay}; stderr: ${server.stderr().slice(-1500)}`).toEqual({
    code: 0,
    signal: null,
  });

  // Every byte on stdout: valid UTF-8, complete lines, each a JSON-RPC 2.0 message.
  const stdout = server.stdout();
  expect(stdout.at(-1), 'stdout ends with a newline').toBe(0x0a);
  const text = new TextDecoder('utf-8', { fatal: true }).decode(stdout);
  const problems = text
    .slice(0, -1)
    .split('\n')
    .map((line, index) => ({ index, problem: jsonRpcProblem(line), line: line.slice(0, 200) }))
    .filter((entry) => entry.problem !== undefined);
  expect(problems, `stdout lines that are not JSON-RPC ${replay}`).toEqual([]);
}, 120_000);
