/**
 * The sending methods of the Telegram Bot API stand-in (telegram-server.ts): sendMessage, sendPhoto,
 * sendVideo, sendDocument, sendMediaGroup, sendPoll and stopPoll, with the checks and the descriptions
 * of tdlib/telegram-bot-api and TDLib, and the Message and Poll objects they answer with.
 */
import type { RecordedFile, RecordedMessage, StandInChat } from './telegram-server.js';

export const BOT = {
  id: 7000001,
  is_bot: true,
  first_name: 'Northwind Publisher',
  username: 'northwind_publisher_bot',
};

const PHOTO_BYTES = 10 * 1024 * 1024;

/** A refusal as the Bot API words it: `{ ok: false, error_code, description, parameters }`. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: Record<string, number>,
  ) {
    super(description);
  }
}

export const bad = (description: string) => new ApiError(400, `Bad Request: ${description}`);

export function flood(retryAfter: number): ApiError {
  return new ApiError(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
}

export interface Upload {
  name: string;
  type: string;
  bytes: Buffer;
}

/** A method's parameters, every value as text (as the Bot API reads them), and its uploaded files. */
export interface Call {
  args: Map<string, string>;
  files: Map<string, Upload>;
}

/** What the sending methods need of the stand-in's chats and messages. */
export interface Chats {
  now(): number;
  messages: RecordedMessage[];
  /** Write access, or the Bot API's refusal (thrown). */
  writableChat(ref: string | undefined, sending: string): StandInChat;
  /** The FAQ's limits of sending, when they apply (throws a flood). */
  floodCheck(chat: StandInChat, count: number): void;
  record(chat: StandInChat, message: Omit<RecordedMessage, 'chatId' | 'messageId'>): RecordedMessage;
}

