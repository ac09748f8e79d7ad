import { afterEach, describe, expect, it } from 'vitest';
import type { PlatformContent, PlatformMedia } from '../../src/domain/delivery.js';
import type { CommentJob, DeliveryJob, PollCloseJob, Publisher } from '../../src/ports.js';
import type { ConnectorContext, MediaSource, VerifiedConnection } from '../../src/publish/connector.js';
import {
  capabilitiesOfTelegram,
  openTelegram,
  verifyTelegram,
} from '../../src/publish/connectors/telegram/telegram-connector.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import { FakeClock } from '../support/fake-clock.js';
import {
  CHANNEL,
  GROUP,
  PRIVATE_SUPERGROUP,
  startTelegramServer,
  type TelegramServer,
  type TelegramServerOptions,
} from '../support/telegram-server.js';

const NOW = Date.UTC(2026, 10, 24, 9, 0, 0);
const LINK = 'https://northwind.example/roast';

/** A PNG's signature and IHDR chunk: enough for Telegram's dimension check. */
function png(width = 640, height = 480, padTo = 64): Uint8Array {
  const bytes = Buffer.alloc(Math.max(padTo, 33));
  Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').copy(bytes);
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes;
}

const FILES: Record<string, MediaSource> = {
  photo1: mediaFromBytes(png(), 'image/png', 'photo1.png'),
  photo2: mediaFromBytes(png(800, 600, 100), 'image/jpeg', 'photo2.jpg'),
  video1: mediaFromBytes(Buffer.alloc(2048, 1), 'video/mp4', 'video1.mp4'),
  pdf1: mediaFromBytes(Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n'), 'application/pdf', 'menu.pdf'),
  panorama: mediaFromBytes(png(10_001, 200), 'image/png', 'panorama.png'),
  huge: mediaFromBytes(png(640, 480, 10 * 1024 * 1024 + 1), 'image/png', 'huge.png'),
};

const servers: TelegramServer[] = [];
const publishers: Publisher[] = [];
let logged: string[] = [];
let clock: FakeClock;

afterEach(async () => {
  await Promise.all(publishers.splice(0).map((publisher) => publisher.close?.()));
  const tokens = servers.map((server) => server.token);
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const token of tokens) expect(logged.join('\n')).not.toContain(token);
  logged = [];
});

async function server(options?: TelegramServerOptions): Promise<TelegramServer> {
  const started = await startTelegramServer(options);
  servers.push(started);
  return started;
}

function context(timeoutMs = 5_000): ConnectorContext {
  clock = new FakeClock(NOW);
  return {
    loadMedia: async (_brandId: number, media: PlatformMedia) => {
      const file = FILES[media.id ?? ''];
      if (!file) throw new Error(`no media ${media.id}`);
      return file;
    },
    saveSecret: async () => {},
    clock,
    log: (message) => logged.push(message),
    timeoutMs,
    userAgent: 'social-publisher-mcp/test',
  };
}

async function connect(telegram: TelegramServer, chat = '@northwind_news', timeoutMs?: number) {
  const verified = await verifyTelegram({ apiRoot: telegram.url, token: telegram.token, chat });
  const publisher = openTelegram({ ...verified, channelId: 5 }, context(timeoutMs));
  publishers.push(publisher);
  return { verified, publisher };
}

function job(content: Partial<PlatformContent>): DeliveryJob {
  return {
    deliveryId: 31,
    postId: 8,
    brandId: 1,
    channel: { id: 5, name: 'Northwind on Telegram', type: 'Telegram' },
    content: { platform: 'Telegram', format: 'feed', media: [], ...content },
    idempotencyKey: 'store-1:delivery-31',
    dueAtMs: NOW,
    attempt: 1,
    state: {},
  };
}

const media = (...ids: string[]): PlatformMedia[] => ids.map((id) => ({ id }));

function commentOn(externalId: string | null, comment = 'Grind it fresh.'): CommentJob {
  return {
    deliveryId: 31,
    postId: 8,
    brandId: 1,
    channel: job({}).channel,
    externalId,
    comment,
    idempotencyKey: 'store-1:comment-31',
  };
}

function pollClose(externalId: string | null): PollCloseJob {
  return { deliveryId: 31, postId: 8, brandId: 1, channel: job({}).channel, externalId };
}

