/**
 * A loopback stand-in for the Telegram Bot API: `/bot<token>/<method>` on 127.0.0.1, parameters in the
 * query string, JSON, form-urlencoded or multipart bodies, answers `{ ok: true, result }` or
 * `{ ok: false, error_code, description, parameters }` with the HTTP status of error_code and the
 * descriptions the real server gives (tdlib/telegram-bot-api Client.cpp and TDLib's own messages: the
 * first letter lowered, "Bad Request: " / "Forbidden: " in front). Texts lose their '\r' as TDLib's
 * clean_input_string drops them (multipart encoding turns every line break into CRLF). It records every
 * message it accepts, so that tests count sends where they happen.
 *
 * Methods: getMe, getChat, getChatMember, sendMessage, sendPhoto, sendVideo, sendDocument,
 * sendMediaGroup, sendPoll, stopPoll. Knobs: the next calls answer 429, 500 or 502, or never answer
 * (before or after the message is recorded); the token can be revoked and the bot's place in each chat
 * changed; `floodControl` applies the FAQ's limits (1 message a second in a chat, 20 a minute in a group).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';

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

export const BOT = {
  id: 7000001,
  is_bot: true,
  first_name: 'Northwind Publisher',
  username: 'northwind_publisher_bot',
};
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
const PHOTO_BYTES = 10 * 1024 * 1024;

class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: Record<string, number>,
  ) {
    super(description);
  }
}

const bad = (description: string) => new ApiError(400, `Bad Request: ${description}`);

interface Upload {
  name: string;
  type: string;
  bytes: Buffer;
}

interface Call {
  args: Map<string, string>;
  files: Map<string, Upload>;
}

export type TelegramServer = Awaited<ReturnType<typeof startTelegramServer>>;

export async function startTelegramServer(options: TelegramServerOptions = {}) {
  const token = `${BOT.id}:AAHf3kQ9vX2mL8pR4tY6uW1zB5cN7dJ0sEg`;
  const tokens = new Set([token]);
  const now = options.now ?? Date.now;
  const chats = (options.chats ?? [CHANNEL, PRIVATE_SUPERGROUP, GROUP]).map((chat) => structuredClone(chat));
  const messages: RecordedMessage[] = [];
  const calls: { method: string; args: Record<string, string> }[] = [];
  const faults: Fault[] = [];
  const lastIds = new Map<number, number>();
  const sentAt = new Map<number, number[]>();
  let groupIds = 0;

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

  const chatObject = (chat: StandInChat) => ({
    id: chat.id,
    type: chat.type,
    title: chat.title,
    ...(chat.username ? { username: chat.username } : {}),
  });

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

  const messageObject = (chat: StandInChat, m: RecordedMessage) => ({
    message_id: m.messageId,
    date: Math.floor(now() / 1000),
    chat: chatObject(chat),
    ...(chat.type === 'channel' ? { sender_chat: chatObject(chat) } : { from: BOT }),
    ...(m.text !== undefined ? { text: m.text } : {}),
    ...(m.linkPreviewUrl ? { link_preview_options: { url: m.linkPreviewUrl } } : {}),
    ...(m.caption !== undefined ? { caption: m.caption } : {}),
    ...(m.mediaGroupId ? { media_group_id: m.mediaGroupId } : {}),
    ...(m.replyTo ? { reply_to_message: { message_id: m.replyTo, chat: chatObject(chat), date: 0 } } : {}),
    ...(m.file ? fileObject(m) : {}),
    ...(m.poll ? { poll: pollObject(m) } : {}),
  });

  const replyTo = (call: Call, chat: StandInChat): number | undefined => {
    const raw = call.args.get('reply_parameters');
    if (!raw) return undefined;
    const parameters = parseJson(raw, "can't parse reply parameters JSON object") as {
      message_id?: number;
      allow_sending_without_reply?: boolean;
    };
    if (typeof parameters !== 'object' || parameters === null)
      throw bad('object expected as reply parameters');
    const id = parameters.message_id;
    if (id === undefined) return undefined;
    const found = messages.some((m) => m.chatId === chat.id && m.messageId === id);
    if (found) return id;
    if (parameters.allow_sending_without_reply) return undefined;
    throw bad('message to be replied not found');
  };

  const captionOf = (call: Call): string | undefined => {
    const caption = call.args.get('caption');
    if (caption !== undefined && length(caption) > 1024) throw bad('message caption is too long');
    return caption || undefined;
  };

  const fileOf = (
    call: Call,
    value: string | undefined,
    field: string,
  ): RecordedFile & { bytes?: Buffer } => {
    let upload = call.files.get(field);
    if (value?.startsWith('attach://')) upload = call.files.get(value.slice('attach://'.length));
    else if (value && /^https?:\/\//i.test(value))
      return { name: value.split('/').pop() ?? 'file', type: '', size: 0, url: value };
    else if (value) throw bad('wrong file identifier/HTTP URL specified');
    if (!upload) throw new ApiError(400, `Bad Request: there is no ${field} in the request`);
    return { name: upload.name, type: upload.type, size: upload.bytes.length, bytes: upload.bytes };
  };

  const checkPhoto = (file: RecordedFile & { bytes?: Buffer }) => {
    if (file.size > PHOTO_BYTES) {
      throw bad(
        `file of size ${file.size} bytes is too big for a photo; the maximum size is ${PHOTO_BYTES} bytes`,
      );
    }
    const size = file.bytes ? pngSize(file.bytes) : undefined;
    if (
      size &&
      (size.width + size.height > 10_000 ||
        Math.max(size.width, size.height) > 20 * Math.min(size.width, size.height))
    ) {
      throw bad('PHOTO_INVALID_DIMENSIONS');
    }
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
    sendmessage: (call) => {
      const text = call.args.get('text') ?? '';
      if (!text.trim()) throw bad('message text is empty');
      const chat = writableChat(call.args.get('chat_id'), 'text messages');
      if (length(text) > 4096) throw bad('message is too long');
      const reply = replyTo(call, chat);
      const preview = call.args.get('link_preview_options');
      const url = preview
        ? (parseJson(preview, "can't parse link preview options JSON object") as { url?: string }).url
        : undefined;
      floodCheck(chat, 1);
      const m = record(chat, {
        method: 'sendMessage',
        kind: 'text',
        text,
        ...(url ? { linkPreviewUrl: url } : {}),
        ...(reply ? { replyTo: reply } : {}),
      });
      return messageObject(chat, m);
    },
    sendphoto: (call) => sendFile(call, 'photo'),
    sendvideo: (call) => sendFile(call, 'video'),
    senddocument: (call) => sendFile(call, 'document'),
    sendmediagroup: (call) => {
      const items = parseJson(call.args.get('media') ?? '', "can't parse media JSON object");
      if (!Array.isArray(items)) throw bad('expected an Array of InputMedia');
      const parsed = items.map((item: { type?: string; media?: string; caption?: string }) => {
        if (!['photo', 'video', 'document', 'audio'].includes(item.type ?? ''))
          throw bad(`can't parse InputMedia: type "${item.type}" is unsupported`);
        if (!item.media) throw bad("can't parse InputMedia: media not found");
        const file = fileOf(call, item.media, item.type!);
        return { kind: item.type as 'photo' | 'video' | 'document', file, caption: item.caption };
      });
      if (parsed.length === 0) throw bad('there are no messages to send');
      if (parsed.length > 10) throw bad('too many messages to send as an album');
      // The documentation asks for 2-10 items (the server sends one as a plain message); the wording is ours.
      if (parsed.length === 1) throw bad('media group must include 2-10 items');
      const kinds = new Set(parsed.map((item) => item.kind));
      if (kinds.size > 1 && kinds.has('document'))
        throw bad("document can't be mixed with other media types");
      const chat = writableChat(
        call.args.get('chat_id'),
        kinds.has('photo') ? 'photos' : `${[...kinds][0]}s`,
      );
      for (const item of parsed) {
        if (item.caption !== undefined && length(item.caption) > 1024)
          throw bad('message caption is too long');
        if (item.kind === 'photo') checkPhoto(item.file);
      }
      const reply = replyTo(call, chat);
      floodCheck(chat, parsed.length);
      const mediaGroupId = String(13_000_000_000 + ++groupIds);
      return parsed.map((item) => {
        const { bytes: _, ...file } = item.file;
        const m = record(chat, {
          method: 'sendMediaGroup',
          kind: item.kind,
          file,
          mediaGroupId,
          ...(item.caption ? { caption: item.caption } : {}),
          ...(reply ? { replyTo: reply } : {}),
        });
        return messageObject(chat, m);
      });
    },
    sendpoll: (call) => {
      const question = call.args.get('question') ?? '';
      const rawOptions = parseJson(call.args.get('options') ?? '', "can't parse options JSON object");
      if (!Array.isArray(rawOptions)) throw bad('expected an Array of String as options');
      const options = rawOptions.map((option: unknown) => {
        if (typeof option === 'string') return option;
        if (
          typeof option === 'object' &&
          option !== null &&
          typeof (option as { text?: unknown }).text === 'string'
        )
          return (option as { text: string }).text;
        throw bad('expected an option to be of type String');
      });
      const type = call.args.get('type') || 'regular';
      if (type !== 'quiz' && type !== 'regular') throw bad('unsupported poll type specified');
      const chat = writableChat(call.args.get('chat_id'), 'polls');
      if (!question.trim()) throw bad('text must be non-empty');
      if (length(question) > 300) throw bad('poll question length must not exceed 300');
      if (options.length === 0) throw bad('poll must have at least one answer option');
      if (options.length > 12) throw bad("poll can't have more than 12 options");
      for (const option of options) {
        if (!option.trim()) throw bad('text must be non-empty');
        if (length(option) > 100) throw bad('poll options length must not exceed 100');
      }
      const correct = correctOptionIds(call);
      if (type === 'quiz') {
        if (correct.length === 0) throw bad('correct quiz option list must be non-empty');
        if (correct.some((id) => id < 0 || id >= options.length)) throw bad('wrong quiz correct_option_id');
      }
      const isAnonymous = call.args.has('is_anonymous') ? toBool(call.args.get('is_anonymous')) : true;
      if (chat.type === 'channel' && !isAnonymous)
        throw bad("non-anonymous polls can't be sent to channel chats");
      const openPeriod = call.args.has('open_period') ? Number(call.args.get('open_period')) : undefined;
      const closeDate = call.args.has('close_date') ? Number(call.args.get('close_date')) : undefined;
      const description = call.args.get('description');
      const explanation = call.args.get('explanation');
      floodCheck(chat, 1);
      const m = record(chat, {
        method: 'sendPoll',
        kind: 'poll',
        poll: {
          question,
          options,
          type,
          isAnonymous,
          correctOptionIds: type === 'quiz' ? correct : [],
          ...(type === 'quiz' && explanation ? { explanation } : {}),
          ...(description ? { description } : {}),
          ...(openPeriod ? { openPeriod: Math.min(Math.max(openPeriod, 0), 2_628_000) } : {}),
          ...(closeDate ? { closeDate } : {}),
          isClosed: false,
        },
      });
      return messageObject(chat, m);
    },
    stoppoll: (call) => {
      const chat = writableChat(call.args.get('chat_id'), 'polls');
      const id = Number(call.args.get('message_id'));
      const m = messages.find((message) => message.chatId === chat.id && message.messageId === id);
      if (!m?.poll) throw bad('message with poll to stop not found');
      if (m.poll.isClosed) throw bad('poll has already been closed');
      m.poll.isClosed = true;
      return pollObject(m);
    },
  };

  const sendFile = (call: Call, field: 'photo' | 'video' | 'document') => {
    const file = fileOf(call, call.args.get(field), field);
    const chat = writableChat(call.args.get('chat_id'), `${field}s`);
    const caption = captionOf(call);
    if (field === 'photo') checkPhoto(file);
    const reply = replyTo(call, chat);
    floodCheck(chat, 1);
    const { bytes: _, ...recorded } = file;
    const m = record(chat, {
      method: `send${field[0]!.toUpperCase()}${field.slice(1)}`,
      kind: field,
      file: recorded,
      ...(caption ? { caption } : {}),
      ...(reply ? { replyTo: reply } : {}),
    });
    return messageObject(chat, m);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let call: Call;
    try {
      call = await readCall(req);
    } catch (error) {
      return answer(res, error instanceof ApiError ? error : bad(String(error)));
    }
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    const path = /^\/bot([^/]*)\/([A-Za-z]+)$/.exec(pathname);
    calls.push({ method: path?.[2] ?? pathname, args: Object.fromEntries(call.args) });
    if (!path) return answer(res, new ApiError(404, 'Not Found'));
    const [, callToken = '', method = ''] = path;
    const fault = faults.shift();
    if (fault?.kind === 'flood') return answer(res, flood(fault.retryAfter));
    if (fault?.kind === 'status' && fault.status === 502) {
      res.writeHead(502, { 'content-type': 'text/html' });
      return res.end(
        '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n',
      );
    }
    if (fault?.kind === 'status') return answer(res, new ApiError(500, 'Internal Server Error'));
    if (fault?.kind === 'hang' && !fault.afterRecording) return;
    let result: unknown;
    try {
      if (!/^\d+:/.test(callToken)) throw new ApiError(401, 'Unauthorized: invalid token specified');
      if (!tokens.has(callToken)) throw new ApiError(401, 'Unauthorized');
      const run = methods[method.toLowerCase()];
      if (!run) throw new ApiError(404, 'Not Found: method not found');
      result = run(call);
    } catch (error) {
      if (fault?.kind === 'hang') return;
      return answer(
        res,
        error instanceof ApiError ? error : new ApiError(500, `Internal Server Error: ${String(error)}`),
      );
    }
    if (fault?.kind === 'hang') return;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, result }));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error) =>
      answer(res, new ApiError(500, `Internal Server Error: ${String(error)}`)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    /** The API root to give the connector (no trailing slash). */
    url: `http://127.0.0.1:${port}`,
    token,
    bot: BOT,
    chats,
    messages,
    /** Every request, authorised or not, in order. */
    calls,
    /** How many requests called `method` (case-insensitive). */
    callsOf: (method: string) => calls.filter((c) => c.method.toLowerCase() === method.toLowerCase()).length,
    chat(ref: string | number): StandInChat {
      const found = chats.find((c) => String(c.id) === String(ref) || `@${c.username}` === ref);
      if (!found) throw new Error(`no chat ${ref}`);
      return found;
    },
    /** The bot's token is revoked (BotFather /revoke): every call answers 401. */
    revokeToken: () => tokens.delete(token),
    /** The next `count` calls fail this way instead of being carried out (or, hanging after recording, as well). */
    failNext(count: number, fault: Fault) {
      for (let i = 0; i < count; i++) faults.push(fault);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(res: ServerResponse, error: ApiError): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (error.parameters?.retry_after) headers['retry-after'] = String(error.parameters.retry_after);
  res.writeHead(error.code, headers);
  res.end(
    JSON.stringify({
      ok: false,
      error_code: error.code,
      description: error.description,
      ...(error.parameters ? { parameters: error.parameters } : {}),
    }),
  );
}

