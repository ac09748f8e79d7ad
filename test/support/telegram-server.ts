/**
 * A loopback stand-in for the Telegram Bot API on the fake-platform kit: `/bot<token>/<method>`,
 * parameters in the query string, JSON, form-urlencoded or multipart bodies, answers `{ ok: true, result }`
 * or `{ ok: false, error_code, description, parameters }` with the HTTP status of error_code and the
 * descriptions the real server gives (tdlib/telegram-bot-api Client.cpp and TDLib's own messages: the
 * first letter lowered, "Bad Request: " / "Forbidden: " in front). Texts lose their '\r' as TDLib's
 * clean_input_string drops them (multipart encoding turns every line break into CRLF). It records every
 * message it accepts, so that tests count sends where they happen.
 *
 * Methods: getMe, getChat, getChatMember, and the sends of telegram-sends.ts. Knobs: the next calls
 * answer 429, 500 or 502, or never answer (before or after the message is recorded) — the kit's scripted
 * trouble, also reachable as `kit`; the token can be revoked and the bot's place in each chat changed;
 * `floodControl` applies the FAQ's limits (1 message a second in a chat, 20 a minute in a group).
 */
import { STATUS_CODES } from 'node:http';
import { type FakeAnswer, type FakeRequest, startFakePlatform } from './fake-platform/kit.js';
import {
  ApiError,
  BOT,
  bad,
  type Call,
  chatObject,
  flood,
  parseJson,
  sendMethods,
} from './telegram-sends.js';

export { BOT } from './telegram-sends.js';

export type BotMembership =
  | { status: 'administrator'; can_post_messages?: boolean; can_edit_messages?: boolean }
  | { status: 'member' }
  | { status: 'restricted'; is_member?: boolean; can_send_messages?: boolean; can_send_polls?: boolean }
  | { status: 'left' }
  | { status: 'kicked' };

export interface StandInChat {
  id: number;
  type: 'channel' | 'supergroup' | 'group' | 'private';
  title: string;
  username?: string;
  bot: BotMembership;
  /** A group upgraded to this supergroup: sends answer 400 with `migrate_to_chat_id`. */
  migratedTo?: number;
}

export interface RecordedFile {
  name: string;
  type: string;
  size: number;
  /** A URL handed to Telegram to fetch, instead of uploaded bytes. */
  url?: string;
}

export interface RecordedMessage {
  chatId: number;
  messageId: number;
  method: string;
  kind: 'text' | 'photo' | 'video' | 'document' | 'poll';
  text?: string;
  caption?: string;
  file?: RecordedFile;
  linkPreviewUrl?: string;
  replyTo?: number;
  mediaGroupId?: string;
  poll?: {
    question: string;
    options: string[];
    type: 'regular' | 'quiz';
    isAnonymous: boolean;
    correctOptionIds: number[];
    explanation?: string;
    description?: string;
    openPeriod?: number;
    closeDate?: number;
    isClosed: boolean;
  };
}

export type Fault =
  | { kind: 'flood'; retryAfter: number }
  | { kind: 'status'; status: 500 | 502 }
  | { kind: 'hang'; afterRecording: boolean };

export interface TelegramServerOptions {
  chats?: StandInChat[];
  /** Apply the FAQ's limits of sending. Default false. */
  floodControl?: boolean;
  now?: () => number;
}

export const CHANNEL: StandInChat = {
  id: -1001234567890,
  type: 'channel',
  title: 'Northwind News',
  username: 'northwind_news',
  bot: { status: 'administrator', can_post_messages: true, can_edit_messages: true },
};
export const PRIVATE_SUPERGROUP: StandInChat = {
  id: -1009876543210,
  type: 'supergroup',
  title: 'Northwind Team',
  bot: { status: 'member' },
};
export const GROUP: StandInChat = {
  id: -4001234567,
  type: 'group',
  title: 'Roasters',
  bot: { status: 'member' },
};

const UPLOAD_BYTES = 50 * 1024 * 1024;
/** The kit's route of every Bot API call. */
export const BOT_PATH = '/bot:token/:method';

export type TelegramServer = Awaited<ReturnType<typeof startTelegramServer>>;