describe('verifyTelegram', () => {
  it('connects a public channel where the bot may post, keeping what the connector needs', async () => {
    const telegram = await server();
    const verified: VerifiedConnection = await verifyTelegram({
      apiRoot: `${telegram.url}/`,
      token: telegram.token,
      chat: 'https://t.me/northwind_news',
    });
    expect(verified).toEqual({
      kind: 'telegram',
      account: '@northwind_news',
      accountId: String(CHANNEL.id),
      endpoint: telegram.url,
      profileUrl: 'https://t.me/northwind_news',
      settings: { chatId: CHANNEL.id, type: 'channel', username: 'northwind_news' },
      capabilities: capabilitiesOfTelegram(),
      secret: telegram.token,
    });
    expect(telegram.calls.map((call) => call.method)).toEqual(['getMe', 'getChat', 'getChatMember']);
    expect(telegram.calls[2]?.args).toMatchObject({
      chat_id: String(CHANNEL.id),
      user_id: String(telegram.bot.id),
    });
  });

  it('connects a private supergroup by its id, named by its title, without a profile page', async () => {
    const telegram = await server();
    const verified = await verifyTelegram({
      apiRoot: telegram.url,
      token: telegram.token,
      chat: String(PRIVATE_SUPERGROUP.id),
    });
    expect(verified).toMatchObject({
      account: 'Northwind Team',
      accountId: String(PRIVATE_SUPERGROUP.id),
      profileUrl: null,
    });
  });

  it("says that BotFather's token was refused, without repeating it", async () => {
    const telegram = await server();
    const wrong = `${telegram.bot.id}:AAHwrongwrongwrongwrongwrongwrongwr`;
    const error = await verifyTelegram({
      apiRoot: telegram.url,
      token: wrong,
      chat: '@northwind_news',
    }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /refused the bot token \(Unauthorized\).*make a new one with \/token in @BotFather/,
    );
    expect((error as Error).message).not.toContain(wrong);
  });

  it('says the address or the token is wrong when Telegram answers 404, and refuses what is not a chat', async () => {
    const telegram = await server();
    await expect(
      verifyTelegram({ apiRoot: `${telegram.url}/telegram`, token: telegram.token, chat: '@northwind_news' }),
    ).rejects.toThrow(
      `Telegram answered Not Found at ${telegram.url}/telegram: the API address or the bot token is wrong`,
    );
    await expect(
      verifyTelegram({ apiRoot: telegram.url, token: telegram.token, chat: 'a b' }),
    ).rejects.toThrow(
      /"a b" is not a Telegram chat: give the channel's @username, its t.me link or its numeric id/,
    );
    expect(telegram.calls).toHaveLength(1);
  });

  it('asks for an administrator with the Post messages right when the bot may not post in the channel', async () => {
    const telegram = await server();
    telegram.chat('@northwind_news').bot = { status: 'member' };
    await expect(
      verifyTelegram({ apiRoot: telegram.url, token: telegram.token, chat: '@northwind_news' }),
    ).rejects.toThrow(
      /is not an administrator of the channel @northwind_news: add the bot to the channel as an administrator with the Post messages right/,
    );
    telegram.chat('@northwind_news').bot = { status: 'administrator', can_post_messages: false };
    await expect(
      verifyTelegram({ apiRoot: telegram.url, token: telegram.token, chat: '@northwind_news' }),
    ).rejects.toThrow(/without the Post messages right: give it that right/);
  });

  it('tells a group the bot is restricted in, and a chat it cannot see, what to fix', async () => {
    const telegram = await server();
    telegram.chat(GROUP.id).bot = { status: 'restricted', is_member: true, can_send_messages: false };
    await expect(
      verifyTelegram({ apiRoot: telegram.url, token: telegram.token, chat: String(GROUP.id) }),
    ).rejects.toThrow(/may not send messages in Roasters: lift its restriction/);
    await expect(
      verifyTelegram({ apiRoot: telegram.url, token: telegram.token, chat: '@no_such_channel' }),
    ).rejects.toThrow(/\(Bad Request: chat not found\): add the bot to @no_such_channel/);
  });
});

