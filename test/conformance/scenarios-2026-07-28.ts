/**
 * Every server scenario the conformance suite runs for MCP 2026-07-28 (`--requirements 2026-07-28`: the
 * scored ones, then the tasks extension's and the pending ones it runs without scoring), with what its
 * checks must show. docs/conformance.md says what each checks and why each n/a one does not apply.
 *
 * The suite reports a JSON-RPC error by its message alone; the codes of those answers (-32602 for an
 * unknown tool, prompt or resource) are checked in conformance.test.ts.
 */
import { AT_BOTH_REVISIONS } from './scenarios-both.js';
import { type Expectation, PASS, unknownPrompt, unknownTool } from './verdicts.js';

/** The SEP-2322 (input required) fixture tools, called as a JSON-RPC error reports them. */
const inputRequiredTool = (name: string) =>
  unknownTool(`test_input_required_result_${name}`, 'JSON-RPC error: ');

/**
 * The tasks extension (SEP-2663) is not offered: its fixture tools are unknown, its methods are not
 * found (-32601, where a server offering tasks answers -32021 to a client that did not opt in), no
 * task is created for the later checks to look at, and capabilities.extensions names no tasks.
 */
const TASKS_NOT_OFFERED: Expectation = {
  failsWith: new RegExp(
    [
      '^Unknown tool: \\w+\\. Call tools/list for the tools\\.$',
      '^Not testable: no task was created by the preceding step',
      '^capabilities\\.extensions MUST be advertised$',
      '^(tasks/(get|update|cancel) MUST return -32021; got -32601(; )?)+$',
      '^expected -32602; got -32601 ',
      '^routing-task fixture from Check 2 unavailable',
      '^tools/call for failing_job returned error code -32602; spec requires -32021\\.$',
    ].join('|'),
  ),
};

export const EXPECTED_2026: Record<string, Expectation> = {
  ...AT_BOTH_REVISIONS,
  // Passes but for the checks that call the suite's diagnostic tools.
  'server-stateless': {
    passExcept: {
      'sep-2575-server-rejects-undeclared-capability': /diagnostic tool 'test_missing_capability'/,
      'sep-2575-missing-capability-http-400': /diagnostic tool 'test_missing_capability'/,
      'sep-2575-http-server-no-independent-requests-on-stream':
        /diagnostic tool 'test_streaming_elicitation'/,
      'sep-2575-server-no-log-without-loglevel': /diagnostic tool 'test_logging_tool'/,
    },
  },
  'sep-2164-resource-not-found': PASS,
  caching: PASS,
  'input-required-result-basic-elicitation': inputRequiredTool('elicitation'),
  'input-required-result-basic-sampling': inputRequiredTool('sampling'),
  'input-required-result-basic-list-roots': inputRequiredTool('list_roots'),
  'input-required-result-request-state': inputRequiredTool('request_state'),
  'input-required-result-multiple-input-requests': inputRequiredTool('multiple_inputs'),
  // Calls test_input_required_result_multi_round; the suite reports our error as a missing result.
  'input-required-result-multi-round': {
    failsWith: /^Expected InputRequiredResult with inputRequests and requestState$/,
  },
  // Sends test_input_required_result_elicitation wrong inputResponses; a SHOULD, so a warning.
  'input-required-result-missing-input-response': {
    onlyWarnings: { 'sep-2322-missing-response-rerequests': /JSON-RPC error instead of re-requesting/ },
  },
  'input-required-result-non-tool-request': unknownPrompt(
    'test_input_required_result_prompt',
    'JSON-RPC error: ',
  ),
  'input-required-result-result-type': inputRequiredTool('elicitation'),
  'input-required-result-unsupported-methods': PASS,
  // Needs test_input_required_result_tampered_state's first answer to tamper with.
  'input-required-result-tampered-state': {
    failsWith: /^Prerequisite failed: could not get initial InputRequiredResult with requestState$/,
  },
  'input-required-result-capability-check': inputRequiredTool('capabilities'),
  'input-required-result-ignore-extra-params': {
    onlyWarnings: {
      'sep-2322-ignore-unexpected-params': /Unknown tool: test_input_required_result_elicitation\./,
    },
  },
  // Passes on any error answer to malformed inputResponses (here: the fixture tool is unknown).
  'input-required-result-validate-input': PASS,
  // Not scored: the tasks extension.
  'tasks-lifecycle': TASKS_NOT_OFFERED,
  'tasks-capability-negotiation': TASKS_NOT_OFFERED,
  'tasks-wire-fields': TASKS_NOT_OFFERED,
  'tasks-request-state-removal': TASKS_NOT_OFFERED,
  'tasks-mrtr-input': TASKS_NOT_OFFERED,
  'tasks-request-headers': TASKS_NOT_OFFERED,
  'tasks-dispatch-and-envelope': TASKS_NOT_OFFERED,
  'tasks-status-notifications': { skipped: /^Skipped: .*harness needs a rewrite/ },
  'tasks-required-task-error': TASKS_NOT_OFFERED,
  'tasks-mrtr-composition': TASKS_NOT_OFFERED,
  'http-header-validation': PASS,
  'http-custom-header-server-validation': {
    failsWith: /^Not testable: server exposes no tool with x-mcp-header annotations/,
  },
};
