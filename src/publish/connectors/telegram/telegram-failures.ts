/**
 * How the Telegram connector's failures become the kinds the engine acts on: the Bot API's answers
 * through the shared classification (connectors/http.ts) with Telegram's quirks (`error_code`,
 * `retry_after` in the body, a supergroup's new id, the bot's rights in the chat), and the rest here.
 * No reason ever contains the token.
 */
import { isServiceError, ValidationError } from '../../../domain/errors.js';
import type { FailedOutcome, FailureKind } from '../../../ports.js';
import { hideSecrets, PlatformUnreachable } from '../../platform-http.js';
import { classifyHttpFailure, type PlatformHooks } from '../http.js';
import { BotRefusal, UnreadableAnswer } from './telegram-messages.js';

const RECONNECT = 'run `social-publisher-mcp connect telegram …` again';

/** 400 answers that are about the bot's place in the chat, not about the post. */
const RIGHTS_REFUSALS =
  /chat not found|need administrator rights|not enough rights|have no rights|have no write access|CHAT_WRITE_FORBIDDEN|CHAT_ADMIN_REQUIRED|CHAT_RESTRICTED|group chat was deleted/i;

type Failure = FailedOutcome;

export interface FailureContext {
  /** What was being done: `post`, `comment`, `poll close`, `getChat`… */
  what: string;
  /** The chat as people write it. */
  chat: string;
  apiRoot: string;
  token: string;
  nowMs: number;
  /** True when nothing had been sent yet (reading the post's media). */
  beforeSending?: boolean;
}

/** Telegram's part of the shared classification (connectors/http.ts): its answers' shape and quirks. */
export const TELEGRAM_HOOKS: PlatformHooks = {
  name: 'Telegram',
  mask: '<token>',
  said: (answer) => {
    const { description } = (answer.json ?? {}) as { description?: unknown };
    return typeof description === 'string' ? description : '';
  },
  quirk: (answer, said, call) => {
    const { error_code: code, parameters = {} } = (answer.json ?? {}) as {
      error_code?: unknown;
      parameters?: { retry_after?: unknown; migrate_to_chat_id?: unknown };
    };
    // The Bot API repeats the status as error_code; a self-hosted server behind a proxy may not.
    const status = typeof code === 'number' && code >= 400 ? code : answer.status;
    if (status === 429) {
      const seconds = Number(parameters.retry_after);
      return seconds > 0 ? { status, retryAfterMs: seconds * 1000 } : { status };
    }
    if (status === 401 || status >= 500) return { status };
    if (status === 404) {
      const reason = `Telegram answered ${said} at ${call.address}: the API address or the bot token is wrong; check both, then ${RECONNECT}.`;
      return { status, kind: 'reconnect', reason };
    }
    if (parameters.migrate_to_chat_id !== undefined) {
      const id = String(parameters.migrate_to_chat_id);
      const reason = `${call.account} was upgraded to a supergroup, whose id is ${id} (${said}): ${RECONNECT} with the chat ${id}.`;
      return { status, kind: 'refused', reason };
    }
    if (status === 403 || (status === 400 && RIGHTS_REFUSALS.test(said))) {
      const reason = `Telegram refused the ${call.what} in ${call.account} (${said}): add the bot to ${call.account} with the right to post (in a channel: as an administrator with the Post messages right), or ${RECONNECT}.`;
      return { status, kind: 'reconnect', reason };
    }
    return { status };
  },
  wording: {
    reconnect: (_call, said) =>
      `Telegram refused the bot token (${said}): check the token BotFather gave, or make a new one with /token in @BotFather, then ${RECONNECT}.`,
    rateLimited: (_call, said) => `Telegram is rate limiting the bot (${said}).`,
    unanswered: (call, message) =>
      `Telegram did not answer the ${call.what} (${message}): it may have been posted in ${call.account}, so it is not sent again.`,
  },
};

/**
 * Every way a call can fail, turned into the kinds the engine acts on, for the publisher and for
 * `verifyTelegram` alike: the platform's answers through the shared classification, the rest here. No
 * reason ever contains the token.
 */
export function classifyTelegramFailure(error: unknown, context: FailureContext): Failure {
  const { what, chat, apiRoot, token, nowMs, beforeSending } = context;
  if (error instanceof BotRefusal || error instanceof PlatformUnreachable) {
    const failure = error instanceof BotRefusal ? error.answer : error;
    return classifyHttpFailure(failure, TELEGRAM_HOOKS, {
      what,
      address: apiRoot,
      account: chat,
      nowMs,
      secrets: [token],
    });
  }
  const fail = (kind: FailureKind, reason: string): Failure => ({
    ok: false,
    kind,
    reason: hideSecrets(reason, [token], '<token>'),
  });
  if (error instanceof UnreadableAnswer) {
    return fail(
      'unknown',
      `Telegram's answer to the ${what} could not be read (${error.message || 'empty'}): it may have been posted in ${chat}.`,
    );
  }
  if (isServiceError(error)) {
    const detail =
      error instanceof ValidationError ? Object.values(error.errors).flat().join(' ') : error.message;
    return fail('refused', `A media file of the post could not be read: ${detail}`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return fail(
    beforeSending ? 'transient' : 'unknown',
    `The Telegram ${what} failed unexpectedly: ${message}`,
  );
}