export async function startTelegramServer(options: TelegramServerOptions = {}) {
  const token = `${BOT.id}:AAHf3kQ9vX2mL8pR4tY6uW1zB5cN7dJ0sEg`;
  const now = options.now ?? Date.now;
  const chats = (options.chats ?? [CHANNEL, PRIVATE_SUPERGROUP, GROUP]).map((chat) => structuredClone(chat));
  const messages: RecordedMessage[] = [];
  const lastIds = new Map<number, number>();
  const sentAt = new Map<number, number[]>();

  const findChat = (ref: string | number): StandInChat | undefined => {
    const text = String(ref).trim();
    const chat = text.startsWith('@')
      ? chats.find((c) => c.username?.toLowerCase() === text.slice(1).toLowerCase())
      : chats.find((c) => String(c.id) === text);
    // A chat without a username is invisible to a bot that is not in it.
    if (chat && !chat.username && (chat.bot.status === 'left' || chat.bot.status === 'kicked'))
      return undefined;
    return chat;
  };

  /** Write access, in the order and words of telegram-bot-api's check_chat_access and TDLib. */
  const writableChat = (ref: string | undefined, sending: string): StandInChat => {
    if (!ref) throw bad('chat_id is empty');
    const chat = findChat(ref);
    if (!chat) throw bad('chat not found');
    if (chat.migratedTo !== undefined) {
      throw new ApiError(400, 'Bad Request: group chat was upgraded to a supergroup chat', {
        migrate_to_chat_id: chat.migratedTo,
      });
    }
    const where = `${chat.type === 'channel' ? 'channel' : chat.type === 'group' ? 'group' : 'supergroup'} chat`;
    if (chat.bot.status === 'kicked') throw new ApiError(403, `Forbidden: bot was kicked from the ${where}`);
    if (chat.bot.status === 'left') throw new ApiError(403, `Forbidden: bot is not a member of the ${where}`);
    if (chat.type === 'channel' && !(chat.bot.status === 'administrator' && chat.bot.can_post_messages)) {
      throw bad('need administrator rights in the channel chat');
    }
    if (chat.bot.status === 'restricted') {
      const allowed = sending === 'polls' ? chat.bot.can_send_polls : chat.bot.can_send_messages;
      if (allowed === false || chat.bot.is_member === false)
        throw bad(`not enough rights to send ${sending} to the chat`);
    }
    return chat;
  };

  const floodCheck = (chat: StandInChat, count: number) => {
    if (!options.floodControl) return;
    const at = now();
    const times = (sentAt.get(chat.id) ?? []).filter((t) => t > at - 60_000);
    const last = times.at(-1);
    if (last !== undefined && at - last < 1000) throw flood(Math.ceil((last + 1000 - at) / 1000));
    const isGroup = chat.type === 'group' || chat.type === 'supergroup';
    if (isGroup && times.length + count > 20) throw flood(Math.ceil((times[0]! + 60_000 - at) / 1000));
    sentAt.set(chat.id, [...times, ...Array<number>(count).fill(at)]);
  };

  const record = (chat: StandInChat, message: Omit<RecordedMessage, 'chatId' | 'messageId'>) => {
    const messageId = (lastIds.get(chat.id) ?? 100) + 1;
    lastIds.set(chat.id, messageId);
    const recorded = { chatId: chat.id, messageId, ...message };
    messages.push(recorded);
    return recorded;
  };

  const methods: Record<string, (call: Call) => unknown> = {
    getme: () => ({
      ...BOT,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    }),
    getchat: (call) => {
      const chat = findChat(call.args.get('chat_id') ?? '');
      if (!chat) throw bad('chat not found');
      return { ...chatObject(chat), accent_color_id: 0, max_reaction_count: 11, accepted_gift_types: {} };
    },
    getchatmember: (call) => {
      const chat = findChat(call.args.get('chat_id') ?? '');
      if (!chat) throw bad('chat not found');
      if (Number(call.args.get('user_id')) !== BOT.id)
        return { status: 'left', user: { id: Number(call.args.get('user_id')) } };
      return { ...chat.bot, user: BOT };
    },
    ...sendMethods({ now, messages, writableChat, floodCheck, record }),
  };

  const run = (request: FakeRequest): FakeAnswer => {
    try {
      const call = callOf(request);
      const method = methods[(request.params.method ?? '').toLowerCase()];
      if (!method) throw new ApiError(404, 'Not Found: method not found');
      return { status: 200, body: { ok: true, result: method(call) } };
    } catch (error) {
      return refusal(
        error instanceof ApiError ? error : new ApiError(500, `Internal Server Error: ${String(error)}`),
      );
    }
  };

  const kit = await startFakePlatform({
    now,
    fileSizeLimit: UPLOAD_BYTES,
    tokenOf: (request) => request.params.token,
    routes: [
      { method: 'POST', path: BOT_PATH, auth: true, handle: run },
      { method: 'GET', path: BOT_PATH, auth: true, handle: run },
    ],
    errors: {
      failure: (status, said) =>
        said === undefined && (status === 502 || status === 504)
          ? { status, headers: { 'content-type': 'text/html' }, body: gatewayPage(status) }
          : refusal(new ApiError(status, said ?? STATUS_CODES[status] ?? `Error ${status}`)),
      rateLimited: ({ retryAfterSeconds, resetAtMs }) =>
        refusal(flood(retryAfterSeconds ?? Math.max(1, Math.ceil((resetAtMs - now()) / 1000)))),
      unauthorized: (_problem, request) =>
        refusal(
          new ApiError(
            401,
            /^\d+:/.test(request.params.token ?? '')
              ? 'Unauthorized'
              : 'Unauthorized: invalid token specified',
          ),
        ),
      notFound: () => refusal(new ApiError(404, 'Not Found')),
    },
  });
  kit.credentials.issue(token);

  return {
    /** The API root to give the connector (no trailing slash). */
    url: kit.url,
    token,
    bot: BOT,
    chats,
    messages,
    /** The kit underneath: its request log and every kind of scripted trouble. */
    kit,
    /** Every request, authorised or not, in order (a view of `kit.log`). */
    get calls(): { method: string; args: Record<string, string> }[] {
      return kit.log.map((request) => ({
        method: request.params.method ?? request.path,
        args: Object.fromEntries(argsOrNone(request)),
      }));
    },
    /** How many requests called `method` (case-insensitive). */
    callsOf: (method: string) =>
      kit.log.filter((request) => request.params.method?.toLowerCase() === method.toLowerCase()).length,
    chat(ref: string | number): StandInChat {
      const found = chats.find((c) => String(c.id) === String(ref) || `@${c.username}` === ref);
      if (!found) throw new Error(`no chat ${ref}`);
      return found;
    },
    /** The bot's token is revoked (BotFather /revoke): every call answers 401. */
    revokeToken: () => kit.revoke(token),
    /** The next `count` calls fail this way, instead of being carried out or (afterRecording) after it. */
    failNext(count: number, fault: Fault) {
      if (fault.kind === 'flood') kit.rateLimitNext({ retryAfterSeconds: fault.retryAfter }, { count });
      else if (fault.kind === 'status') kit.failNext(fault.status, undefined, { count });
      else if (fault.afterRecording) kit.hangAfterCreating({ count });
      else kit.hang('forever', { count });
    },
    close: () => kit.close(),
  };
}

