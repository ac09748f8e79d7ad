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
import type {
  CommentJob,
  DeliveryJob,
  FailedOutcome,
  PollCloseJob,
  Publisher,
  PublishOutcome,
} from '../../../ports.js';
import type { ConnectionDetails, ConnectorContext, MediaSource, OpenConnector } from '../../connector.js';
import { PlatformUnreachable } from '../../platform-http.js';
import { classifyTelegramFailure } from './telegram-failures.js';
import {
  type BotCall,
  BotRefusal,
  type BotRequest,
  callBot,
  messageRequest,
  messageUrl,
  POLL_PERIOD_MS,
  pollRequest,
  replyRequest,
  stopPollRequest,
  uploadRefusal,
} from './telegram-messages.js';

export { capabilitiesOfTelegram, TELEGRAM_API_ROOT, verifyTelegram } from './telegram-account.js';
export { classifyTelegramFailure, TELEGRAM_HOOKS } from './telegram-failures.js';

type Success = Extract<PublishOutcome, { ok: true }>;

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
    const media: MediaSource[] = [];
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
        for (const element of content.media) {
          const file = await this.context.loadMedia(job.brandId, element);
          media.push(file);
          const tooLarge = uploadRefusal(file);
          if (tooLarge) return { ok: false, kind: 'refused', reason: tooLarge };
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
    } finally {
      await Promise.all(media.map((file) => file.release()));
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

  private failure(error: unknown, what: string, beforeSending: boolean): FailedOutcome {
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
