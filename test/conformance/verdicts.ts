/**
 * How a scenario of the MCP conformance suite is judged: what its checks (checks.json) must show for the
 * verdict docs/conformance.md gives it, and how the suite's own listing and output are read.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a scenario's checks must show. */
export type Expectation =
  /** Applies to our server: every check SUCCESS (or INFO, SKIPPED), none FAILURE or WARNING. */
  | { pass: true }
  /** Needs a fixture or a feature we do not offer: fails, and every failure and warning message matches. */
  | { failsWith: RegExp }
  /** Needs a fixture or probes an optional feature we lack: no failure, only these warnings (id → message). */
  | { onlyWarnings: Record<string, RegExp> }
  /** The suite skips it (every check SKIPPED), for a reason matching this. */
  | { skipped: RegExp }
  /**
   * Applies, but some of its checks need a fixture or a feature we do not offer: those checks (by id)
   * fail or warn with a message matching theirs, every other check passes.
   */
  | { passExcept: Record<string, RegExp> };

/** The verdict docs/conformance.md gives an expectation. */
export function verdictOf(expectation: Expectation): 'pass' | 'partial' | 'n/a' {
  if ('pass' in expectation) return 'pass';
  return 'passExcept' in expectation ? 'partial' : 'n/a';
}

/** The suite's expected-failures entries for a scenario: itself, its excepted checks, or none. */
export function baselineEntries(scenario: string, expectation: Expectation): string[] {
  if ('pass' in expectation) return [];
  if ('passExcept' in expectation)
    return Object.keys(expectation.passExcept).map((id) => `${scenario}:${id}`);
  return [scenario];
}

export const PASS = { pass: true } as const;

const literal = (text: string) => text.replace(/[/.]/g, '\\$&');
/**
 * How the suite reports a JSON-RPC error: its message after `prefix`, which the v1 SDK starts with
 * "MCP error <code>: " (once per layer that rethrew it) and the v2 SDK does not. The codes themselves
 * are checked in conformance.test.ts.
 */
const reported = (prefix: string, message: string): Expectation => ({
  failsWith: new RegExp(`^${prefix}(MCP error -32602: )*${message}$`),
});

/** Our answer to a call of a tool we do not have (-32602). */
export const unknownTool = (name: string, prefix = 'Failed: '): Expectation =>
  reported(prefix, `Unknown tool: ${name}\\. Call tools/list for the tools\\.`);

/** The SDK's answer to a prompt we do not have (-32602). */
export const unknownPrompt = (name: string, prefix = 'Failed: '): Expectation =>
  reported(prefix, `Prompt ${name} not found`);

/** The SDK's answer to a resource we do not have (-32602), in the v1 or the v2 SDK's words. */
export const unknownResource = (uri: string): Expectation =>
  reported('Failed: ', `Resource (${literal(uri)} not found|not found: ${literal(uri)})`);

export interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED' | string;
  errorMessage?: string;
  details?: Record<string, unknown>;
}

/** What is wrong with a scenario's checks, or 'ok'. */
export function judge(expectation: Expectation, checks: Check[] | undefined): string {
  if (!checks) return 'no checks.json: the scenario did not run';
  const failures = checks.filter((c) => c.status === 'FAILURE').map((c) => c.errorMessage ?? c.id);
  const warnings = checks.filter((c) => c.status === 'WARNING');
  const successes = checks.filter((c) => c.status === 'SUCCESS').length;
  const seen = JSON.stringify({ failures, warnings: warnings.map((c) => c.id), successes });
  if ('pass' in expectation) {
    return failures.length === 0 && warnings.length === 0 && successes > 0 ? 'ok' : `should pass: ${seen}`;
  }
  if ('failsWith' in expectation) {
    const re = expectation.failsWith;
    const messages = [...failures, ...warnings.map((c) => c.errorMessage ?? c.id)];
    return failures.length > 0 && messages.every((message) => re.test(message))
      ? 'ok'
      : `should fail only with (${re}): ${seen}`;
  }
  if ('passExcept' in expectation) return judgeExcept(expectation.passExcept, checks, seen);
  if ('skipped' in expectation) {
    const skips = checks.filter((c) => c.status === 'SKIPPED');
    return skips.length > 0 &&
      skips.length === checks.length &&
      skips.every((c) => expectation.skipped.test(c.errorMessage ?? ''))
      ? 'ok'
      : `should be skipped (${expectation.skipped}): ${seen}`;
  }
  const allowed = expectation.onlyWarnings;
  return failures.length === 0 &&
    warnings.length > 0 &&
    warnings.every((c) => allowed[c.id]?.test(c.errorMessage ?? ''))
    ? 'ok'
    : `should only warn (${Object.keys(allowed).join(', ')}): ${seen}`;
}

