/**
 * The Bot API requests a post becomes (core.telegram.org/bots/api), and how one is made (callBot). What
 * Telegram receives for each field of a post reads here, in one place:
 *
 * - text: the caption, then the link on its own line unless the caption has it already. Without media it
 *   is a `sendMessage` (≤ 4096 characters) whose link preview shows the post's link; with media it is the
 *   caption of the photo, video or document, or of the first item of an album (≤ 1024 characters).
 * - media: one image → `sendPhoto`, one video → `sendVideo`, one PDF → `sendDocument`, 2–10 →
 *   `sendMediaGroup` (all items as documents when one is a PDF: Telegram does not mix documents with
 *   photos and videos). The bytes are always uploaded (multipart), URL media too: Telegram fetches a URL
 *   itself only up to 5 MB for photos and 20 MB otherwise, and sendDocument by URL only for PDF, GIF and
 *   ZIP; our own download has already been checked like an upload.
 * - poll: `sendPoll` with the question, the options as InputPollOption objects, anonymous (channels take
 *   no other polls), a quiz when a correct option is set (its explanation with it; a plain poll has no
 *   explanation in Telegram). The text goes in the poll's description (Bot API 9.6; older self-hosted
 *   servers ignore it). The poll is closed by `stopPoll` at the end of its period (telegram-connector.ts).
 * - alt and title: not sent (Telegram photos have no alt text and messages no title).
 */
import { type Dispatcher, FormData } from 'undici';
import type { PlatformContent } from '../../../domain/delivery.js';
import { telegramPollDescription, telegramText } from '../../../domain/platform-rules.js';
import type { MediaSource } from '../../connector.js';
import { callPlatform, type PlatformAnswer, summarise } from '../../platform-http.js';

/** Bot uploads: photos up to 10 MB, any other file up to 50 MB (Bot API, "Sending files"). */
export const PHOTO_UPLOAD_BYTES = 10 * 1024 * 1024;
export const FILE_UPLOAD_BYTES = 50 * 1024 * 1024;

export const POLL_PERIOD_MS = { '1d': 86_400_000, '3d': 259_200_000, '7d': 604_800_000 } as const;

const PHOTO_TYPES = new Set(['image/png', 'image/jpeg']);

/** One Bot API call: its method, its parameters, and the files sent with it as multipart parts. */
export interface BotRequest {
  method: string;
  fields: Record<string, unknown>;
  files: { part: string; media: MediaSource }[];
}

export type MediaKind = 'photo' | 'video' | 'document';

export function mediaKind(type: string): MediaKind {
  if (PHOTO_TYPES.has(type)) return 'photo';
  return type.startsWith('video/') ? 'video' : 'document';
}

/** Why Telegram will not take this file from a bot (too large), or undefined when it will. */
export function uploadRefusal(media: Pick<MediaSource, 'type' | 'name' | 'size'>): string | undefined {
  const limit = mediaKind(media.type) === 'photo' ? PHOTO_UPLOAD_BYTES : FILE_UPLOAD_BYTES;
  if (media.size <= limit) return undefined;
  const megabytes = Math.ceil((media.size / 1024 / 1024) * 10) / 10;
  return `${media.name} is ${megabytes} MB: Telegram takes at most ${limit / 1024 / 1024} MB of it from a bot.`;
}

/** The message a post without a poll becomes; `media` are the post's files, loaded, in order. */
export function messageRequest(
  chatId: number | string,
  content: PlatformContent,
  media: readonly MediaSource[],
): BotRequest {
  const text = telegramText(content);
  const [first] = media;
  if (!first) {
    const fields: Record<string, unknown> = { chat_id: chatId, text };
    // The preview shows the post's link even when the caption mentions other addresses first.
    if (content.link) fields.link_preview_options = { url: content.link };
    return { method: 'sendMessage', fields, files: [] };
  }
  const caption = text ? { caption: text } : {};
  if (media.length === 1) {
    const kind = mediaKind(first.type);
    const method = { photo: 'sendPhoto', video: 'sendVideo', document: 'sendDocument' }[kind];
    return { method, fields: { chat_id: chatId, ...caption }, files: [{ part: kind, media: first }] };
  }
  const kinds = media.map((file) => mediaKind(file.type));
  const allDocuments = kinds.includes('document');
  const items = media.map((_, index) => ({
    type: allDocuments ? 'document' : kinds[index],
    media: `attach://file${index}`,
    ...(index === 0 ? caption : {}),
  }));
  return {
    method: 'sendMediaGroup',
    fields: { chat_id: chatId, media: items },
    files: media.map((file, index) => ({ part: `file${index}`, media: file })),
  };
}

/** The poll a post with a poll becomes (see the file's comment). */
export function pollRequest(chatId: number | string, content: PlatformContent): BotRequest {
  const poll = content.poll!;
  const fields: Record<string, unknown> = {
    chat_id: chatId,
    question: poll.question,
    options: poll.options.map((text) => ({ text })),
    is_anonymous: true,
  };
  const description = telegramPollDescription(content);
  if (description) fields.description = description;
  if (poll.correctOptionIndex !== undefined) {
    fields.type = 'quiz';
    // correct_option_ids since Bot API 9.6; correct_option_id for self-hosted servers older than that.
    // A server reads the first of the two it knows.
    fields.correct_option_ids = [poll.correctOptionIndex];
    fields.correct_option_id = poll.correctOptionIndex;
    if (poll.explanation) fields.explanation = poll.explanation;
  }
  return { method: 'sendPoll', fields, files: [] };
}

