/**
 * How platform answers become the failure kinds the engine acts on (style.md rule 13), at the edges the
 * mutation run of 2026-11-25 found unguarded (docs/mutation.md): the waits a 429 names in each header
 * platforms use, a request that went out and got no answer against one that never left, Telegram's
 * refusals, unreadable answers and unreadable media, Mastodon's 403 and 408 and a media upload that
 * gets no answer; and each connector's capabilities, which must be valid channel limits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelLimits } from '../../src/domain/channel-detail.js';
import { NotFoundError, ValidationError } from '../../src/domain/errors.js';
import type { DeliveryJob, Publisher } from '../../src/ports.js';
import type { ConnectorContext, MediaSource } from '../../src/publish/connector.js';
import { capabilitiesOfBluesky } from '../../src/publish/connectors/bluesky/bluesky-connector.js';
import {
  capabilitiesOfMastodon,
  openMastodon,
  verifyMastodon,
} from '../../src/publish/connectors/mastodon/mastodon-connector.js';
import {
  capabilitiesOfTelegram,
  classifyTelegramFailure,
} from '../../src/publish/connectors/telegram/telegram-connector.js';
import { BotRefusal, UnreadableAnswer } from '../../src/publish/connectors/telegram/telegram-messages.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import {
  callPlatform,
  errorCode,
  PlatformUnreachable,
  retryAfterMs,
} from '../../src/publish/platform-http.js';
import { type FakePlatform, startFakePlatform } from '../support/fake-platform/kit.js';
import { type MastodonServer, startMastodonServer } from '../support/mastodon-server.js';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('retryAfterMs: the wait a platform names', () => {
  const wait = (headers: Record<string, string | string[]>) => retryAfterMs(headers, NOW);

  it('Retry-After in seconds (trimmed, the first of several) or as an HTTP date, never negative', () => {
    expect(wait({ 'retry-after': '5' })).toBe(5_000);
    expect(wait({ 'retry-after': ' 7 ' })).toBe(7_000);
    expect(wait({ 'retry-after': ['9', '30'] })).toBe(9_000);
    expect(wait({ 'retry-after': new Date(NOW + 90_000).toUTCString() })).toBe(90_000);
    expect(wait({ 'retry-after': new Date(NOW - 90_000).toUTCString() })).toBe(0);
  });

  it('an unreadable Retry-After gives way to the reset headers', () => {
    expect(wait({ 'retry-after': 'soon', 'x-ratelimit-reset': new Date(NOW + 60_000).toISOString() })).toBe(
      60_000,
    );
    expect(wait({ 'retry-after': '5s' })).toBeUndefined();
  });

  it("X-RateLimit-Reset (Mastodon's ISO time) and RateLimit-Reset (unix seconds, or seconds from now)", () => {
    expect(wait({ 'x-ratelimit-reset': new Date(NOW + 45_000).toISOString() })).toBe(45_000);
    expect(wait({ 'x-ratelimit-reset': new Date(NOW - 45_000).toISOString() })).toBe(0);
    expect(wait({ 'ratelimit-reset': String(NOW / 1000 + 120) })).toBe(120_000);
    expect(wait({ 'ratelimit-reset': String(NOW / 1000 - 120) })).toBe(0);
    expect(wait({ 'ratelimit-reset': '30' })).toBe(30_000);
    // Below 1,000,000,000 a number is seconds from now; from there on, a unix time.
    expect(wait({ 'ratelimit-reset': '999999999' })).toBe(999_999_999_000);
    expect(retryAfterMs({ 'ratelimit-reset': '1000000000' }, 1_000_000_000_000 - 5_000)).toBe(5_000);
    expect(wait({ 'ratelimit-reset': 'later' })).toBeUndefined();
    expect(wait({})).toBeUndefined();
  });
});

describe('errorCode and the unanswered request', () => {
  it("finds a network error's code in the error, the first of several, or its cause", () => {
    expect(errorCode('ECONNREFUSED')).toBeUndefined();
    expect(errorCode(null)).toBeUndefined();
    expect(errorCode({ code: 5 })).toBeUndefined();
    expect(errorCode({ code: 'ECONNRESET' })).toBe('ECONNRESET');
    expect(errorCode({ errors: [{ code: 'ECONNREFUSED' }, { code: 'EHOSTUNREACH' }] })).toBe('ECONNREFUSED');
    expect(errorCode(new Error('wrapped', { cause: { code: 'ENOTFOUND' } }))).toBe('ENOTFOUND');
  });

  /** A stand-in that answers POST /statuses, its kit scripting what goes wrong. */
  async function server(): Promise<FakePlatform> {
    const kit = await startFakePlatform({
      routes: [{ method: 'POST', path: '/statuses', handle: () => ({ status: 200, body: {} }) }],
    });
    closers.push(() => kit.close());
    return kit;
  }

  const failure = (url: string, timeoutMs = 2_000) =>
    callPlatform(url, { method: 'POST', body: '{}', timeoutMs }).then(
      () => {
        throw new Error('answered');
      },
      (error: unknown) => error as PlatformUnreachable,
    );

  it('a connection closed after the request went out: sent, with the code and what undici said', async () => {
    const kit = await server();
    kit.dropNext();
    const error = await failure(`${kit.url}/statuses`);
    expect(error).toBeInstanceOf(PlatformUnreachable);
    expect({ sent: error.sent, message: error.message }).toEqual({
      sent: true,
      message: 'UND_ERR_SOCKET: other side closed',
    });
  });

  it('a refused connection: not sent, the message as it is when it names its code', async () => {
    const error = await failure('http://127.0.0.1:9/statuses');
    expect({ sent: error.sent, message: error.message }).toEqual({
      sent: false,
      message: 'connect ECONNREFUSED 127.0.0.1:9',
    });
  });

  it('no answer by the deadline: sent, said as the deadline', async () => {
    const kit = await server();
    kit.hang('forever');
    const error = await failure(`${kit.url}/statuses`, 200);
    expect({ sent: error.sent, message: error.message }).toEqual({
      sent: true,
      message: 'no answer within 200 ms',
    });
  });
});

