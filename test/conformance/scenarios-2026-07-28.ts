/**
 * Every server scenario the conformance suite runs for MCP 2026-07-28 (`--requirements 2026-07-28`: the
 * scored ones, then the extension and pending ones it runs without scoring), with what its checks must
 * show. docs/conformance.md says what each checks and why each n/a one does not apply.
 *
 * Until the SDK v2 change, serve speaks 2025-11-25 only: it answers every request of the 2026-07-28 wire
 * (no initialize, protocol version and client capabilities in each request's _meta) with HTTP 400,
 * JSON-RPC -32000 "Bad Request: no valid session id; send initialize first" and a null id. Each
 * scenario then fails in the way the suite reports that refusal, which BEFORE_V2 lists.
 */
import type { Expectation } from './verdicts.js';

const BEFORE_V2: Expectation = {
  failsWith: new RegExp(
    [
      'no valid session id; send initialize first',
      // The same refusal, as the suite words it where it looked for a code, a status or an id.
      'got -32000',
      'with code -32000',
      'code -32000',
      'got HTTP 400',
      'Statuses: 400, 400, 400',
      'got 400$',
      'Expected error response id \\d+, got null',
      'JSONRPCErrorResponse/id: must be string,integer',
      // What could not run after the refusal.
      'Not testable',
      'Check was not observed',
      'Prerequisite failed',
      'routing-task fixture from Check 2 unavailable',
      'no endpoints returned (ttlMs|cacheScope)',
      'Missing mandatory fields in discover response',
      'No serverInfo in the discover result _meta',
      'did not declare prompts capability in discover result',
      'Did not advertise tools capability',
      'supported versions data layout does not correlate',
      'no notification frames to inspect',
      "first frame method to be 'notifications/subscriptions/acknowledged', got 'undefined'",
      'Expected InputRequiredResult with inputRequests and requestState',
      'JSON-RPC error instead of re-requesting',
      'Error data.uri is undefined',
    ].join('|'),
  ),
};

export const EXPECTED_2026: Record<string, Expectation> = {
  'server-stateless': BEFORE_V2,
  'completion-complete': BEFORE_V2,
  'tools-list': BEFORE_V2,
  'tools-call-simple-text': BEFORE_V2,
  'tools-call-image': BEFORE_V2,
  'tools-call-audio': BEFORE_V2,
  'tools-call-embedded-resource': BEFORE_V2,
  'tools-call-mixed-content': BEFORE_V2,
  'tools-call-error': BEFORE_V2,
  'tools-call-with-progress': BEFORE_V2,
  'server-sse-multiple-streams': BEFORE_V2,
  'resources-list': BEFORE_V2,
  'resources-read-text': BEFORE_V2,
  'resources-read-binary': BEFORE_V2,
  'resources-templates-read': BEFORE_V2,
  'sep-2164-resource-not-found': BEFORE_V2,
  'prompts-list': BEFORE_V2,
  'prompts-get-simple': BEFORE_V2,
  'prompts-get-with-args': BEFORE_V2,
  'prompts-get-embedded-resource': BEFORE_V2,
  'prompts-get-with-image': BEFORE_V2,
  'dns-rebinding-protection': BEFORE_V2,
  caching: BEFORE_V2,
  'input-required-result-basic-elicitation': BEFORE_V2,
  'input-required-result-basic-sampling': BEFORE_V2,
  'input-required-result-basic-list-roots': BEFORE_V2,
  'input-required-result-request-state': BEFORE_V2,
  'input-required-result-multiple-input-requests': BEFORE_V2,
  'input-required-result-multi-round': BEFORE_V2,
  'input-required-result-missing-input-response': BEFORE_V2,
  'input-required-result-non-tool-request': BEFORE_V2,
  'input-required-result-result-type': BEFORE_V2,
  // tools/list and prompts/list must not answer input_required: an error is not one.
  'input-required-result-unsupported-methods': BEFORE_V2,
  'input-required-result-tampered-state': BEFORE_V2,
  'input-required-result-capability-check': BEFORE_V2,
  'input-required-result-ignore-extra-params': BEFORE_V2,
  // Passes on any error answer to malformed inputResponses for the fixture tool (vacuously here).
  'input-required-result-validate-input': { pass: true },
  // Not scored: the tasks extension (SEP-2663), not offered.
  'tasks-lifecycle': BEFORE_V2,
  'tasks-capability-negotiation': BEFORE_V2,
  'tasks-wire-fields': BEFORE_V2,
  'tasks-request-state-removal': BEFORE_V2,
  'tasks-mrtr-input': BEFORE_V2,
  'tasks-request-headers': BEFORE_V2,
  'tasks-dispatch-and-envelope': BEFORE_V2,
  'tasks-status-notifications': { skipped: /^Skipped: .*harness needs a rewrite/ },
  'tasks-required-task-error': BEFORE_V2,
  'tasks-mrtr-composition': BEFORE_V2,
  // Not scored: pending in the suite.
  'json-schema-2020-12': BEFORE_V2,
  'http-header-validation': BEFORE_V2,
  'http-custom-header-server-validation': BEFORE_V2,
};