/** A reply to the post's message; without its id (Telegram gave none), a message after it. */
export function replyRequest(chatId: number | string, messageId: number | null, text: string): BotRequest {
  const fields: Record<string, unknown> = { chat_id: chatId, text };
  if (messageId !== null) fields.reply_parameters = { message_id: messageId };
  return { method: 'sendMessage', fields, files: [] };
}

export function stopPollRequest(chatId: number | string, messageId: number): BotRequest {
  return { method: 'stopPoll', fields: { chat_id: chatId, message_id: messageId }, files: [] };
}

/**
 * JSON without files; multipart with them (objects as JSON text, as the Bot API reads every part), each
 * file streamed from disk as the request is sent.
 */
export async function requestBody(request: BotRequest): Promise<{
  body: string | FormData;
  headers: Record<string, string>;
}> {
  if (request.files.length === 0) {
    return { body: JSON.stringify(request.fields), headers: { 'content-type': 'application/json' } };
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(request.fields)) {
    form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  for (const { part, media } of request.files) {
    form.append(part, await media.blob(), media.name);
  }
  return { body: form, headers: {} };
}

/** `@name` for a username or t.me link, the number for an id. */
export function telegramChatId(chat: string): string {
  const text = chat.trim();
  if (/^-?\d+$/.test(text)) return text;
  const name = text.replace(/^(https?:\/\/)?(t\.me|telegram\.me)\//i, '').replace(/^@/, '');
  if (!/^[A-Za-z][A-Za-z0-9_]{3,}$/.test(name)) {
    throw new Error(
      `"${chat}" is not a Telegram chat: give the channel's @username, its t.me link or its numeric id.`,
    );
  }
  return `@${name}`;
}

/** Where a chat's message is seen: t.me/<username>/<id>, t.me/c/<id>/<id> for a private supergroup or
 * channel (its id without the -100 prefix), none for a basic group or a private chat. */
export function messageUrl(
  chat: { id: number | string; type?: string; username?: string | null },
  messageId: number,
): string | null {
  if (chat.username) return `https://t.me/${chat.username}/${messageId}`;
  const id = String(chat.id);
  if ((chat.type === 'channel' || chat.type === 'supergroup') && id.startsWith('-100')) {
    return `https://t.me/c/${id.slice(4)}/${messageId}`;
  }
  return null;
}

/**
 * Telegram's answer to a call that did not succeed: `{ ok: false, error_code, description, parameters }`.
 * `answer` is what the shared classification (connectors/http.ts) reads.
 */
export class BotRefusal extends Error {
  readonly answer: PlatformAnswer;

  constructor(
    readonly status: number,
    readonly headers: Record<string, string | string[] | undefined>,
    readonly description: string,
    readonly parameters: { retry_after?: unknown; migrate_to_chat_id?: unknown },
    answer?: PlatformAnswer,
  ) {
    super(description);
    const json = { ok: false, error_code: status, description, parameters };
    this.answer = answer ?? { status, headers, text: JSON.stringify(json), json };
  }
}

/** A 2xx answer that is not the Bot API's `{ ok: true, result }`: the call may have been carried out. */
export class UnreadableAnswer extends Error {}

export interface BotCall {
  apiRoot: string;
  token: string;
  timeoutMs: number;
  userAgent: string;
  dispatcher?: Dispatcher;
}

/**
 * One Bot API call (`<apiRoot>/bot<token>/<method>`); resolves to its `result`, throws a BotRefusal, an
 * UnreadableAnswer or a PlatformUnreachable (whose message never has the token).
 */
export async function callBot(call: BotCall, request: BotRequest): Promise<unknown> {
  const { body, headers } = await requestBody(request);
  const answer = await callPlatform(`${call.apiRoot}/bot${call.token}/${request.method}`, {
    method: 'POST',
    headers: { ...headers, accept: 'application/json', 'user-agent': call.userAgent },
    body,
    timeoutMs: call.timeoutMs,
    secrets: [call.token],
    ...(call.dispatcher ? { dispatcher: call.dispatcher } : {}),
  });
  const json = (answer.json ?? {}) as {
    ok?: unknown;
    result?: unknown;
    description?: unknown;
    parameters?: unknown;
  };
  const success = answer.status >= 200 && answer.status < 300;
  if (success && json.ok === true) return json.result;
  if (success) throw new UnreadableAnswer(summarise(answer.text));
  const description = typeof json.description === 'string' ? json.description : summarise(answer.text);
  const parameters = typeof json.parameters === 'object' && json.parameters !== null ? json.parameters : {};
  throw new BotRefusal(
    answer.status,
    answer.headers,
    description || `HTTP ${answer.status}`,
    parameters,
    answer,
  );
}