function flood(retryAfter: number): ApiError {
  return new ApiError(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
}

/** Telegram counts code points (TDLib's utf8_length). */
function length(text: string): number {
  return [...text].length;
}

function toBool(value: string | undefined): boolean {
  return ['true', 'yes', '1'].includes((value ?? '').trim().toLowerCase());
}

function parseJson(text: string, error: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw bad(error);
  }
}

function correctOptionIds(call: Call): number[] {
  const ids = call.args.get('correct_option_ids');
  if (ids !== undefined) {
    const value = parseJson(ids, "can't parse correct option identifiers JSON object");
    if (!Array.isArray(value)) throw bad('expected an Array of correct option identifiers');
    return value.map(Number);
  }
  const id = call.args.get('correct_option_id');
  return id === undefined ? [] : [Number(id)];
}

function fileObject(m: RecordedMessage) {
  const file = {
    file_id: `AgAC${m.chatId}_${m.messageId}`,
    file_unique_id: `AQAD${m.messageId}`,
    file_size: m.file!.size,
  };
  if (m.kind === 'photo') return { photo: [{ ...file, width: 90, height: 90 }] };
  if (m.kind === 'video')
    return {
      video: {
        ...file,
        width: 1280,
        height: 720,
        duration: 1,
        mime_type: m.file!.type,
        file_name: m.file!.name,
      },
    };
  return { document: { ...file, mime_type: m.file!.type, file_name: m.file!.name } };
}

