/**
 * MCP protocol conformance of the built `serve`'s /mcp (Streamable HTTP), judged by the official suite,
 * @modelcontextprotocol/conformance in server mode, run on Node >= 22 as it requires. Every scenario the
 * suite has is classified here and in docs/conformance.md: those that apply to our server must pass;
 * the others need the suite's fixture tools, prompts or resources (`test_simple_text`, ...) and must
 * fail only because that fixture is missing, so a new scenario or a changed outcome fails this test.
 *
 * The suite cannot send headers and /mcp wants `Authorization: Bearer <key>`: it talks to serve through
 * a loopback proxy that adds the key and changes nothing else (Host and Origin pass unchanged, so the
 * DNS-rebinding scenario gets serve's own 403).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, PROJECT_ROOT, requireBuild, tempDir } from '../mcp/cli-harness.js';
import { node22 } from '../support/node22.js';
import { type AuthProxy, type Run, run, type Serve, startAuthProxy, startServe } from './harness.js';

const SUITE = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const DOC = join(PROJECT_ROOT, 'docs', 'conformance.md');
const SUITE_TIMEOUT_MS = 60_000;

/** What a scenario's checks must show. */
type Expectation =
  /** Applies to our server: every check SUCCESS (or INFO), none FAILURE or WARNING. */
  | { pass: true }
  /** Needs a fixture we do not have: fails, and every failure message matches. */
  | { missingFixture: RegExp }
  /** Needs a fixture and probes an optional feature we lack: no failure, only these warnings. */
  | { onlyWarnings: string[] };

const PASS = { pass: true } as const;
/** The JSON-RPC error our server answers for a tool it does not have (the spec's -32602). */
const unknownTool = (name: string) => ({ missingFixture: new RegExp(`MCP error -32602: .*\\b${name}\\b`) });
/** The JSON-RPC error McpServer answers for a prompt or resource it does not have. */
const unknownName = (name: string) => ({
  missingFixture: new RegExp(`MCP error -32602: .*${name.replace(/[/.]/g, '\\$&')} not found`),
});

/** Every server scenario of the suite; docs/conformance.md says why each n/a one does not apply. */
const EXPECTED: Record<string, Expectation> = {
  'server-initialize': PASS,
  'logging-set-level': PASS,
  ping: PASS,
  // Asks completions for the fixture prompt test_prompt_with_arguments; an unknown prompt gets -32602,
  // as the spec says. Completion itself is checked below on our own prompt.
  'completion-complete': unknownName('Prompt test_prompt_with_arguments'),
  'tools-list': PASS,
  'tools-call-simple-text': unknownTool('test_simple_text'),
  'tools-call-image': unknownTool('test_image_content'),
  'tools-call-audio': unknownTool('test_audio_content'),
  'tools-call-embedded-resource': unknownTool('test_embedded_resource'),
  'tools-call-mixed-content': unknownTool('test_multiple_content_types'),
  'tools-call-with-logging': unknownTool('test_tool_with_logging'),
  'tools-call-error': unknownTool('test_error_handling'),
  'tools-call-with-progress': unknownTool('test_tool_with_progress'),
  'tools-call-sampling': unknownTool('test_sampling'),
  'tools-call-elicitation': unknownTool('test_elicitation'),
  'json-schema-2020-12': { missingFixture: /Tool 'json_schema_2020_12_tool' not found/ },
  'elicitation-sep1034-defaults': unknownTool('test_elicitation_sep1034_defaults'),
  // Calls the fixture tool test_reconnection and looks for resumability (a priming event with an id,
  // a retry field): serve keeps no event store, so streams are not resumable (optional in the spec).
  'server-sse-polling': { onlyWarnings: ['server-sse-priming-event', 'server-sse-retry-field'] },
  'server-sse-multiple-streams': PASS,
  'elicitation-sep1330-enums': unknownTool('test_elicitation_sep1330_enums'),
  'resources-list': PASS,
  'resources-read-text': unknownName('Resource test://static-text'),
  'resources-read-binary': unknownName('Resource test://static-binary'),
  'resources-templates-read': unknownName('Resource test://template/123/data'),
  // Subscriptions are optional and not offered (no resources.subscribe capability): -32601.
  'resources-subscribe': { missingFixture: /MCP error -32601: Method not found/ },
  'resources-unsubscribe': { missingFixture: /MCP error -32601: Method not found/ },
  'prompts-list': PASS,
  'prompts-get-simple': unknownName('Prompt test_simple_prompt'),
  'prompts-get-with-args': unknownName('Prompt test_prompt_with_arguments'),
  'prompts-get-embedded-resource': unknownName('Prompt test_prompt_with_embedded_resource'),
  'prompts-get-with-image': unknownName('Prompt test_prompt_with_image'),
  'dns-rebinding-protection': PASS,
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
  details?: Record<string, unknown>;
}

