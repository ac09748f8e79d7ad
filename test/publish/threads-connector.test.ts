/**
 * What is Threads' own (the contract holds the rest): what each post field becomes as containers, the
 * media Threads fetches from a public address (served here by a loopback server, downloaded by the
 * stand-in), a container Meta processes (pending, then published by `check`), a container in ERROR
 * (refused in Meta's words), an uploaded file without a public address, the 500-character count, a
 * container published once only, the reply, the sign-in's token calls.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlatformMedia } from '../../src/domain/delivery.js';
import type { DeliveryJob, Publisher } from '../../src/ports.js';
import { tokensOf } from '../../src/publish/connectors/oauth-tokens.js';
import { threadsTextLength, verifyThreads } from '../../src/publish/connectors/threads/threads-account.js';
import { openThreads } from '../../src/publish/connectors/threads/threads-connector.js';
import { threadsOAuth } from '../../src/publish/connectors/threads/threads-oauth.js';
import { contractJob } from '../support/connector-contract.js';
import {
  graphError,
  startThreadsServer,
  THREADS_USER_ID,
  type ThreadsServer,
} from '../support/threads-server.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

let server: ThreadsServer;
let files: Server;
let filesUrl: string;
let nowMs: number;
let publisher: Publisher;

beforeEach(async () => {
  nowMs = Date.UTC(2027, 0, 5, 9);
  server = await startThreadsServer({ now: () => nowMs });
  files = createServer((req, res) => {
    if (req.url?.startsWith('/photo')) {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
      res.end(PNG);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here');
    }
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  publisher = await open();
});

afterEach(async () => {
  await publisher.close?.();
  await new Promise((resolve) => files.close(resolve));
  await server.close();
});

async function open(
  publicMediaUrl: (brandId: number, media: PlatformMedia) => Promise<string | undefined> = async (_b, m) =>
    m.url ?? `${filesUrl}/photo-${m.id}.png`,
) {
  const token = server.userToken();
  const verified = await verifyThreads({
    endpoint: server.url,
    secret: token,
    tokens: { accessToken: token, refreshToken: token },
    userAgent: 'test',
    timeoutMs: 5_000,
  });
  return openThreads(
    { ...verified, channelId: 1 },
    {
      loadMedia: async () => {
        throw new Error('Threads never reads a file itself.');
      },
      publicMediaUrl,
      saveSecret: async () => {},
      clock: { now: () => nowMs },
      log: () => {},
      timeoutMs: 5_000,
      userAgent: 'test',
    },
  );
}

function job(content: Partial<DeliveryJob['content']> = {}, state: DeliveryJob['state'] = {}): DeliveryJob {
  const base = contractJob('Threads', 'Fresh beans today');
  return { ...base, content: { ...base.content, ...content }, state };
}

const images = (count: number): PlatformMedia[] =>
  Array.from({ length: count }, (_, i) => ({ id: `m${i + 1}`, type: 'image/png' }));

describe('Threads: what a post becomes', () => {
  it('a text post: one TEXT container, published, with its permalink', async () => {
    const outcome = await publisher.deliver(job({ link: 'https://acme.example/beans' }));
    const [post] = server.posts;
    expect(outcome).toEqual({ ok: true, externalId: post!.id, url: post!.permalink });
    expect(post).toMatchObject({
      mediaType: 'TEXT',
      text: 'Fresh beans today\n\nhttps://acme.example/beans',
    });
    expect(server.kit.requestsTo('/:version/me/threads_publish')).toHaveLength(1);
  });

  it('an image: Threads downloads it from the public address the context gives', async () => {
    const outcome = await publisher.deliver(job({ media: images(1), alt: 'A cup' }));
    expect(outcome).toMatchObject({ ok: true });
    const [container] = server.containers.values();
    expect(container).toMatchObject({
      mediaType: 'IMAGE',
      mediaUrl: `${filesUrl}/photo-m1.png`,
      downloaded: PNG.length,
      altText: 'A cup',
    });
  });

  it('a carousel: one item per file, then a CAROUSEL of their ids', async () => {
    const outcome = await publisher.deliver(job({ media: images(3) }));
    expect(outcome).toMatchObject({ ok: true });
    const all = [...server.containers.values()];
    const items = all.filter((c) => c.carouselItem);
    expect(items).toHaveLength(3);
    expect(all.find((c) => c.mediaType === 'CAROUSEL')?.children).toEqual(items.map((c) => c.id));
    expect(server.posts).toHaveLength(1);
  });

  it('a poll: poll_attachment on the text container', async () => {
    const poll = { question: 'Which?', options: ['Dark', 'Light', 'Decaf'], period: '1d' as const };
    expect(await publisher.deliver(job({ poll }))).toMatchObject({ ok: true });
    expect([...server.containers.values()][0]?.poll).toEqual({
      option_a: 'Dark',
      option_b: 'Light',
      option_c: 'Decaf',
    });
  });

  it('the auto-comment: a reply container with reply_to_id, published', async () => {
    const sent = await publisher.deliver(job());
    const externalId = sent.ok === true ? sent.externalId : null;
    const reply = await publisher.comment({
      deliveryId: 1,
      postId: 1,
      brandId: 1,
      channel: { id: 1, name: 'T', type: 'Threads' },
      externalId,
      comment: 'Order at acme.example',
      idempotencyKey: 'c-1',
    });
    expect(reply).toMatchObject({ ok: true });
    expect(server.posts[1]).toMatchObject({ replyTo: externalId, text: 'Order at acme.example' });
  });
});

describe('Threads: containers', () => {
  it('a container Meta processes is pending, holding its id, and check publishes it once ready', async () => {
    await server.close();
    server = await startThreadsServer({ now: () => nowMs, processingMs: 60_000 });
    publisher = await open();
    const pending = await publisher.deliver(job({ media: images(1) }));
    expect(pending).toMatchObject({
      ok: 'pending',
      state: { step: 'commit', containerId: expect.any(String) },
    });
    expect(server.posts).toEqual([]);
    const state = pending.ok === 'pending' ? pending.state : {};
    expect(await publisher.check!(job({ media: images(1) }, state))).toMatchObject({ ok: 'pending' });
    // Nothing is published before Meta says FINISHED.
    expect(server.kit.requestsTo('/:version/me/threads_publish')).toEqual([]);
    nowMs += 61_000;
    const done = await publisher.check!(job({ media: images(1) }, state));
    expect(done).toMatchObject({ ok: true, externalId: server.posts[0]?.id });
    expect(server.containers.size).toBe(1);
  });

  it("a container in ERROR is refused with Meta's error_message (a file Threads cannot download)", async () => {
    const image = await publisher.deliver(job({ media: [{ url: `${filesUrl}/gone.png` }] }));
    expect(image).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('ERROR: UNKNOWN'),
    });
    const video = await publisher.deliver(job({ media: [{ url: `${filesUrl}/gone.mp4` }] }));
    expect(video).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('FAILED_DOWNLOADING_VIDEO'),
    });
    expect(server.posts).toEqual([]);
  });

  it('an uploaded file without a public address is refused, naming SOCIAL_PUBLISHER_PUBLIC_URL', async () => {
    await publisher.close?.();
    publisher = await open(async () => undefined);
    const asked = server.kit.log.length;
    const outcome = await publisher.deliver(job({ media: images(1) }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('SOCIAL_PUBLISHER_PUBLIC_URL'),
    });
    expect(server.kit.log.length).toBe(asked);
  });

  it('prepare makes the container ahead; the commit only publishes it', async () => {
    const prepared = await publisher.prepare!(job({ media: images(1) }));
    expect(prepared).toMatchObject({ ok: 'prepared', state: { step: 'prepare' } });
    const state = prepared.ok === 'prepared' ? prepared.state : {};
    const made = server.kit.requestsTo('/:version/me/threads').length;
    expect(await publisher.deliver(job({ media: images(1) }, state))).toMatchObject({ ok: true });
    expect(server.kit.requestsTo('/:version/me/threads')).toHaveLength(made);
    expect(server.posts).toHaveLength(1);
  });

  it('a prepared container 23 hours old, or one Meta says EXPIRED, is made again at the due time: one post', async () => {
    const made = () => server.kit.requestsTo('/:version/me/threads', 'POST').length;
    const prepared = await publisher.prepare!(job());
    const state = prepared.ok === 'prepared' ? prepared.state : {};
    nowMs += 23 * 3_600_000 + 1;
    expect(await publisher.deliver(job({}, state))).toMatchObject({ ok: true });
    expect(made()).toBe(2);
    // A state that says it is young, of a container Meta let expire (24 hours unpublished).
    const again = await publisher.prepare!(job());
    nowMs += 25 * 3_600_000;
    const young = { ...(again.ok === 'prepared' ? again.state : {}), sinceMs: nowMs };
    expect(await publisher.deliver(job({}, young))).toMatchObject({ ok: true });
    expect(made()).toBe(4);
    expect(server.posts).toHaveLength(2);
  });

  it('a container published already (an answer lost) is never published again', async () => {
    const prepared = await publisher.prepare!(job());
    const state = prepared.ok === 'prepared' ? prepared.state : {};
    server.kit.hangAfterCreating({ route: '/:version/me/threads_publish' });
    await publisher.close?.();
    publisher = await open();
    // The first commit's answer is lost: the post is there.
    const short = await openShort();
    expect(await short.deliver(job({}, state))).toMatchObject({ ok: false, kind: 'unknown' });
    await short.close?.();
    expect(server.posts).toHaveLength(1);
    const again = await publisher.deliver(job({}, state));
    expect(again).toMatchObject({ ok: true });
    expect(server.posts).toHaveLength(1);
    expect(server.kit.requestsTo('/:version/me/threads_publish')).toHaveLength(1);
  });

  it('a policy block (368) is refused in Meta words; a revoked token asks for a reconnect', async () => {
    server.kit.answerNext(graphError(368, 'The action attempted has been deemed abusive'), {
      route: '/:version/me/threads_publish',
    });
    expect(await publisher.deliver(job())).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('deemed abusive'),
    });
    server.kit.revoke();
    expect(await publisher.deliver(job())).toMatchObject({ ok: false, kind: 'reconnect' });
  });
});

async function openShort(): Promise<Publisher> {
  const token = [...server.tokens.keys()].at(-1)!;
  const verified = await verifyThreads({
    endpoint: server.url,
    secret: token,
    tokens: { accessToken: token, refreshToken: token },
    userAgent: 'test',
    timeoutMs: 5_000,
  });
  return openThreads(
    { ...verified, channelId: 1 },
    {
      loadMedia: async () => {
        throw new Error('no');
      },
      saveSecret: async () => {},
      clock: { now: () => nowMs },
      log: () => {},
      timeoutMs: 300,
      userAgent: 'test',
    },
  );
}

describe('Threads: the text limit', () => {
  it('counts a character one and an emoji its UTF-8 bytes, and refuses past 500 before sending', async () => {
    expect(threadsTextLength('é'.repeat(10))).toBe(10);
    expect(threadsTextLength('😀')).toBe(4);
    expect(await publisher.deliver(job({ caption: 'a'.repeat(500) }))).toMatchObject({ ok: true });
    const asked = server.kit.log.length;
    const long = await publisher.deliver(job({ caption: `${'a'.repeat(497)}😀` }));
    expect(long).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('501 characters'),
    });
    expect(server.kit.log.length).toBe(asked);
  });
});

describe('Threads: the account and the sign-in', () => {
  it('verify reads @username and the profile address', async () => {
    const token = server.userToken();
    const verified = await verifyThreads({
      endpoint: server.url,
      secret: token,
      userAgent: 't',
      timeoutMs: 5_000,
    });
    expect(verified).toMatchObject({
      kind: 'threads',
      account: '@acme',
      accountId: THREADS_USER_ID,
      profileUrl: 'https://www.threads.net/@acme',
    });
    expect(tokensOf(verified.secret).accessToken).toBe(token);
  });

  it('exchanges a code for a long-lived token that is its own refresh token, and refreshes it after a day', async () => {
    const redirectUri = server.app.redirectUris[0]!;
    const address = threadsOAuth.authorizationUrl({
      endpoint: server.url,
      clientId: server.app.clientId,
      redirectUri,
      state: 's1',
      scopes: threadsOAuth.scopes,
    });
    expect(new URL(address).searchParams.get('scope')).toBe(
      'threads_basic,threads_content_publish,threads_manage_replies',
    );
    const landed = await fetch(address, { redirect: 'manual' });
    const code = new URL(landed.headers.get('location')!).searchParams.get('code')!;
    const client = { clientId: server.app.clientId, clientSecret: server.app.clientSecret };
    const http = { userAgent: 't', timeoutMs: 5_000 };
    const tokens = await threadsOAuth.exchangeCode({
      endpoint: server.url,
      code,
      redirectUri,
      ...client,
      ...http,
    });
    expect(server.tokens.get(tokens.accessToken)?.long).toBe(true);
    expect(tokens.refreshToken).toBe(tokens.accessToken);
    expect(tokens.expiresAtMs).toBeGreaterThan(Date.now() + 59 * 86_400_000);
    await expect(
      threadsOAuth.refresh!({ endpoint: server.url, refreshToken: tokens.accessToken, ...client, ...http }),
    ).rejects.toThrow(/24 hours old/);
    nowMs += 25 * 3_600_000;
    const fresh = await threadsOAuth.refresh!({
      endpoint: server.url,
      refreshToken: tokens.accessToken,
      ...client,
      ...http,
    });
    expect(fresh.refreshToken).toBe(fresh.accessToken);
    expect(fresh.accessToken).not.toBe(tokens.accessToken);
  });
});