function judgeExcept(excepted: Record<string, RegExp>, checks: Check[], seen: string): string {
  const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const unexcused = bad.filter((c) => !excepted[c.id]?.test(c.errorMessage ?? ''));
  const passing = Object.keys(excepted).filter((id) => !bad.some((c) => c.id === id));
  if (unexcused.length === 0 && passing.length === 0) return 'ok';
  const why = unexcused.map((c) => `${c.id}: ${c.errorMessage ?? c.status}`);
  return `should pass but for ${Object.keys(excepted).join(', ')}: ${JSON.stringify({ why, passing })} ${seen}`;
}

/**
 * checks.json of each scenario in the suite's output dir (server-<scenario>-<timestamp>/). A scenario
 * that threw leaves no checks.json: the suite counts it as one failure, with the error it printed to
 * `stderr` (`Failed to run scenario <name>: <error>`), and so does this.
 */
export function readResults(dir: string, stderr: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(dir)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/.exec(entry)?.[1];
    if (!scenario) continue;
    const file = join(dir, entry, 'checks.json');
    if (existsSync(file)) {
      results.set(scenario, JSON.parse(readFileSync(file, 'utf8')));
      continue;
    }
    const thrown = new RegExp(`^Failed to run scenario ${scenario}: (.*)$`, 'm').exec(stderr)?.[1];
    if (thrown) results.set(scenario, [{ id: scenario, status: 'FAILURE', errorMessage: thrown }]);
  }
  return results;
}

/** The server scenarios of a requirement set, as `conformance list --server --requirements <rev>` prints them. */
export interface RequirementSet {
  /** Scored: conformance to the revision requires them. */
  scored: string[];
  /** Run and reported, never scored, with the suite's reason (extension, pending, added-after-release). */
  notScored: Record<string, string>;
}

export function parseRequirementList(stdout: string): RequirementSet {
  const serverSection = /Server scenarios[^\n]*\n((?: {2}- \S+\n)+)/.exec(stdout)?.[1] ?? '';
  const scored = [...serverSection.matchAll(/^ {2}- (\S+)$/gm)].map((match) => match[1]!);
  const notScored: Record<string, string> = {};
  const tail = stdout.slice(stdout.indexOf('never scored'));
  let reason = '';
  for (const line of tail.split('\n')) {
    const header = /^ {2}(\S+) \(\d+\):$/.exec(line);
    if (header) reason = header[1]!;
    const entry = /^ {4}- (\S+) \[server\]$/.exec(line);
    if (entry) notScored[entry[1]!] = reason;
  }
  return { scored, notScored };
}

/** The verdicts a docs table gives (`| \`scenario\` | pass |`, `partial` or `n/a`) in the section under `heading`. */
export function documentedVerdicts(doc: string, heading: string): Record<string, string> {
  const start = doc.indexOf(`\n${heading}\n`);
  if (start < 0) return {};
  const next = doc.indexOf('\n## ', start + heading.length + 2);
  const section = doc.slice(start, next < 0 ? undefined : next);
  return Object.fromEntries(
    [...section.matchAll(/^\| `([^`]+)` \| (pass|partial|n\/a) \|/gm)].map((match) => [match[1]!, match[2]!]),
  );
}