function pollObject(m: RecordedMessage) {
  const poll = m.poll!;
  return {
    id: `poll-${m.chatId}-${m.messageId}`,
    question: poll.question,
    options: poll.options.map((text, index) => ({ persistent_id: String(index), text, voter_count: 0 })),
    total_voter_count: 0,
    is_closed: poll.isClosed,
    is_anonymous: poll.isAnonymous,
    type: poll.type,
    allows_multiple_answers: false,
    allows_revoting: poll.type !== 'quiz',
    ...(poll.type === 'quiz'
      ? { correct_option_ids: poll.correctOptionIds, correct_option_id: poll.correctOptionIds[0] }
      : {}),
    ...(poll.explanation ? { explanation: poll.explanation } : {}),
    ...(poll.description ? { description: poll.description } : {}),
    ...(poll.openPeriod ? { open_period: poll.openPeriod } : {}),
    ...(poll.closeDate ? { close_date: poll.closeDate } : {}),
  };
}

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  const signature = '89504e470d0a1a0a';
  if (bytes.length < 24 || bytes.subarray(0, 8).toString('hex') !== signature) return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The call's parameters from the query string and the body, every value as text (as the Bot API reads them). */
async function readCall(req: IncomingMessage): Promise<Call> {
  const args = new Map(new URL(req.url ?? '/', 'http://x').searchParams);
  const files = new Map<string, Upload>();
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) {
    await new Promise<void>((resolve, reject) => {
      const parser = busboy({ headers: req.headers, limits: { fileSize: UPLOAD_BYTES } });
      parser.on('field', (name, value) => args.set(name, value));
      parser.on('file', (name, stream, info) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('limit', () => reject(new ApiError(413, 'Request Entity Too Large')));
        stream.on('end', () =>
          files.set(name, { name: info.filename ?? '', type: info.mimeType, bytes: Buffer.concat(chunks) }),
        );
      });
      parser.on('close', resolve);
      parser.on('error', reject);
      req.pipe(parser);
    });
    return { args: cleaned(args), files };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  if (type.startsWith('application/json') && body) {
    const json = parseJson(body, "can't parse JSON encoded request parameters");
    for (const [name, value] of Object.entries(json as Record<string, unknown>)) {
      args.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
  } else if (type.startsWith('application/x-www-form-urlencoded')) {
    for (const [name, value] of new URLSearchParams(body)) args.set(name, value);
  }
  return { args: cleaned(args), files };
}

/** TDLib drops every '\r' of a text it is given. */
function cleaned(args: Map<string, string>): Map<string, string> {
  return new Map([...args].map(([name, value]) => [name, value.replaceAll('\r', '')]));
}
