/**
 * Questions to the user on MCP 2026-07-28, where a server cannot send requests of its own: the call
 * answers `input_required` (a form to confirm, or an address to open), the client asks the user and calls
 * again with the answer. The second call runs the tool again from the start; it is given the answer when
 * it reaches the same question (the question's digest travels in the signed `requestState`), so a tool
 * asks before it changes anything and needs no state of its own. What a tool must not do twice (start a
 * sign-in) it carries in the state instead. 2025-11-25 clients are asked through elicitation (confirm.ts).
 */
import { createHash } from 'node:crypto';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  createRequestStateCodec,
  type InputRequest,
  inputRequired,
  inputResponse,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { CONFIRM_SCHEMA } from './confirm.js';
import type { ToolContext } from './tool.js';

/** What travels between the two calls, signed: which call, which question, and what the tool carries. */
interface RoundState {
  /** Digest of the tool's name and arguments: an answer is for the call that was asked. */
  call: string;
  /** `confirm` or `signIn`. */
  key: string;
  /** Digest of the question put: an answer is for that question. */
  question: string;
  carry?: Record<string, unknown>;
}

/** Thrown where a tool asks: the call then answers input_required (never seen by the tool). */
export class UserInputNeeded extends Error {
  constructor(
    readonly key: string,
    readonly request: InputRequest,
    readonly question: string,
    readonly carry?: Record<string, unknown>,
  ) {
    super('The user must answer first.');
    this.name = 'UserInputNeeded';
  }
}

const digest = (...parts: unknown[]) =>
  createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);

/** How long the client may take to come back with the answer: a person reads and decides. */
const ANSWER_TTL_SECONDS = 10 * 60;

export type RoundCodec = ReturnType<typeof roundCodec>;

/** The signed state, bound to the acting user: another user's state does not verify. */
export function roundCodec(key: Uint8Array, principal: string) {
  return createRequestStateCodec<RoundState>({
    key,
    ttlSeconds: ANSWER_TTL_SECONDS,
    bind: (ctx) => `${ctx.mcpReq.method}\0${principal}`,
  });
}

/** The client's capabilities as this request states them (2026-07-28 sends them with every request). */
export function envelopeCapabilities(ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
}

/** The parts of a tool's context that ask the user, for one 2026-07-28 call. */
export function inputRequiredContext(
  ctx: ServerContext,
  call: { name: string; args: unknown },
): Pick<ToolContext, 'canConfirm' | 'confirm' | 'canOpenUrl' | 'openUrl' | 'carried'> {
  const elicitation = envelopeCapabilities(ctx)?.elicitation as { form?: unknown; url?: unknown } | undefined;
  const callDigest = digest(call.name, call.args);
  const state = ctx.mcpReq.requestState<RoundState>();
  const round = state?.call === callDigest ? state : undefined;
  /** The user's answer to `question` under `key`, when this call carries it. */
  const answerTo = (key: string, question: string) =>
    round?.key === key && round.question === question
      ? inputResponse(ctx.mcpReq.inputResponses, key)
      : undefined;
  return {
    // An empty `elicitation: {}` is form mode (the 2025 meaning, kept by 2026-07-28).
    canConfirm:
      elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined),
    canOpenUrl: elicitation?.url !== undefined,
    carried: round?.carry,
    async confirm(message) {
      const question = digest(message);
      const answer = answerTo('confirm', question);
      if (answer?.kind === 'elicit') return answer.action === 'accept' && answer.content?.confirm === true;
      throw new UserInputNeeded(
        'confirm',
        inputRequired.elicit({ mode: 'form', message, requestedSchema: CONFIRM_SCHEMA }),
        question,
      );
    },
    async openUrl(message, url, carry) {
      const question = digest(message, url);
      const answer = answerTo('signIn', question);
      if (answer?.kind === 'elicit') {
        return { accepted: answer.action === 'accept', completed: () => Promise.resolve() };
      }
      throw new UserInputNeeded('signIn', inputRequired.elicitUrl({ message, url }), question, carry);
    },
  };
}

/** The call's answer when a tool asked: the question, and the state to come back with. */
export async function askingResult(
  needed: UserInputNeeded,
  ctx: ServerContext,
  call: { name: string; args: unknown },
  codec: RoundCodec,
): Promise<CallToolResult> {
  const state: RoundState = {
    call: digest(call.name, call.args),
    key: needed.key,
    question: needed.question,
    ...(needed.carry ? { carry: needed.carry } : {}),
  };
  return inputRequired({
    inputRequests: { [needed.key]: needed.request },
    requestState: await codec.mint(state, ctx),
  }) as unknown as CallToolResult;
}
