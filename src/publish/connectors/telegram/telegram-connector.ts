/**
 * The Telegram connector: a bot posts to one channel or group through the Bot API
 * (`<apiRoot>/bot<token>/<method>`). A post becomes one message (or one album), a comment a reply to it
 * (telegram-messages.ts says what each field of a post becomes).
 *
 * The Bot API cannot deduplicate a send, so the connector is not idempotent: a request that went out and
 * got no answer is `unknown` and never sent again. Telegram can close a poll by itself (`close_date`,
 * up to 2,628,000 s ahead since Bot API 9.6), but the connector does not rely on it: it reports when the
 * poll's period ends (`closePollAtMs`) and closes it then with `stopPoll`, which works on every server.
 *
 * An auto-comment is a reply in the chat itself: in a channel with a linked discussion group it stays a
 * reply in the channel, not a comment in the discussion (bots cannot address that thread before Telegram
 * has forwarded the post there).
 */
import { Agent } from 'undici';
import type { Capabilities } from '../../../domain/capabilities.js';
import { isServiceError, ValidationError } from '../../../domain/errors.js';
import type {
  CommentJob,
  DeliveryJob,
  FailureKind,
  PollCloseJob,
  Publisher,
  PublishOutcome,
} from '../../../ports.js';
import type {
  ConnectionDetails,
  ConnectorContext,
  OpenConnector,
  VerifiedConnection,
} from '../../connector.js';
import { PlatformUnreachable, retryAfterMs } from '../../platform-http.js';
import {
  type BotCall,
  BotRefusal,
  type BotRequest,
  callBot,
  FILE_UPLOAD_BYTES,
  messageRequest,
  messageUrl,
  PHOTO_UPLOAD_BYTES,
  POLL_PERIOD_MS,
  pollRequest,
  replyRequest,
  stopPollRequest,
  telegramChatId,
  UnreadableAnswer,
  uploadRefusal,
} from './telegram-messages.js';

export const TELEGRAM_API_ROOT = 'https://api.telegram.org';

const RECONNECT = 'run `social-publisher-mcp connect telegram …` again';

/** 400 answers that are about the bot's place in the chat, not about the post. */
const RIGHTS_REFUSALS =
  /chat not found|need administrator rights|not enough rights|have no rights|have no write access|CHAT_WRITE_FORBIDDEN|CHAT_ADMIN_REQUIRED|CHAT_RESTRICTED|group chat was deleted/i;

export function capabilitiesOfTelegram(): Capabilities {
  return {
    textLimit: 4096,
    captionLimit: 1024,
    // Telegram counts Unicode code points (TDLib's utf8_length).
    textUnit: 'characters',
    maxMedia: 10,
    mediaTypes: ['image/png', 'image/jpeg', 'video/mp4', 'video/quicktime', 'application/pdf'],
    maxImageBytes: PHOTO_UPLOAD_BYTES,
    maxVideoBytes: FILE_UPLOAD_BYTES,
    requiresMedia: false,
    polls: true,
    pollWithMedia: false,
    // 12 options since Bot API 9.1, each up to 100 characters.
    maxPollOptions: 12,
    maxPollOptionLength: 100,
  };
}

type Failure = Extract<PublishOutcome, { ok: false }>;
type Success = Extract<PublishOutcome, { ok: true }>;

