/**
 * A Telegram bot and its chat before any post: what a chat takes (capabilitiesOfTelegram), and the
 * check of the bot's token and its place in the chat that `connect telegram` runs (verifyTelegram).
 */
import type { Capabilities } from '../../../domain/capabilities.js';
import type { VerifiedConnection } from '../../connector.js';
import { classifyTelegramFailure } from './telegram-failures.js';
import {
  type BotCall,
  callBot,
  FILE_UPLOAD_BYTES,
  PHOTO_UPLOAD_BYTES,
  telegramChatId,
} from './telegram-messages.js';

export const TELEGRAM_API_ROOT = 'https://api.telegram.org';

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