/** What is wrong with a scenario's checks, or 'ok'. */
function judge(expectation: Expectation, checks: Check[] | undefined): string {
  if (!checks) return 'no checks.json: the scenario did not run';
  const failures = checks.filter((c) => c.status === 'FAILURE').map((c) => c.errorMessage ?? c.id);
  const warnings = checks.filter((c) => c.status === 'WARNING').map((c) => c.id);
  const successes = checks.filter((c) => c.status === 'SUCCESS').length;
  const seen = JSON.stringify({ failures, warnings, successes });
  if ('pass' in expectation) {
    return failures.length === 0 && warnings.length === 0 && successes > 0 ? 'ok' : `should pass: ${seen}`;
  }
  if ('missingFixture' in expectation) {
    const re = expectation.missingFixture;
    return failures.length > 0 && failures.every((message) => re.test(message))
      ? 'ok'
      : `should fail only for the missing fixture (${re}): ${seen}`;
  }
  const allowed = expectation.onlyWarnings;
  return failures.length === 0 && warnings.length > 0 && warnings.every((id) => allowed.includes(id))
    ? 'ok'
    : `should only warn (${allowed.join(', ')}): ${seen}`;
}

/** checks.json of each scenario in the suite's output dir (server-<scenario>-<timestamp>/). */
function readResults(dir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(dir)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/.exec(entry)?.[1];
    if (scenario) results.set(scenario, JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')));
  }
  return results;
}

let serve: Serve;
let proxy: AuthProxy;
let node: string;

beforeAll(async () => {
  requireBuild();
  node = node22();
  serve = await startServe(tempDir('spm-conformance-'));
  proxy = await startAuthProxy(serve.url, serve.key);
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  // Sessions the suite left open are closed by a graceful stop.
  const code = await serve?.stop();
  await cleanup();
  expect(code).toBe(0);
});

describe('the MCP conformance suite against serve /mcp', () => {
  let scenarios: string[];
  let results: Map<string, Check[]>;
  let suite: Run;

  beforeAll(async () => {
    const listed = await run(node, [SUITE, 'list', '--server'], { timeoutMs: SUITE_TIMEOUT_MS });
    expect(listed.code, listed.stderr).toBe(0);
    scenarios = [...listed.stdout.matchAll(/^ {2}- (\S+)/gm)].map((match) => match[1]!);

    const out = tempDir('spm-conformance-results-');
    const baseline = join(out, 'expected-failures.yml');
    const expectedFailures = scenarios.filter((name) => !('pass' in (EXPECTED[name] ?? PASS)));
    writeFileSync(baseline, `server:\n${expectedFailures.map((name) => `  - ${name}\n`).join('')}`);
    mkdirSync(join(out, 'results'));
    suite = await run(
      node,
      [
        SUITE,
        'server',
        '--url',
        `${proxy.url}/mcp`,
        '--suite',
        'all',
        '--expected-failures',
        baseline,
        '-o',
        join(out, 'results'),
      ],
      { timeoutMs: SUITE_TIMEOUT_MS },
    );
    results = readResults(join(out, 'results'));
  }, SUITE_TIMEOUT_MS * 2);

  it('classifies every scenario the suite has, in this test and in docs/conformance.md', () => {
    expect(scenarios.length).toBeGreaterThan(20);
    expect([...scenarios].sort()).toEqual(Object.keys(EXPECTED).sort());
    const doc = readFileSync(DOC, 'utf8');
    const documented = Object.fromEntries(
      scenarios.map((name) => [name, new RegExp(`^\\| \`${name}\` \\| (pass|n/a) \\|`, 'm').exec(doc)?.[1]]),
    );
    expect(documented).toEqual(
      Object.fromEntries(scenarios.map((name) => [name, 'pass' in EXPECTED[name]! ? 'pass' : 'n/a'])),
    );
  });

  it('passes every applicable scenario; the others fail only for the missing fixtures', () => {
    const verdicts = Object.fromEntries(
      scenarios.map((name) => [name, judge(EXPECTED[name] ?? PASS, results.get(name))]),
    );
    const summary = suite.stdout.slice(suite.stdout.indexOf('=== SUMMARY ==='));
    expect(verdicts, summary).toEqual(Object.fromEntries(scenarios.map((name) => [name, 'ok'])));
    // The suite's own verdict against the same baseline: no unexpected failure, no stale entry.
    expect(suite.code, `${summary}\n${suite.stderr}`).toBe(0);
  });

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
});

it('completes a prompt argument over /mcp (what completion-complete checks, on our own prompt)', async () => {
  const client = new Client({ name: 'conformance-completion', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${serve.key}` } },
    }),
  );
  try {
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
