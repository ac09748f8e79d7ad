/**
 * MCP protocol conformance of the built `serve`'s /mcp (Streamable HTTP), judged by the official suite,
 * @modelcontextprotocol/conformance in server mode, run on Node >= 22 as it requires, once per protocol
 * revision the server speaks: `--requirements 2025-11-25` (initialize handshake, sessions) and
 * `--requirements 2026-07-28` (stateless, per-request _meta), each at its own wire version. Every
 * scenario of each set is classified here (scenarios-<revision>.ts, scenarios-both.ts) and in
 * docs/conformance.md: those that apply to our server must pass; the others need the suite's fixture
 * tools, prompts or resources (`test_simple_text`, ...) or a feature we do not offer, and must fail only
 * for that documented reason, so a new scenario or a changed outcome fails this test. What the suite
 * asks of its fixtures is then checked here on our own prompt and tool: the error codes it does not
 * report, completion, and the input-required round trip.
 *
 * The suite cannot send headers and /mcp wants `Authorization: Bearer <key>`: it talks to serve through
 * a loopback proxy that adds the key and changes nothing else (Host and Origin pass unchanged, so the
 * DNS-rebinding scenario gets serve's own 403).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { cleanup, PROJECT_ROOT, requireBuild, tempDir } from '../mcp/cli-harness.js';
import { node22 } from '../support/node22.js';
import {
  type AuthProxy,
  type Run,
  run,
  type Serve,
  startAuthProxy,
  startServe,
  statelessRequest,
} from './harness.js';
import { EXPECTED_2025 } from './scenarios-2025-11-25.js';
import { EXPECTED_2026 } from './scenarios-2026-07-28.js';
import {
  baselineEntries,
  type Check,
  documentedVerdicts,
  type Expectation,
  judge,
  PASS,
  parseRequirementList,
  type RequirementSet,
  readResults,
  verdictOf,
} from './verdicts.js';

const SUITE = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const DOC = join(PROJECT_ROOT, 'docs', 'conformance.md');
const SUITE_TIMEOUT_MS = 120_000;

const REVISIONS: Record<string, Record<string, Expectation>> = {
  '2025-11-25': EXPECTED_2025,
  '2026-07-28': EXPECTED_2026,
};

interface SuiteRun {
  set: RequirementSet;
  /** Every server scenario the run covers: the scored ones, then those run without scoring. */
  scenarios: string[];
  results: Map<string, Check[]>;
  suite: Run;
}

let serve: Serve;
let proxy: AuthProxy;
let node: string;
const runs = new Map<string, Promise<SuiteRun>>();

/** The suite's run of one requirement set against serve, once per file whichever test asks first. */
function suiteRun(revision: string): Promise<SuiteRun> {
  let started = runs.get(revision);
  if (!started) {
    started = runRequirements(revision);
    runs.set(revision, started);
  }
  return started;
}

async function runRequirements(revision: string): Promise<SuiteRun> {
  const listed = await run(node, [SUITE, 'list', '--server', '--requirements', revision], {
    timeoutMs: SUITE_TIMEOUT_MS,
  });
  expect(listed.code, listed.stderr).toBe(0);
  const set = parseRequirementList(listed.stdout);
  const scenarios = [...set.scored, ...Object.keys(set.notScored)];

  // The suite's own verdict is checked against the same classification: the n/a scenarios are its
  // expected failures (it only weighs the scored ones).
  const expected = REVISIONS[revision]!;
  const out = tempDir(`spm-conformance-${revision}-`);
  const baseline = join(out, 'expected-failures.yml');
  const entries = scenarios.flatMap((name) => baselineEntries(name, expected[name] ?? PASS));
  writeFileSync(baseline, `server:\n${entries.map((entry) => `  - ${entry}\n`).join('')}`);
  mkdirSync(join(out, 'results'));
  const suite = await run(
    node,
    [
      SUITE,
      'server',
      '--url',
      `${proxy.url}/mcp`,
      '--requirements',
      revision,
      '--expected-failures',
      baseline,
      '-o',
      join(out, 'results'),
    ],
    { timeoutMs: SUITE_TIMEOUT_MS },
  );
  return { set, scenarios, results: readResults(join(out, 'results'), suite.stderr), suite };
}