describe('classifyTelegramFailure', () => {
  const TOKEN = '7000001:AAHsecretsecret';
  const context = {
    what: 'post',
    chat: '@northwind_news',
    apiRoot: 'https://api.telegram.org',
    token: TOKEN,
    nowMs: NOW,
  };
  const refusal = (status: number, description: string, parameters = {}, headers = {}) =>
    new BotRefusal(status, headers, description, parameters);
  const classify = (error: unknown, beforeSending = false) =>
    classifyTelegramFailure(error, { ...context, beforeSending });

  it('asks for a reconnect on 401, never repeating the token', () => {
    const outcome = classify(refusal(401, `Unauthorized: bot ${TOKEN}`));
    expect(outcome).toMatchObject({ ok: false, kind: 'reconnect' });
    expect(outcome.reason).toContain('Unauthorized: bot <token>');
    expect(outcome.reason).not.toContain(TOKEN);
  });

  it("waits as long as a 429's retry_after says, else as its headers say", () => {
    expect(classify(refusal(429, 'Too Many Requests: retry after 5', { retry_after: 5 }))).toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 5_000,
    });
    const headers = { 'retry-after': '8' };
    expect(classify(refusal(429, 'Too Many Requests', { retry_after: 0 }, headers))).toMatchObject({
      retryAfterMs: 8_000,
    });
    expect(classify(refusal(429, 'Too Many Requests', {}, headers))).toMatchObject({ retryAfterMs: 8_000 });
  });

  it('refuses a 400 about the post; asks for a reconnect only for one about the bot in the chat', () => {
    expect(classify(refusal(400, 'Bad Request: message is too long'))).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'Telegram refused the post: Bad Request: message is too long',
    });
    expect(classify(refusal(400, 'Bad Request: chat not found'))).toMatchObject({ kind: 'reconnect' });
  });

  it('calls an unreadable answer unknown: the post may be out', () => {
    expect(classify(new UnreadableAnswer('<html>'))).toEqual({
      ok: false,
      kind: 'unknown',
      reason:
        "Telegram's answer to the post could not be read (<html>): it may have been posted in @northwind_news.",
    });
    expect(classify(new UnreadableAnswer('')).reason).toContain('could not be read (empty)');
  });

  it("refuses a post whose media cannot be read, with the service's words", () => {
    expect(
      classify(ValidationError.single('media.0.url', 'The media.0.url is not reachable.'), true),
    ).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'A media file of the post could not be read: The media.0.url is not reachable.',
    });
    expect(classify(new NotFoundError('media', 'Media not found.'), true).reason).toBe(
      'A media file of the post could not be read: Media not found.',
    );
  });

  it('an unexpected error: transient before anything was sent, unknown after', () => {
    expect(classify(new Error('disk on fire'), true)).toEqual({
      ok: false,
      kind: 'transient',
      reason: 'The Telegram post failed unexpectedly: disk on fire',
    });
    expect(classify(new Error('disk on fire'), false)).toMatchObject({ kind: 'unknown' });
  });
});

