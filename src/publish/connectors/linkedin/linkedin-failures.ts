/**
 * How LinkedIn says no, for the one classification (connectors/http.ts): its error bodies
 * (`{ status, serviceErrorCode, code?, message }`, or a validation error with
 * `errorDetails.inputErrors[].code` such as DUPLICATE_POST), the 403s that only a new sign-in with more
 * permissions cures, and the retired API version (426 NONEXISTENT_VERSION) that only a newer
 * `linkedinVersion` setting cures.
 */
import { type PlatformAnswer, summarise } from '../../platform-http.js';
import type { PlatformHooks } from '../http.js';

interface LinkedInError {
  message?: unknown;
  serviceErrorCode?: unknown;
  code?: unknown;
  errorDetails?: { inputErrors?: { code?: unknown; description?: unknown }[] };
}

/** The codes of a validation error's input errors (`DUPLICATE_POST`). */
function inputCodes(body: LinkedInError): string[] {
  const errors = body.errorDetails?.inputErrors;
  return Array.isArray(errors)
    ? errors.map((error) => error?.code).filter((code): code is string => typeof code === 'string')
    : [];
}

/** What LinkedIn said: its message, with its code (`DUPLICATE_POST`, `ACCESS_DENIED`) or service error code. */
export function linkedinSaid(answer: PlatformAnswer): string {
  const body = (answer.json ?? {}) as LinkedInError;
  const message = typeof body.message === 'string' ? body.message : summarise(answer.text);
  const codes = [
    ...inputCodes(body),
    ...(typeof body.code === 'string' ? [body.code] : []),
    ...(typeof body.serviceErrorCode === 'number' ? [`serviceErrorCode ${body.serviceErrorCode}`] : []),
  ];
  if (!message) return codes.join(', ') || `HTTP ${answer.status}`;
  return codes.length > 0 ? `${message} (${codes.join(', ')})` : message;
}

/** What to grant when LinkedIn refuses for want of a permission: the member's and the pages' scopes. */
export const PERMISSION_ADVICE =
  'run `social-publisher-mcp connect linkedin` again and approve every permission asked (w_member_social; ' +
  'for a page, w_organization_social, which needs the Community Management API on the app, and an ' +
  'ADMINISTRATOR or CONTENT_ADMIN role on the page)';

const PERMISSION_REFUSAL = /ACCESS_DENIED|not enough permissions|permission|forbidden|scope/i;

/** LinkedIn's part of the shared classification. */
export const LINKEDIN_HOOKS: PlatformHooks = {
  name: 'LinkedIn',
  said: linkedinSaid,
  quirk: (answer, said, call) => {
    if (answer.status === 403 && PERMISSION_REFUSAL.test(said)) {
      return {
        kind: 'reconnect',
        reason: `LinkedIn refused the ${call.what} of ${call.account} for want of a permission (${said}): ${PERMISSION_ADVICE}.`,
      };
    }
    if (answer.status === 426 || /NONEXISTENT_VERSION/.test(said)) {
      return {
        kind: 'refused',
        reason: `LinkedIn no longer serves the API version this channel asks for (${said}): set a current linkedinVersion (YYYYMM) in the channel's connection settings, or update social-publisher-mcp.`,
      };
    }
    return undefined;
  },
  wording: {
    reconnect: (call, said) =>
      `LinkedIn refused the sign-in of ${call.account} (${said}): run \`social-publisher-mcp connect linkedin\` again to reconnect the channel.`,
    refused: (call, said) => `LinkedIn refused the ${call.what}: ${said}`,
    unanswered: (call, message) =>
      `LinkedIn (${call.address}) did not answer the ${call.what} request (${message}): it may have been published. It is not sent again, since LinkedIn cannot deduplicate: look at the feed of ${call.account}, and send it again if it is not there.`,
  },
};