beforeAll(async () => {
  requireBuild();
  node = node22();
  serve = await startServe(tempDir('spm-conformance-'));
  proxy = await startAuthProxy(serve.url, serve.key);
  // Both revisions' runs at once (they share nothing but serve); each describe awaits its own.
  for (const revision of Object.keys(REVISIONS)) suiteRun(revision).catch(() => undefined);
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  // Sessions the suite left open are closed by a graceful stop.
  const code = await serve?.stop();
  await cleanup();
  expect(code).toBe(0);
});

describe.each(Object.keys(REVISIONS))('the MCP conformance suite at %s against serve /mcp', (revision) => {
  const expected = REVISIONS[revision]!;
  let current: SuiteRun;

  beforeAll(async () => {
    current = await suiteRun(revision);
  }, SUITE_TIMEOUT_MS * 2);

  it('classifies every scenario of the set, in this test and in docs/conformance.md', () => {
    const { set, scenarios } = current;
    expect(set.scored.length).toBeGreaterThan(20);
    expect([...scenarios].sort()).toEqual(Object.keys(expected).sort());
    const documented = documentedVerdicts(readFileSync(DOC, 'utf8'), `## Scenarios at ${revision}`);
    expect(documented).toEqual(
      Object.fromEntries(scenarios.map((name) => [name, verdictOf(expected[name]!)])),
    );
  });

  it('passes every applicable scenario; the others fail only for their documented reason', () => {
    const { scenarios, results, suite } = current;
    const verdicts = Object.fromEntries(
      scenarios.map((name) => [name, judge(expected[name] ?? PASS, results.get(name))]),
    );
    const summary = suite.stdout.slice(suite.stdout.indexOf('=== SUMMARY ==='));
    expect(verdicts, summary).toEqual(Object.fromEntries(scenarios.map((name) => [name, 'ok'])));
    // The suite's own verdict against the same baseline: no unexpected failure, no stale entry.
    expect(suite.code, `${summary}\n${suite.stderr}`).toBe(0);
  });
});

describe('what the 2025-11-25 run shows beyond its verdicts', () => {
  let results: Map<string, Check[]>;
  beforeAll(async () => {
    ({ results } = await suiteRun('2025-11-25'));
  }, SUITE_TIMEOUT_MS * 2);

  it('gets 403 from serve itself for a rebinding Host/Origin, and an answer for a loopback one', () => {
    const checks = results.get('dns-rebinding-protection')!;
    const rejected = checks.find((c) => c.id === 'localhost-host-rebinding-rejected')!;
    expect(rejected.details).toMatchObject({
      hostHeader: 'evil.example.com',
      statusCode: 403,
      // serve's own refusal, through the proxy that added a valid key.
      body: { status: 'error', errors: { host: expect.any(String) } },
    });
    const accepted = checks.find((c) => c.id === 'localhost-host-valid-accepted')!;
    expect(accepted.details).toMatchObject({ statusCode: 200 });
  });

  it('answers concurrent POSTs of one session on SSE streams', () => {
    const checks = results.get('server-sse-multiple-streams')!;
    const functional = checks.find((c) => c.id === 'server-sse-streams-functional')!;
    expect(functional.status).toBe('SUCCESS');
    expect(functional.details).toMatchObject({ numSseStreams: 3, functionalSseStreams: 3 });
  });

  it('ends a session on DELETE: the next request with its id gets 404', () => {
    const checks = results.get('server-session-lifecycle')!;
    expect(Object.fromEntries(checks.map((c) => [c.id, c.details]))).toMatchObject({
      'server-session-delete-accepted': { statusCode: 200 },
      'server-session-terminated-returns-404': { statusCode: 404 },
    });
  });
});