function refusal(error: ApiError): FakeAnswer {
  const retryAfter = error.parameters?.retry_after;
  return {
    status: error.code,
    ...(retryAfter ? { headers: { 'retry-after': String(retryAfter) } } : {}),
    body: {
      ok: false,
      error_code: error.code,
      description: error.description,
      ...(error.parameters ? { parameters: error.parameters } : {}),
    },
  };
}

function gatewayPage(status: number): string {
  const title = `${status} ${status === 502 ? 'Bad Gateway' : 'Gateway Time-out'}`;
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n`;
}

/** The call's parameters from the query string and the body, every value as text, without '\r' (as TDLib). */
function callOf(request: FakeRequest): Call {
  const { body } = request;
  const args = new Map(request.query);
  if (body.files.some((file) => file.truncated)) throw new ApiError(413, 'Request Entity Too Large');
  if (body.type === 'application/json' && body.bytes.length > 0) {
    const json =
      body.json ?? parseJson(body.bytes.toString('utf8'), "can't parse JSON encoded request parameters");
    for (const [name, value] of Object.entries(json as Record<string, unknown>)) {
      args.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
  }
  for (const [name, value] of body.fields) args.set(name, value);
  const files = new Map(body.files.map((file) => [file.field, file]));
  return { args: new Map([...args].map(([name, value]) => [name, value.replaceAll('\r', '')])), files };
}

function argsOrNone(request: FakeRequest): Map<string, string> {
  try {
    return callOf(request).args;
  } catch {
    return new Map();
  }
}
