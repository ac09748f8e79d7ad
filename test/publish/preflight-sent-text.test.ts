/**
 * The connectors send the very text the pre-flight measured. A post is planned for a connected channel
 * as the engine plans it (planDelivery), checked by the pre-flight with the capabilities the connector
 * gave at connect time, and delivered by the connector to the loopback stand-in of its platform, which
 * applies the platform's own limits: at the limit the pre-flight says nothing, the stand-in takes the
 * post, and what it received is the text measured, of exactly the limit's length; one past the limit
 * the pre-flight says it will fail, and it does. Bluesky's twin, on a real PDS, is bluesky-limits.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MediaFacts } from '../../src/domain/preflight.js';
import { systemClock } from '../../src/ports.js';
import type { ConnectorContext, MediaSource } from '../../src/publish/connector.js';
import { openMastodon, verifyMastodon } from '../../src/publish/connectors/mastodon/mastodon-connector.js';
import { openTelegram, verifyTelegram } from '../../src/publish/connectors/telegram/telegram-connector.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import {
  type ConnectedChannel,
  connectedChannel,
  deliverChecked,
  post,
} from '../support/checked-delivery.js';
import { type MastodonServer, startMastodonServer } from '../support/mastodon-server.js';
import { startTelegramServer, type TelegramServer } from '../support/telegram-server.js';

const LINK = `https://northwind.example/${'roast/'.repeat(10)}`;
const GRIN = '😀';
const FAMILY = '👨‍👩‍👧';
const a = (count: number) => 'a'.repeat(count);
const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
  Buffer.from([0, 0, 2, 128, 0, 0, 1, 224]),
  Buffer.alloc(40),
]);
const IMAGE: MediaSource = mediaFromBytes(PNG, 'image/png', 'beans.png');
const MEDIA: MediaFacts = new Map([['img', { type: 'image/png', size: PNG.length }]]);

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const context: ConnectorContext = {
  loadMedia: async () => IMAGE,
  saveSecret: async () => {},
  clock: systemClock,
  log: () => {},
  timeoutMs: 5_000,
  userAgent: 'social-publisher-mcp/test',
};

const publish = (to: ConnectedChannel, payload: Parameters<typeof deliverChecked>[1]) =>
  deliverChecked(to, payload, MEDIA);
const poll = (options: string[]) => ({ question: 'Which roast?', options, period: '1d' as const });

describe('Telegram: the Bot API stand-in counts code points, 4,096 for a message, 1,024 for a caption', () => {
  let telegram: TelegramServer;

  async function connectTelegram(): Promise<ConnectedChannel> {
    telegram = await startTelegramServer();
    closers.push(() => telegram.close());
    const verified = await verifyTelegram({
      apiRoot: telegram.url,
      token: telegram.token,
      chat: '@northwind_news',
    });
    const publisher = openTelegram({ ...verified, channelId: 5 }, context);
    closers.push(async () => publisher.close?.());
    return connectedChannel(verified, 'Telegram', publisher);
  }

  it('a message of caption and link: one newline between them, 4,096 taken, 4,097 refused', async () => {
    const to = await connectTelegram();
    const caption = GRIN.repeat(4096 - 1 - LINK.length);
    const atLimit = await publish(to, post({ caption, link: LINK }));
    expect(atLimit).toMatchObject({ fails: [], length: 4096, outcome: { ok: true } });
    expect(telegram.messages.at(-1)).toMatchObject({ kind: 'text', text: atLimit.measured });
    expect(atLimit.measured).toBe(`${caption}\n${LINK}`);

    const over = await publish(to, post({ caption: `${caption}a`, link: LINK }));
    expect(over.fails).toEqual([expect.stringMatching(/^The text is 4097 characters, the link included;/)]);
    expect(over.outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringMatching(/too long/),
    });
  });

  it('a photo with caption and link: 1,024 taken, 1,025 refused', async () => {
    const to = await connectTelegram();
    const caption = a(1024 - 1 - LINK.length);
    const atLimit = await publish(to, post({ caption, link: LINK, media: [{ id: 'img' }] }));
    expect(atLimit).toMatchObject({ fails: [], length: 1024, outcome: { ok: true } });
    expect(telegram.messages.at(-1)).toMatchObject({ kind: 'photo', caption: atLimit.measured });

    const over = await publish(to, post({ caption: `${caption}a`, link: LINK, media: [{ id: 'img' }] }));
    expect(over.fails).toEqual([expect.stringMatching(/takes at most 1024 with media/)]);
    expect(over.outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringMatching(/too long/),
    });
  });

  it('poll options of emoji: 100 code points taken, 101 refused, whatever their UTF-16 length', async () => {
    const to = await connectTelegram();
    const options = [GRIN.repeat(100), FAMILY.repeat(20)];
    const atLimit = await publish(to, post({ caption: 'Vote', poll: poll(options) }));
    expect(atLimit).toMatchObject({ fails: [], outcome: { ok: true } });
    expect(telegram.messages.at(-1)).toMatchObject({ kind: 'poll', poll: { options, description: 'Vote' } });
    // A caption that only repeats the question is no description: nothing measured, nothing sent.
    const asked = await publish(to, post({ caption: 'Which roast?', poll: poll(options) }));
    expect(asked).toMatchObject({ fails: [], measured: '', outcome: { ok: true } });
    expect(telegram.messages.at(-1)!.poll!.description).toBeUndefined();

    const over = await publish(
      to,
      post({ caption: 'Vote', poll: poll([GRIN.repeat(100), `${FAMILY.repeat(20)}a`]) }),
    );
    expect(over.fails).toEqual(['Poll option 2 is longer than the 100 characters Telegram takes.']);
    expect(over.outcome).toMatchObject({ ok: false, kind: 'refused', reason: expect.stringMatching(/100/) });
  });
});

describe('Mastodon: the instance stand-in counts graphemes, a link as 23, 500 by default', () => {
  let mastodon: MastodonServer;

  async function connectMastodon(): Promise<ConnectedChannel> {
    mastodon = await startMastodonServer();
    closers.push(() => mastodon.close());
    const verified = await verifyMastodon({ instance: mastodon.url, token: mastodon.token });
    const publisher = openMastodon({ ...verified, channelId: 5 }, context);
    closers.push(async () => publisher.close?.());
    return connectedChannel(verified, 'Mastodon', publisher);
  }

  it("caption, link and the poll's question, a blank line apart: 500 taken, 501 refused", async () => {
    const to = await connectMastodon();
    // 461 + 2 + 23 (the link) + 2 + 12 ("Which roast?") = 500.
    const caption = FAMILY.repeat(61) + a(400);
    const options = [FAMILY.repeat(50), GRIN.repeat(50)];
    const atLimit = await publish(to, post({ caption, link: LINK, poll: poll(options) }));
    expect(atLimit).toMatchObject({ fails: [], length: 500, outcome: { ok: true } });
    expect(atLimit.measured).toBe(`${caption}\n\n${LINK}\n\nWhich roast?`);
    expect(mastodon.statuses.at(-1)).toMatchObject({ text: atLimit.measured, poll: { options } });

    const over = await publish(to, post({ caption: `${caption}a`, link: LINK, poll: poll(options) }));
    expect(over.fails).toEqual([
      expect.stringMatching(
        /^The text is 501 characters \(as people see them\), the link and the poll's question included;/,
      ),
    ]);
    expect(over.outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringMatching(/limit of 500/),
    });
  });

  it('with an image: the same 500', async () => {
    const to = await connectMastodon();
    const atLimit = await publish(to, post({ caption: a(500), media: [{ id: 'img' }] }));
    expect(atLimit).toMatchObject({ fails: [], length: 500, outcome: { ok: true } });
    expect(mastodon.statuses.at(-1)).toMatchObject({ text: a(500) });
    const over = await publish(to, post({ caption: a(501), media: [{ id: 'img' }] }));
    expect(over.fails).toHaveLength(1);
    expect(over.outcome).toMatchObject({ ok: false, kind: 'refused' });
  });
});