describe('the Telegram publisher', () => {
  it('is named telegram and never resends on its own (the Bot API cannot deduplicate)', async () => {
    const { publisher } = await connect(await server());
    expect(publisher.name).toBe('telegram');
    expect(publisher.idempotent).toBe(false);
  });

  it('sends a text post as one message: the caption, the link on its own line, previewed', async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    const outcome = await publisher.deliver(
      job({ caption: 'Fresh roast today', link: LINK, alt: 'ignored', title: 'ignored' }),
    );
    expect(outcome).toEqual({ ok: true, externalId: '101', url: 'https://t.me/northwind_news/101' });
    expect(telegram.messages).toEqual([
      {
        chatId: CHANNEL.id,
        messageId: 101,
        method: 'sendMessage',
        kind: 'text',
        text: `Fresh roast today\n${LINK}`,
        linkPreviewUrl: LINK,
      },
    ]);
    await publisher.deliver(job({ caption: `Read ${LINK} today`, link: LINK }));
    expect(telegram.messages[1]?.text).toBe(`Read ${LINK} today`);
  });

  it('sends one image as a photo with its caption, uploading the bytes', async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    const outcome = await publisher.deliver(job({ caption: 'Beans', link: LINK, media: media('photo1') }));
    expect(outcome).toMatchObject({ ok: true, externalId: '101' });
    expect(telegram.messages[0]).toMatchObject({
      method: 'sendPhoto',
      kind: 'photo',
      caption: `Beans\n${LINK}`,
      file: { name: 'photo1.png', type: 'image/png', size: FILES.photo1!.size },
    });
  });

  it('sends one video with sendVideo and a PDF with sendDocument', async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    await publisher.deliver(job({ caption: 'Roasting', media: media('video1') }));
    await publisher.deliver(job({ media: media('pdf1') }));
    expect(
      telegram.messages.map(({ method, kind, caption, file }) => ({ method, kind, caption, file })),
    ).toEqual([
      {
        method: 'sendVideo',
        kind: 'video',
        caption: 'Roasting',
        file: { name: 'video1.mp4', type: 'video/mp4', size: 2048 },
      },
      {
        method: 'sendDocument',
        kind: 'document',
        caption: undefined,
        file: { name: 'menu.pdf', type: 'application/pdf', size: FILES.pdf1!.size },
      },
    ]);
  });

  it('sends 2-10 media as one album, captioned on its first item; with a PDF all go as documents', async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    const outcome = await publisher.deliver(
      job({ caption: 'Our week', media: media('photo1', 'video1', 'photo2') }),
    );
    expect(outcome).toEqual({ ok: true, externalId: '101', url: 'https://t.me/northwind_news/101' });
    expect(telegram.callsOf('sendMediaGroup')).toBe(1);
    expect(telegram.messages.map((m) => [m.messageId, m.kind, m.caption, m.file?.name])).toEqual([
      [101, 'photo', 'Our week', 'photo1.png'],
      [102, 'video', undefined, 'video1.mp4'],
      [103, 'photo', undefined, 'photo2.jpg'],
    ]);
    expect(new Set(telegram.messages.map((m) => m.mediaGroupId)).size).toBe(1);

    await publisher.deliver(job({ media: media('photo1', 'pdf1') }));
    expect(telegram.messages.slice(3).map((m) => m.kind)).toEqual(['document', 'document']);
  });

  it('sends a poll, anonymous, and asks to be called back to close it when its period ends', async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    const poll = { question: 'Which roast?', options: ['Light', 'Dark'], period: '1d' as const };
    const outcome = await publisher.deliver(job({ caption: 'Vote for Friday', poll }));
    expect(outcome).toEqual({
      ok: true,
      externalId: '101',
      url: 'https://t.me/northwind_news/101',
      closePollAtMs: NOW + 86_400_000,
    });
    expect(telegram.messages[0]?.poll).toEqual({
      question: 'Which roast?',
      options: ['Light', 'Dark'],
      type: 'regular',
      isAnonymous: true,
      correctOptionIds: [],
      description: 'Vote for Friday',
      isClosed: false,
    });
  });

  it('sends a quiz with its correct option and explanation, and closes it once (closing again is fine)', async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    const poll = {
      question: 'Origin of our espresso?',
      options: ['Kenya', 'Brazil', 'Peru'],
      period: '3d' as const,
      correctOptionIndex: 1,
      explanation: 'Santos, since 2019.',
    };
    const outcome = await publisher.deliver(job({ poll }));
    expect(outcome).toMatchObject({ ok: true, externalId: '101', closePollAtMs: NOW + 259_200_000 });
    expect(telegram.messages[0]?.poll).toMatchObject({
      type: 'quiz',
      correctOptionIds: [1],
      explanation: 'Santos, since 2019.',
      isClosed: false,
    });
    expect(telegram.messages[0]?.poll?.description).toBeUndefined();

    expect(await publisher.closePoll!(pollClose('101'))).toEqual({
      ok: true,
      externalId: '101',
      url: 'https://t.me/northwind_news/101',
    });
    expect(telegram.messages[0]?.poll?.isClosed).toBe(true);
    expect(await publisher.closePoll!(pollClose('101'))).toMatchObject({ ok: true });
    expect(telegram.callsOf('stopPoll')).toBe(2);
    expect(await publisher.closePoll!(pollClose(null))).toMatchObject({ ok: false, kind: 'refused' });
    expect(telegram.callsOf('stopPoll')).toBe(2);
  });

  it('closes polls of 7 days a week later', async () => {
    const { publisher } = await connect(await server());
    const outcome = await publisher.deliver(
      job({ poll: { question: 'Q?', options: ['a', 'b'], period: '7d' } }),
    );
    expect(outcome).toMatchObject({ closePollAtMs: NOW + 604_800_000 });
  });

  it("comments as a reply to the post's message; a reply to a message that is gone is refused", async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    await publisher.deliver(job({ caption: 'Fresh roast today' }));
    const outcome = await publisher.comment(commentOn('101'));
    expect(outcome).toEqual({ ok: true, externalId: '102', url: 'https://t.me/northwind_news/102' });
    expect(telegram.messages[1]).toMatchObject({ kind: 'text', text: 'Grind it fresh.', replyTo: 101 });

    // Without the post's id (Telegram gave none) the comment follows it as a plain message.
    expect(await publisher.comment(commentOn(null, 'And more'))).toMatchObject({
      ok: true,
      externalId: '103',
    });
    expect(telegram.messages[2]).toEqual(expect.not.objectContaining({ replyTo: expect.anything() }));

    expect(await publisher.comment(commentOn('999'))).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'Telegram refused the comment: Bad Request: message to be replied not found',
    });
  });

  it("refuses a caption over 1024 and a text over 4096 with Telegram's own words, recording nothing", async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    expect(await publisher.deliver(job({ caption: 'x'.repeat(1025), media: media('photo1') }))).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'Telegram refused the post: Bad Request: message caption is too long',
    });
    expect(await publisher.deliver(job({ caption: 'x'.repeat(4097) }))).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'Telegram refused the post: Bad Request: message is too long',
    });
    // Exactly at the limits, counted in code points (an emoji is one), both go out.
    expect(await publisher.deliver(job({ caption: '☕'.repeat(4096) }))).toMatchObject({ ok: true });
    expect(
      await publisher.deliver(job({ caption: '☕'.repeat(1024), media: media('photo1') })),
    ).toMatchObject({ ok: true });
    expect(telegram.messages).toHaveLength(2);
  });

  it('refuses photos Telegram will not take: bad dimensions (its answer), over 10 MB (before uploading)', async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    expect(await publisher.deliver(job({ media: media('panorama') }))).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'Telegram refused the post: Bad Request: PHOTO_INVALID_DIMENSIONS',
    });
    expect(await publisher.deliver(job({ media: media('huge') }))).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'huge.png is 10.1 MB: Telegram takes at most 10 MB of it from a bot.',
    });
    expect(telegram.callsOf('sendPhoto')).toBe(1);
    expect(telegram.messages).toHaveLength(0);
  });

  it('asks to reconnect when the token is revoked, without repeating the token', async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    telegram.revokeToken();
    const outcome = await publisher.deliver(job({ caption: 'Hello' }));
    expect(outcome).toMatchObject({ ok: false, kind: 'reconnect' });
    if (outcome.ok) return;
    expect(outcome.reason).toMatch(
      /refused the bot token \(Unauthorized\).*run `social-publisher-mcp connect telegram …` again/,
    );
    expect(outcome.reason).not.toContain(telegram.token);
  });

  it("asks to reconnect or fix the bot's rights when it was kicked or demoted", async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    telegram.chat(CHANNEL.id).bot = { status: 'kicked' };
    expect(await publisher.deliver(job({ caption: 'Hello' }))).toMatchObject({
      ok: false,
      kind: 'reconnect',
      reason: expect.stringContaining(
        '(Forbidden: bot was kicked from the channel chat): add the bot to @northwind_news',
      ),
    });
    telegram.chat(CHANNEL.id).bot = { status: 'member' };
    expect(await publisher.deliver(job({ caption: 'Hello' }))).toMatchObject({
      ok: false,
      kind: 'reconnect',
      reason: expect.stringContaining('(Bad Request: need administrator rights in the channel chat)'),
    });
    expect(telegram.messages).toHaveLength(0);
  });

  it('names the new id of a group that became a supergroup', async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram, String(GROUP.id));
    telegram.chat(GROUP.id).migratedTo = -1005550001111;
    const outcome = await publisher.deliver(job({ caption: 'Hello' }));
    expect(outcome).toMatchObject({ ok: false, kind: 'refused' });
    expect(!outcome.ok && outcome.reason).toMatch(
      /upgraded to a supergroup, whose id is -1005550001111 .*connect telegram …` again with the chat -1005550001111/,
    );
  });

  it('waits as long as Telegram asks (parameters.retry_after) when rate limited', async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    telegram.failNext(1, { kind: 'flood', retryAfter: 7 });
    expect(await publisher.deliver(job({ caption: 'Hello' }))).toEqual({
      ok: false,
      kind: 'rate_limited',
      reason: 'Telegram is rate limiting the bot (Too Many Requests: retry after 7).',
      retryAfterMs: 7000,
    });
    expect(telegram.messages).toHaveLength(0);
  });

  it("is rate limited by the FAQ's one message a second in a chat", async () => {
    const telegram = await server({ floodControl: true });
    const { publisher } = await connect(telegram, String(GROUP.id));
    expect(await publisher.deliver(job({ caption: 'One' }))).toMatchObject({ ok: true, url: null });
    expect(await publisher.deliver(job({ caption: 'Two' }))).toMatchObject({
      ok: false,
      kind: 'rate_limited',
      retryAfterMs: 1000,
    });
  });

  it("treats Telegram's 500 and its gateway's 502 page as transient", async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    telegram.failNext(1, { kind: 'status', status: 500 });
    telegram.failNext(1, { kind: 'status', status: 502 });
    expect(await publisher.deliver(job({ caption: 'Hello' }))).toEqual({
      ok: false,
      kind: 'transient',
      reason: 'Telegram failed the post (HTTP 500: Internal Server Error).',
    });
    expect(await publisher.deliver(job({ caption: 'Hello' }))).toMatchObject({
      ok: false,
      kind: 'transient',
      reason: expect.stringContaining('HTTP 502: <html>'),
    });
  });

  it('reports an unanswered send as unknown and does not send it again by itself', async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram, '@northwind_news', 300);
    telegram.failNext(1, { kind: 'hang', afterRecording: true });
    const outcome = await publisher.deliver(job({ caption: 'Hello' }));
    expect(outcome).toMatchObject({ ok: false, kind: 'unknown' });
    expect(!outcome.ok && outcome.reason).toMatch(
      /did not answer the post \(no answer within 300 ms\): it may have been posted in @northwind_news/,
    );
    expect(telegram.messages).toHaveLength(1);
    expect(telegram.callsOf('sendMessage')).toBe(1);
  });

  it('reports a Telegram that cannot be reached as transient', async () => {
    const telegram = await server();
    const { publisher } = await connect(telegram);
    await telegram.close();
    const outcome = await publisher.deliver(job({ caption: 'Hello' }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'transient',
      reason: expect.stringMatching(/could not be reached: .*ECONNREFUSED/),
    });
    expect(!outcome.ok && outcome.reason).not.toContain(telegram.token);
  });

  it('links messages of a private supergroup by t.me/c/<id>/<message>, and none in a basic group', async () => {
    const telegram = await server();
    const team = await connect(telegram, String(PRIVATE_SUPERGROUP.id));
    expect(await team.publisher.deliver(job({ caption: 'Stand-up at 10' }))).toEqual({
      ok: true,
      externalId: '101',
      url: 'https://t.me/c/9876543210/101',
    });
    const group = await connect(telegram, String(GROUP.id));
    expect(await group.publisher.deliver(job({ caption: 'Roast at 3' }))).toEqual({
      ok: true,
      externalId: '101',
      url: null,
    });
    expect(telegram.messages.map((m) => m.chatId)).toEqual([PRIVATE_SUPERGROUP.id, GROUP.id]);
  });
});