export function sendMethods(chats: Chats): Record<string, (call: Call) => unknown> {
  let groupIds = 0;
  const { messages } = chats;
  const messageOf = (chat: StandInChat, m: RecordedMessage) => messageObject(chat, m, chats.now());

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
    if (messages.some((m) => m.chatId === chat.id && m.messageId === id)) return id;
    if (parameters.allow_sending_without_reply) return undefined;
    throw bad('message to be replied not found');
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

  const sendFile = (call: Call, field: 'photo' | 'video' | 'document') => {
    const file = fileOf(call, call.args.get(field), field);
    const chat = chats.writableChat(call.args.get('chat_id'), `${field}s`);
    const caption = call.args.get('caption');
    if (caption !== undefined && length(caption) > 1024) throw bad('message caption is too long');
    if (field === 'photo') checkPhoto(file);
    const reply = replyTo(call, chat);
    chats.floodCheck(chat, 1);
    const { bytes: _, ...recorded } = file;
    const m = chats.record(chat, {
      method: `send${field[0]!.toUpperCase()}${field.slice(1)}`,
      kind: field,
      file: recorded,
      ...(caption ? { caption } : {}),
      ...(reply ? { replyTo: reply } : {}),
    });
    return messageOf(chat, m);
  };

  return {
    sendmessage: (call) => {
      const text = call.args.get('text') ?? '';
      if (!text.trim()) throw bad('message text is empty');
      const chat = chats.writableChat(call.args.get('chat_id'), 'text messages');
      if (length(text) > 4096) throw bad('message is too long');
      const reply = replyTo(call, chat);
      const preview = call.args.get('link_preview_options');
      const url = preview
        ? (parseJson(preview, "can't parse link preview options JSON object") as { url?: string }).url
        : undefined;
      chats.floodCheck(chat, 1);
      const m = chats.record(chat, {
        method: 'sendMessage',
        kind: 'text',
        text,
        ...(url ? { linkPreviewUrl: url } : {}),
        ...(reply ? { replyTo: reply } : {}),
      });
      return messageOf(chat, m);
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
      const sending = kinds.has('photo') ? 'photos' : `${[...kinds][0]}s`;
      const chat = chats.writableChat(call.args.get('chat_id'), sending);
      for (const item of parsed) {
        if (item.caption !== undefined && length(item.caption) > 1024)
          throw bad('message caption is too long');
        if (item.kind === 'photo') checkPhoto(item.file);
      }
      const reply = replyTo(call, chat);
      chats.floodCheck(chat, parsed.length);
      const mediaGroupId = String(13_000_000_000 + ++groupIds);
      return parsed.map((item) => {
        const { bytes: _, ...file } = item.file;
        const m = chats.record(chat, {
          method: 'sendMediaGroup',
          kind: item.kind,
          file,
          mediaGroupId,
          ...(item.caption ? { caption: item.caption } : {}),
          ...(reply ? { replyTo: reply } : {}),
        });
        return messageOf(chat, m);
      });
    },
    sendpoll: (call) => {
      const question = call.args.get('question') ?? '';
      const rawOptions = parseJson(call.args.get('options') ?? '', "can't parse options JSON object");
      if (!Array.isArray(rawOptions)) throw bad('expected an Array of String as options');
      const options = rawOptions.map((option: unknown) => {
        if (typeof option === 'string') return option;
        const text = (option as { text?: unknown } | null)?.text;
        if (typeof option === 'object' && typeof text === 'string') return text;
        throw bad('expected an option to be of type String');
      });
      const type = call.args.get('type') || 'regular';
      if (type !== 'quiz' && type !== 'regular') throw bad('unsupported poll type specified');
      const chat = chats.writableChat(call.args.get('chat_id'), 'polls');
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
      chats.floodCheck(chat, 1);
      const m = chats.record(chat, {
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
      return messageOf(chat, m);
    },
    stoppoll: (call) => {
      const chat = chats.writableChat(call.args.get('chat_id'), 'polls');
      const id = Number(call.args.get('message_id'));
      const m = messages.find((message) => message.chatId === chat.id && message.messageId === id);
      if (!m?.poll) throw bad('message with poll to stop not found');
      if (m.poll.isClosed) throw bad('poll has already been closed');
      m.poll.isClosed = true;
      return pollObject(m);
    },
  };
}

function checkPhoto(file: RecordedFile & { bytes?: Buffer }): void {
  if (file.size > PHOTO_BYTES) {
    throw bad(
      `file of size ${file.size} bytes is too big for a photo; the maximum size is ${PHOTO_BYTES} bytes`,
    );
  }
  const size = file.bytes ? pngSize(file.bytes) : undefined;
  const { width = 0, height = 0 } = size ?? {};
  if (size && (width + height > 10_000 || Math.max(width, height) > 20 * Math.min(width, height))) {
    throw bad('PHOTO_INVALID_DIMENSIONS');
  }
}

export function chatObject(chat: StandInChat) {
  return {
    id: chat.id,
    type: chat.type,
    title: chat.title,
    ...(chat.username ? { username: chat.username } : {}),
  };
}

function messageObject(chat: StandInChat, m: RecordedMessage, nowMs: number) {
  return {
    message_id: m.messageId,
    date: Math.floor(nowMs / 1000),
    chat: chatObject(chat),
    ...(chat.type === 'channel' ? { sender_chat: chatObject(chat) } : { from: BOT }),
    ...(m.text !== undefined ? { text: m.text } : {}),
    ...(m.linkPreviewUrl ? { link_preview_options: { url: m.linkPreviewUrl } } : {}),
    ...(m.caption !== undefined ? { caption: m.caption } : {}),
    ...(m.mediaGroupId ? { media_group_id: m.mediaGroupId } : {}),
    ...(m.replyTo ? { reply_to_message: { message_id: m.replyTo, chat: chatObject(chat), date: 0 } } : {}),
    ...(m.file ? fileObject(m) : {}),
    ...(m.poll ? { poll: pollObject(m) } : {}),
  };
}

function fileObject(m: RecordedMessage) {
  const file = {
    file_id: `AgAC${m.chatId}_${m.messageId}`,
    file_unique_id: `AQAD${m.messageId}`,
    file_size: m.file!.size,
  };
  if (m.kind === 'photo') return { photo: [{ ...file, width: 90, height: 90 }] };
  const described = { ...file, mime_type: m.file!.type, file_name: m.file!.name };
  if (m.kind === 'video') return { video: { ...described, width: 1280, height: 720, duration: 1 } };
  return { document: described };
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

/** Telegram counts code points (TDLib's utf8_length). */
function length(text: string): number {
  return [...text].length;
}

function toBool(value: string | undefined): boolean {
  return ['true', 'yes', '1'].includes((value ?? '').trim().toLowerCase());
}

export function parseJson(text: string, error: string): unknown {
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

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  const signature = '89504e470d0a1a0a';
  if (bytes.length < 24 || bytes.subarray(0, 8).toString('hex') !== signature) return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}
