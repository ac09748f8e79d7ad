/**
 * Every server scenario the conformance suite runs for MCP 2025-11-25 (`--requirements 2025-11-25`: the
 * scored ones and those it runs without scoring), with what its checks must show. docs/conformance.md
 * says why each n/a one does not apply.
 */
import { AT_BOTH_REVISIONS } from './scenarios-both.js';
import { type Expectation, PASS, unknownTool } from './verdicts.js';

const watchedResourceUnknown: Expectation = {
  failsWith:
    /^Failed: Resource test:\/\/watched-resource not found: resources\/list and resources\/templates\/list show what can be subscribed to\.$/,
};

export const EXPECTED_2025: Record<string, Expectation> = {
  ...AT_BOTH_REVISIONS,
  'server-initialize': PASS,
  'logging-set-level': PASS,
  ping: PASS,
  'tools-call-with-logging': unknownTool('test_tool_with_logging'),
  'tools-call-sampling': unknownTool('test_sampling'),
  'tools-call-elicitation': unknownTool('test_elicitation'),
  'elicitation-sep1034-defaults': unknownTool('test_elicitation_sep1034_defaults'),
  'elicitation-sep1330-enums': unknownTool('test_elicitation_sep1330_enums'),
  // Subscribes to the fixture resource test://watched-resource: serve offers subscriptions (to each
  // brand's resources), and answers -32602 for a resource it does not have.
  'resources-subscribe': watchedResourceUnknown,
  'resources-unsubscribe': watchedResourceUnknown,
  // Not scored for 2025-11-25 (added after its release): initialize, DELETE the session, then 404.
  'server-session-lifecycle': PASS,
  // Not scored (pending): calls the fixture tool test_reconnection and looks for resumability (a
  // priming event with an id, a retry field): serve keeps no event store, so streams are not
  // resumable (optional in the spec).
  'server-sse-polling': {
    onlyWarnings: {
      'server-sse-priming-event': /did not send priming event/,
      'server-sse-retry-field': /did not send retry field/,
    },
  },
};