describe('Mastodon failures', () => {
  const PNG: MediaSource = mediaFromBytes(
    Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10]),
    'image/png',
    'a.png',
  );
  let mastodon: MastodonServer;
  let logged: string[];

  async function connect(loadMedia: ConnectorContext['loadMedia'] = async () => PNG): Promise<Publisher> {
    mastodon = await startMastodonServer();
    closers.push(() => mastodon.close());
    logged = [];
    const verified = await verifyMastodon({ instance: mastodon.url, token: mastodon.token });
    const publisher = openMastodon(
      { ...verified, channelId: 7 },
      {
        loadMedia,
        saveSecret: async () => {},
        clock: { now: () => NOW },
        log: (m) => logged.push(m),
        timeoutMs: 300,
        userAgent: 'test',
      },
    );
    closers.push(async () => publisher.close?.());
    return publisher;
  }
  const job = (media: DeliveryJob['content']['media'] = []): DeliveryJob => ({
    deliveryId: 1,
    postId: 1,
    brandId: 1,
    channel: { id: 7, name: 'Mastodon', type: 'Mastodon' },
    content: { platform: 'Mastodon', format: 'feed', caption: 'Beans', media },
    idempotencyKey: 'store-1:delivery-1',
    dueAtMs: NOW,
    attempt: 1,
    state: {},
  });

  it('a 403 that is not about the account is refused; a 408 is transient', async () => {
    const publisher = await connect();
    mastodon.failNext('/api/v1/statuses', 1, 403);
    expect(await publisher.deliver(job())).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringMatching(/^Mastodon refused the status: /),
    });
    mastodon.failNext('/api/v1/statuses', 1, 408);
    expect(await publisher.deliver(job())).toMatchObject({
      ok: false,
      kind: 'transient',
      reason: expect.stringMatching(/^Mastodon failed the status \(HTTP 408: /),
    });
    mastodon.failNext('/api/v2/media', 1, 503);
    expect(await publisher.deliver(job([{ id: 'a' }]))).toMatchObject({
      kind: 'transient',
      reason: expect.stringMatching(/^Mastodon failed the media upload \(HTTP 503: /),
    });
  });

  it('a 429 says who is limited and how long to wait', async () => {
    const publisher = await connect();
    mastodon.rateLimitNext('/api/v1/statuses', 1, { retryAfterSeconds: 40 });
    expect(await publisher.deliver(job())).toEqual({
      ok: false,
      kind: 'rate_limited',
      reason: expect.stringMatching(/^Mastodon is rate limiting @publisher@127\.0\.0\.1 \(/),
      retryAfterMs: 40_000,
      // The account's rate limit, from the answer's X-RateLimit-Remaining and X-RateLimit-Reset.
      limit: { remaining: 0, resetAtMs: expect.any(Number) },
    });
  });

  it('a media upload without an answer is sent again (transient); nothing was published', async () => {
    const publisher = await connect();
    mastodon.hangNext('/api/v2/media');
    expect(await publisher.deliver(job([{ id: 'a' }]))).toEqual({
      ok: false,
      kind: 'transient',
      reason: `Mastodon (${mastodon.url}) did not answer the media upload (no answer within 300 ms).`,
    });
  });

  it("media that cannot be read: refused with the service's words, or transient and logged when unexpected", async () => {
    const missing = await connect(async () => {
      throw new NotFoundError('media', 'Media not found.');
    });
    expect(await missing.deliver(job([{ id: 'gone' }]))).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'A media file of the post could not be read: Media not found.',
    });
    const broken = await connect(async () => {
      throw new Error('disk on fire');
    });
    expect(await broken.deliver(job([{ id: 'a' }]))).toEqual({
      ok: false,
      kind: 'transient',
      reason: 'The Mastodon media upload failed unexpectedly: disk on fire',
    });
    expect(logged).toEqual([
      'Mastodon media upload for @publisher@127.0.0.1 failed unexpectedly: disk on fire',
    ]);
  });
});

describe('capabilities', () => {
  it("each connector's are valid channel limits, as get_channel shows them", () => {
    for (const capabilities of [
      capabilitiesOfMastodon({}),
      capabilitiesOfBluesky(),
      capabilitiesOfTelegram(),
    ]) {
      expect(ChannelLimits.strict().parse(capabilities)).toEqual(capabilities);
    }
  });

  it("Mastodon: the instance's figures when they are positive integers, its defaults otherwise", () => {
    const limits = (statuses: Record<string, unknown>, media: Record<string, unknown> = {}) =>
      capabilitiesOfMastodon({ configuration: { statuses, media_attachments: media } } as never);
    expect(limits({ max_characters: 640 }).textLimit).toBe(640);
    for (const odd of [0, -5, 1.5, '640', null])
      expect(limits({ max_characters: odd }).textLimit, String(odd)).toBe(500);
    expect(limits({}, { video_size_limit: 99 * 1_048_576 })).toMatchObject({ maxVideoBytes: 99 * 1_048_576 });
    expect(limits({}, { image_size_limit: 16 * 1_048_576 })).toMatchObject({ maxImageBytes: 16 * 1_048_576 });
    expect(limits({}, { video_size_limit: 0 })).not.toHaveProperty('maxVideoBytes');
    expect(limits({})).not.toHaveProperty('maxImageBytes');
  });
});
