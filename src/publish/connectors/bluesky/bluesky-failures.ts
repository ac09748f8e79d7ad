/**
 * How the Bluesky connector's failures become the kinds the engine acts on. @atproto/api throws XRPC
 * errors; each is mapped onto what the shared classification (connectors/http.ts) reads: an error with
 * an HTTP status is the PDS's answer (its `error` name is the platform's quirk: RateLimitExceeded at any
 * status waits, an account's takedown or a rejected session needs a reconnect), status 1 (no answer) or
 * 2 (an unreadable one) is a request that got no answer, sent or not. The rest (the session's verdict,
 * content refused before sending, unreadable media, the unforeseen) is decided here.
 */

import { isServiceError, ValidationError } from '../../../domain/errors.js';
import type { FailedOutcome, FailureKind } from '../../../ports.js';
import { errorCode, type PlatformAnswer, PlatformUnreachable } from '../../platform-http.js';
import { classifyHttpFailure, type PlatformHooks } from '../http.js';
import { Refused } from './bluesky-post.js';
import {
  ACCOUNT_ERRORS,
  HTTP_STATUS_HEADER,
  isXrpcFailure,
  NeedsReconnect,
  type XrpcFailure,
} from './bluesky-session.js';

/** A media file of the post could not be read. */
export class MediaUnreadable extends Error {}
/** The create request itself failed: the record may exist although we could not see it. */
export class CreateFailed extends Error {}

const CONNECT = 'social-publisher-mcp connect bluesky';
/** Connection errors that happen before any byte of the request is written. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

const reconnectReason = (message: string, account: string, advice?: string) =>
  `${message}: ${advice ? `${advice}, and ` : ''}reconnect with \`${CONNECT}\` for ${account}.`;

const BLUESKY_HOOKS: PlatformHooks = {
  name: 'Bluesky',
  // The XRPC error's message, already without secrets (BlueskyFailureContext.hide).
  said: (answer) => answer.text,
  quirk: (answer) => {
    const { error } = (answer.json ?? {}) as { error?: string };
    if (error === 'RateLimitExceeded') return { kind: 'rate_limited' };
    if (answer.status === 429) return undefined;
    const rejected = error === 'ExpiredToken' || error === 'InvalidToken';
    return ACCOUNT_ERRORS.has(error ?? '') || rejected ? { kind: 'reconnect' } : undefined;
  },
  wording: {
    reconnect: (call, said) => reconnectReason(`Bluesky refused ${call.account} (${said})`, call.account),
    unreachable: (call, message) => `Bluesky (${call.address}) could not be reached (${message}).`,
    unansweredRepeatable: (call, message) => `Bluesky (${call.address}) could not be reached (${message}).`,
    unanswered: (call, message) =>
      `Bluesky did not answer the ${call.what} (${message}): it may have been published.`,
  },
};

export interface BlueskyFailureContext {
  /** `post`, `reply`, `image upload`. */
  what: string;
  account: string;
  endpoint: string;
  timeoutMs: number;
  nowMs: number;
  /** Removes the app password and any token from a text. */
  hide(text: string): string;
  log(message: string): void;
}

/** What an XRPC error is in the shared classification's terms: the PDS's answer, or none. */
function httpFailureOf(
  error: XrpcFailure,
  context: BlueskyFailureContext,
): PlatformAnswer | PlatformUnreachable {
  const said = context.hide(error.message);
  if (error.status >= 100) {
    const json = { error: error.error, message: said };
    const status = Number(error.headers?.[HTTP_STATUS_HEADER]) || error.status;
    return { status, headers: error.headers ?? {}, text: said, json };
  }
  // 1: no answer came; 2: an answer that could not be read.
  const late = timedOut(error);
  const code = errorCode(error);
  const unsent = !late && error.status === 1 && code !== undefined && NOT_SENT.has(code);
  const detail = late ? `no answer within ${context.timeoutMs} ms` : (code ?? said);
  return new PlatformUnreachable(detail, !unsent, late);
}

/** Every way a step can fail, turned into the kinds the engine acts on. */
export function classifyBlueskyFailure(thrown: unknown, context: BlueskyFailureContext): FailedOutcome {
  const created = thrown instanceof CreateFailed;
  const error = created ? thrown.cause : thrown;
  const { account, what } = context;
  const fail = (kind: FailureKind, reason: string): FailedOutcome => ({ ok: false, kind, reason });
  if (error instanceof NeedsReconnect) {
    return fail('reconnect', reconnectReason(error.message, account, error.advice));
  }
  if (error instanceof Refused) return fail('refused', error.message);
  if (error instanceof MediaUnreadable) {
    const { cause } = error;
    const detail =
      cause instanceof ValidationError
        ? Object.values(cause.errors).flat().join(' ')
        : context.hide(cause instanceof Error ? cause.message : String(cause));
    // A refused URL or a missing file stays so; a download that failed may work next time.
    const kind = isServiceError(cause) ? 'refused' : 'transient';
    return fail(kind, `A media file of the post could not be read: ${detail}`);
  }
  if (!isXrpcFailure(error)) {
    const message = context.hide(error instanceof Error ? error.message : String(error));
    context.log(`Bluesky ${what} for ${account} failed unexpectedly: ${message}`);
    return fail(created ? 'unknown' : 'transient', `The Bluesky ${what} failed unexpectedly: ${message}`);
  }
  return classifyHttpFailure(httpFailureOf(error, context), BLUESKY_HOOKS, {
    what,
    address: context.endpoint,
    account,
    nowMs: context.nowMs,
    secrets: [],
    // Only a create may have been carried out without an answer.
    repeatable: !created,
  });
}

function timedOut(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause.name === 'TimeoutError') return true;
  }
  return false;
}