describe('what the suite reports without codes: the errors it met, and completion on our own prompt', () => {
  const unknownRequests = [
    ['tools/call', { name: 'test_simple_text', arguments: {} }],
    ['prompts/get', { name: 'test_simple_prompt' }],
    ['resources/read', { uri: 'test://static-text' }],
  ] as const;

  it('at 2025-11-25: -32602 for an unknown tool, prompt or resource; draft_post completes', async () => {
    const client = new Client({ name: 'conformance-errors', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${serve.key}` } },
      }),
    );
    try {
      for (const [method, params] of unknownRequests) {
        const refused = client.request({ method, params }, z.object({}).passthrough());
        await expect(refused, method).rejects.toMatchObject({ code: -32602 });
      }
      expect(client.getServerCapabilities()?.completions).toBeDefined();
      const result = await client.complete({
        ref: { type: 'ref/prompt', name: 'draft_post' },
        argument: { name: 'brandId', value: 'kite' },
      });
      // The suite's checks (a completion with a values array), and the demo user's brand 2.
      expect(result.completion.values).toEqual(['2']);
    } finally {
      await client.close();
    }
  });

  it('at 2026-07-28: the same, on requests without a session', async () => {
    const url = `${serve.url}/mcp`;
    for (const [method, params] of unknownRequests) {
      const answer = await statelessRequest(url, serve.key, method, params);
      expect(answer.error?.code, method).toBe(-32602);
    }
    const resource = await statelessRequest(url, serve.key, 'resources/read', { uri: 'test://static-text' });
    // SEP-2164: the URI in the error's data.
    expect(resource.error?.data).toEqual({ uri: 'test://static-text' });
    const completion = await statelessRequest(url, serve.key, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'draft_post' },
      argument: { name: 'brandId', value: 'kite' },
    });
    expect(completion.result).toMatchObject({ completion: { values: ['2'] } });
  });
});

describe("what the suite's input-required scenarios check (fixture tools), on our own delete_post", () => {
  const url = () => `${serve.url}/mcp`;
  const FORM = { elicitation: { form: {} } };
  const ACCEPT = { confirm: { action: 'accept', content: { confirm: true } } };
  const draft = async () => {
    const created = await statelessRequest(url(), serve.key, 'tools/call', {
      name: 'create_post',
      arguments: { brandId: 1, collectionId: 1, publishMode: 'DRAFT', caption: 'Asked first' },
    });
    return (created.result!.structuredContent as { data: { id: number } }).data.id;
  };
  const deleting = (postId: number, more: Record<string, unknown>, capabilities: Record<string, unknown>) =>
    statelessRequest(
      url(),
      serve.key,
      'tools/call',
      { name: 'delete_post', arguments: { brandId: 1, postId }, ...more },
      capabilities,
    );

  it('asks a client with form elicitation, re-asks on a missing or malformed answer, refuses a tampered state', async () => {
    const postId = await draft();
    const asked = await deleting(postId, {}, FORM);
    // basic-elicitation, result-type, request-state
    expect(asked.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { confirm: { method: 'elicitation/create', params: { mode: 'form' } } },
      requestState: expect.any(String),
    });
    const requestState = asked.result!.requestState as string;
    // missing-input-response, validate-input: asked again, never done on a wrong answer.
    for (const inputResponses of [{}, { other: ACCEPT.confirm }, { confirm: 12345 }]) {
      const again = await deleting(postId, { requestState, inputResponses }, FORM);
      expect(again.result?.resultType, JSON.stringify(inputResponses)).toBe('input_required');
    }
    // tampered-state
    const flipped = `${requestState.slice(0, 10)}${requestState[10] === 'A' ? 'B' : 'A'}${requestState.slice(11)}`;
    const tampered = await deleting(postId, { requestState: flipped, inputResponses: ACCEPT }, FORM);
    expect(tampered.error?.code).toBe(-32602);
    // ignore-extra-params: the answer with a key nobody asked for is the answer.
    const done = await deleting(
      postId,
      { requestState, inputResponses: { ...ACCEPT, extra: { x: 1 } } },
      FORM,
    );
    expect(done.result).toMatchObject({ resultType: 'complete', structuredContent: { status: 'success' } });
    const gone = await statelessRequest(url(), serve.key, 'tools/call', {
      name: 'get_post',
      arguments: { brandId: 1, postId },
    });
    expect(gone.result).toMatchObject({
      isError: true,
      structuredContent: { errors: { post: 'Post not found.' } },
    });
  });

  it('asks nothing of a client that declared no elicitation (capability-check)', async () => {
    const postId = await draft();
    const done = await deleting(postId, {}, {});
    expect(done.result).toMatchObject({ resultType: 'complete', structuredContent: { status: 'success' } });
  });
});