interface FailureContext {
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

/**
 * Every way a call can fail, turned into the kinds the scheduler acts on: the one place that decides,
 * for the publisher and for `verifyTelegram` alike. No reason ever contains the token.
 */
export function classifyTelegramFailure(error: unknown, context: FailureContext): Failure {
  const failure = classify(error, context);
  return { ...failure, reason: failure.reason.replaceAll(context.token, '<token>') };
}

function classify(error: unknown, { what, chat, apiRoot, nowMs, beforeSending }: FailureContext): Failure {
  const fail = (kind: FailureKind, reason: string): Failure => ({ ok: false, kind, reason });
  if (error instanceof BotRefusal) {
    const { description, parameters, status } = error;
    if (status === 401) {
      return fail(
        'reconnect',
        `Telegram refused the bot token (${description}): check the token BotFather gave, or make a new one with /token in @BotFather, then ${RECONNECT}.`,
      );
    }
    if (status === 404) {
      return fail(
        'reconnect',
        `Telegram answered ${description} at ${apiRoot}: the API address or the bot token is wrong; check both, then ${RECONNECT}.`,
      );
    }
    if (status === 429) {
      const seconds = Number(parameters.retry_after);
      const wait = seconds > 0 ? seconds * 1000 : retryAfterMs(error.headers, nowMs);
      return {
        ...fail('rate_limited', `Telegram is rate limiting the bot (${description}).`),
        retryAfterMs: wait ?? null,
      };
    }
    if (status >= 500)
      return fail('transient', `Telegram failed the ${what} (HTTP ${status}: ${description}).`);
    if (parameters.migrate_to_chat_id !== undefined) {
      const id = String(parameters.migrate_to_chat_id);
      return fail(
        'refused',
        `${chat} was upgraded to a supergroup, whose id is ${id} (${description}): ${RECONNECT} with the chat ${id}.`,
      );
    }
    if (status === 403 || (status === 400 && RIGHTS_REFUSALS.test(description))) {
      return fail(
        'reconnect',
        `Telegram refused the ${what} in ${chat} (${description}): add the bot to ${chat} with the right to post (in a channel: as an administrator with the Post messages right), or ${RECONNECT}.`,
      );
    }
    return fail('refused', `Telegram refused the ${what}: ${description}`);
  }
  if (error instanceof PlatformUnreachable) {
    if (!error.sent)
      return fail('transient', `Telegram (${apiRoot}) could not be reached: ${error.message}.`);
    return fail(
      'unknown',
      `Telegram did not answer the ${what} (${error.message}): it may have been posted in ${chat}, so it is not sent again.`,
    );
  }
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

export interface VerifyTelegramOptions {
  /** The Bot API root. Default https://api.telegram.org. */
  apiRoot?: string;
  /** The bot's token from @BotFather. Never put in an error message. */
  token: string;
  /** `@username` of a channel or group, its t.me link, or its numeric id (-100… for channels). */
  chat: string;
  userAgent?: string;
  timeoutMs?: number;
}

interface BotUser {
  id: number;
  username?: string;
}

interface Chat {
  id: number;
  type: string;
  title?: string;
  username?: string;
}

interface ChatMember {
  status: string;
  can_post_messages?: boolean;
  can_send_messages?: boolean;
  is_member?: boolean;
}

/**
 * Checks a bot token and its place in the chat (getMe, getChat, getChatMember): in a channel the bot must
 * be an administrator with the Post messages right, in a group a member allowed to send messages. Rejects
 * with an Error that says what to fix and never contains the token.
 */
export async function verifyTelegram(options: VerifyTelegramOptions): Promise<VerifiedConnection> {
  const apiRoot = (options.apiRoot ?? TELEGRAM_API_ROOT).replace(/\/+$/, '');
  const chatId = telegramChatId(options.chat);
  const call: BotCall = {
    apiRoot,
    token: options.token,
    timeoutMs: options.timeoutMs ?? 15_000,
    userAgent: options.userAgent ?? 'social-publisher-mcp',
  };
  const ask = async <T>(method: string, fields: Record<string, unknown>): Promise<T> => {
    try {
      return (await callBot(call, { method, fields, files: [] })) as T;
    } catch (error) {
      const context = { what: method, chat: options.chat, apiRoot, token: options.token, nowMs: Date.now() };
      throw new Error(classifyTelegramFailure(error, context).reason);
    }
  };
  const bot = await ask<BotUser>('getMe', {});
  const chat = await ask<Chat>('getChat', { chat_id: chatId });
  const member = await ask<ChatMember>('getChatMember', { chat_id: chat.id, user_id: bot.id });
  const name = chat.username ? `@${chat.username}` : (chat.title ?? String(chat.id));
  const botName = bot.username ? `@${bot.username}` : 'the bot';
  const problem = membershipProblem(chat, member, botName, name);
  if (problem) throw new Error(problem);
  return {
    kind: 'telegram',
    account: name,
    accountId: String(chat.id),
    endpoint: apiRoot,
    profileUrl: chat.username ? `https://t.me/${chat.username}` : null,
    settings: { chatId: chat.id, type: chat.type, username: chat.username ?? null },
    capabilities: capabilitiesOfTelegram(),
    secret: options.token,
  };
}

function membershipProblem(chat: Chat, member: ChatMember, bot: string, name: string): string | undefined {
  if (chat.type === 'channel') {
    if (member.status !== 'administrator' && member.status !== 'creator') {
      return `${bot} is not an administrator of the channel ${name}: add the bot to the channel as an administrator with the Post messages right, then connect again.`;
    }
    if (member.status === 'administrator' && member.can_post_messages !== true) {
      return `${bot} is an administrator of ${name} without the Post messages right: give it that right in the channel's administrators, then connect again.`;
    }
    return undefined;
  }
  if (chat.type === 'group' || chat.type === 'supergroup') {
    if (member.status === 'left' || member.status === 'kicked') {
      return `${bot} is not a member of the group ${name}: add the bot to the group, then connect again.`;
    }
    if (
      member.status === 'restricted' &&
      (member.is_member === false || member.can_send_messages === false)
    ) {
      return `${bot} may not send messages in ${name}: lift its restriction in the group's permissions, then connect again.`;
    }
    return undefined;
  }
  return `${name} is a private chat: connect a channel or a group.`;
}

class TelegramPublisher implements Publisher {
  readonly name = 'telegram';
  /** The Bot API has no idempotency key: a send whose outcome is unknown must not be repeated. */
  readonly idempotent = false;
  private readonly call: BotCall;
  private readonly agent: Agent;
  private readonly chatId: number | string;
  /** The chat as its messages' addresses need it; a message's own answer may update the username. */
  private readonly chat: { id: number | string; type?: string; username: string | null };

  constructor(
    private readonly connection: ConnectionDetails & { channelId: number; secret: string },
    private readonly context: ConnectorContext,
  ) {
    this.agent = new Agent({ connect: { timeout: context.timeoutMs } });
    this.call = {
      apiRoot: connection.endpoint.replace(/\/+$/, ''),
      token: connection.secret,
      timeoutMs: context.timeoutMs,
      userAgent: context.userAgent,
      dispatcher: this.agent,
    };
    const { chatId, type, username } = connection.settings;
    this.chatId = typeof chatId === 'number' || typeof chatId === 'string' ? chatId : connection.accountId;
    this.chat = {
      id: this.chatId,
      ...(typeof type === 'string' ? { type } : {}),
      username: typeof username === 'string' ? username : null,
    };
  }

  async deliver(job: DeliveryJob): Promise<PublishOutcome> {
    const { content } = job;
    let beforeSending = true;
    try {
      let request: BotRequest;
      if (content.poll) {
        if (content.media.length > 0) {
          return {
            ok: false,
            kind: 'refused',
            reason: 'Telegram polls carry no media here: send the media in another post.',
          };
        }
        request = pollRequest(this.chatId, content);
      } else {
        const media = [];
        for (const element of content.media) {
          const file = await this.context.loadMedia(job.brandId, element);
          const tooLarge = uploadRefusal(file);
          if (tooLarge) return { ok: false, kind: 'refused', reason: tooLarge };
          media.push(file);
        }
        request = messageRequest(this.chatId, content, media);
      }
      beforeSending = false;
      const sent = await callBot(this.call, request);
      const outcome = this.outcomeOf(Array.isArray(sent) ? sent[0] : sent);
      if (!content.poll) return outcome;
      return { ...outcome, closePollAtMs: this.context.clock.now() + POLL_PERIOD_MS[content.poll.period] };
    } catch (error) {
      return this.failure(error, 'post', beforeSending);
    }
  }

  async comment(job: CommentJob): Promise<PublishOutcome> {
    const messageId = messageIdOf(job.externalId);
    try {
      return this.outcomeOf(await callBot(this.call, replyRequest(this.chatId, messageId, job.comment)));
    } catch (error) {
      return this.failure(error, 'comment', false);
    }
  }

  async closePoll(job: PollCloseJob): Promise<PublishOutcome> {
    const messageId = messageIdOf(job.externalId);
    if (messageId === null) {
      return {
        ok: false,
        kind: 'refused',
        reason: 'Telegram gave the poll no message id: it cannot be closed.',
      };
    }
    try {
      await callBot(this.call, stopPollRequest(this.chatId, messageId));
    } catch (error) {
      const closedAlready =
        error instanceof BotRefusal && /poll has already been closed/i.test(error.description);
      if (!closedAlready) return this.failure(error, 'poll close', false);
    }
    return { ok: true, externalId: job.externalId, url: messageUrl(this.chat, messageId) };
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  /** The message's id and address. Telegram gives id 0 to a video post it holds back until re-encoded. */
  private outcomeOf(sent: unknown): Success {
    const { message_id: id, chat } = (sent ?? {}) as { message_id?: unknown; chat?: { username?: unknown } };
    if (typeof id !== 'number' || !Number.isInteger(id) || id <= 0)
      return { ok: true, externalId: null, url: null };
    const username = typeof chat?.username === 'string' ? chat.username : this.chat.username;
    return { ok: true, externalId: String(id), url: messageUrl({ ...this.chat, username }, id) };
  }

  private failure(error: unknown, what: string, beforeSending: boolean): Failure {
    const failure = classifyTelegramFailure(error, {
      what,
      chat: this.connection.account,
      apiRoot: this.call.apiRoot,
      token: this.connection.secret,
      nowMs: this.context.clock.now(),
      beforeSending,
    });
    if (failure.kind === 'unknown' && !(error instanceof PlatformUnreachable))
      this.context.log(failure.reason);
    return failure;
  }
}

function messageIdOf(externalId: string | null): number | null {
  const id = Number(externalId ?? Number.NaN);
  return Number.isInteger(id) && id > 0 ? id : null;
}

export const openTelegram: OpenConnector = (connection, context) =>
  new TelegramPublisher(connection, context);
