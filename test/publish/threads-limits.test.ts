/**
 * Threads' limits against its stand-in (test/support/threads-server.ts): the 250 posts a profile may
 * publish in 24 hours read from `threads_publishing_limit` before a publish, the 500 characters counted
 * as Threads counts them by the pre-flight and by the stand-in alike, a poll's question in the text (a
 * Threads poll has options only), and the 60-day token renewed by a post of its second month.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryJob, Publisher } from '../../src/ports.js';
import type { ConnectorContext } from '../../src/publish/connector.js';
import { tokensOf, tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import { verifyThreads } from '../../src/publish/connectors/threads/threads-account.js';
import { openThreads } from '../../src/publish/connectors/threads/threads-connector.js';
import { connectedChannel, deliverChecked, post } from '../support/checked-delivery.js';
import { contractJob } from '../support/connector-contract.js';
import { startThreadsServer, type ThreadsServer } from '../support/threads-server.js';

const DAY_MS = 86_400_000;
let server: ThreadsServer;
let nowMs: number;
let publishers: Publisher[];
/** The secret the engine stored after a refresh. */
let stored: string | undefined;

function context(): ConnectorContext {
  return {
    loadMedia: async () => {
      throw new Error('no media here');
    },
    saveSecret: async () => {},
    refreshSecret: async ({ stale, refresh }) => {
      stored = await refresh(stale);
      return stored;
    },
    oauthClient: () => ({ clientId: server.app.clientId, clientSecret: server.app.clientSecret }),
    clock: { now: () => nowMs },
    log: () => {},
    timeoutMs: 5_000,
    userAgent: 'threads-limits-test',
  };
}

async function open(token = server.userToken(), expiresAtMs?: number) {
  const tokens = { accessToken: token, refreshToken: token, ...(expiresAtMs ? { expiresAtMs } : {}) };
  const verified = await verifyThreads({
    endpoint: server.url,
    secret: tokensSecret(tokens),
    tokens,
    userAgent: 'threads-limits-test',
    timeoutMs: 5_000,
  });
  const publisher = openThreads({ ...verified, settings: { authRoot: server.url }, channelId: 1 }, context());
  publishers.push(publisher);
  return { publisher, verified };
}

function job(content: Partial<DeliveryJob['content']> = {}): DeliveryJob {
  const base = contractJob('Threads', 'Fresh beans today');
  return { ...base, content: { ...base.content, ...content } };
}

beforeEach(async () => {
  nowMs = Date.UTC(2027, 0, 5, 9);
  stored = undefined;
  publishers = [];
});

afterEach(async () => {
  await Promise.all(publishers.map((publisher) => publisher.close?.()));
  await server.close();
});

describe('the publishing quota', () => {
  it('read before each publish: spent, the post waits (rate limited) with the reason, nothing published', async () => {
    server = await startThreadsServer({ now: () => nowMs, publishQuota: 2 });
    const { publisher } = await open();
    expect(await publisher.deliver(job({ caption: 'one' }))).toMatchObject({ ok: true });
    expect(await publisher.deliver(job({ caption: 'two' }))).toMatchObject({ ok: true });
    const third = await publisher.deliver(job({ caption: 'three' }));
    expect(third).toEqual({
      ok: false,
      kind: 'rate_limited',
      retryAfterMs: 3_600_000,
      reason:
        'Threads lets @acme publish 2 posts in 24 hours, and 2 were published: the post waits until Threads allows more.',
    });
    expect(server.posts).toHaveLength(2);
    expect(server.kit.requestsTo('/:version/me/threads_publishing_limit')).toHaveLength(3);
    expect(server.kit.requestsTo('/:version/me/threads_publish')).toHaveLength(2);
    // A day later the window has room again.
    nowMs += DAY_MS + 1;
    expect(await publisher.deliver(job({ caption: 'three' }))).toMatchObject({ ok: true });
  });

  it('a quota that cannot be read holds nothing up; Meta’s own refusal past it is rate limited too', async () => {
    server = await startThreadsServer({ now: () => nowMs, publishQuota: 1 });
    const { publisher } = await open();
    server.kit.failNext(500, undefined, { route: '/:version/me/threads_publishing_limit' });
    expect(await publisher.deliver(job({ caption: 'one' }))).toMatchObject({ ok: true });
    server.kit.failNext(500, undefined, { route: '/:version/me/threads_publishing_limit' });
    expect(await publisher.deliver(job({ caption: 'two' }))).toMatchObject({
      ok: false,
      kind: 'rate_limited',
    });
    expect(server.posts).toHaveLength(1);
  });
});

describe('what the text is', () => {
  beforeEach(async () => {
    server = await startThreadsServer({ now: () => nowMs });
  });

  it('500 as Threads counts (an emoji its UTF-8 bytes): pre-flight quiet and taken at 500, both refuse 501', async () => {
    const { publisher, verified } = await open();
    const to = connectedChannel(verified, 'Threads', publisher);
    const caption = `${'😀'.repeat(120)}${'a'.repeat(20)}`;
    const atLimit = await deliverChecked(to, post({ caption }));
    expect(atLimit).toMatchObject({ fails: [], length: 500, outcome: { ok: true } });
    expect(server.posts.at(-1)?.text).toBe(caption);
    const over = await deliverChecked(to, post({ caption: `${caption}a` }));
    expect(over.fails).toEqual([
      expect.stringMatching(
        /^The text is 501 characters as Threads counts them \(an emoji counts its UTF-8 bytes\); Threads takes at most 500\./,
      ),
    ]);
    expect(over.outcome).toMatchObject({ ok: false, kind: 'refused' });
    expect(server.posts).toHaveLength(1);
  });

  it('a poll’s question is the text (the poll has options only), unless the caption asks it', async () => {
    const { publisher, verified } = await open();
    const poll = { question: 'Which roast?', options: ['Dark', 'Light'], period: '1d' as const };
    const checked = await deliverChecked(
      connectedChannel(verified, 'Threads', publisher),
      post({ caption: 'Fresh beans today', poll }),
    );
    expect(server.posts.at(-1)?.text).toBe('Fresh beans today\n\nWhich roast?');
    expect(checked.measured).toBe(server.posts.at(-1)?.text);
    await publisher.deliver(job({ caption: 'Which roast? Vote!', poll }));
    expect(server.posts.at(-1)?.text).toBe('Which roast? Vote!');
    expect([...server.containers.values()].at(-1)?.poll).toEqual({ option_a: 'Dark', option_b: 'Light' });
  });
});

describe('the 60-day token', () => {
  beforeEach(async () => {
    server = await startThreadsServer({ now: () => nowMs });
  });

  it('is renewed by a post once 30 days are left, and the post goes with the new token', async () => {
    const token = server.userToken(31 * DAY_MS);
    const { publisher } = await open(token, nowMs + 29 * DAY_MS);
    expect(await publisher.deliver(job())).toMatchObject({ ok: true });
    expect(server.kit.requestsTo('/refresh_access_token')).toHaveLength(1);
    const fresh = tokensOf(stored!);
    expect(fresh.accessToken).not.toBe(token);
    expect(fresh.expiresAtMs).toBeGreaterThan(Date.now() + 59 * DAY_MS);
    const published = server.kit.requestsTo('/:version/me/threads_publish').at(-1)!;
    expect(published.headers.authorization).toBe(`Bearer ${fresh.accessToken}`);
  });

  it('is left alone with more than 30 days left; a renewal Meta refuses leaves the token in hand', async () => {
    const young = server.userToken(DAY_MS);
    const { publisher } = await open(young, nowMs + 59 * DAY_MS);
    expect(await publisher.deliver(job())).toMatchObject({ ok: true });
    expect(server.kit.requestsTo('/refresh_access_token')).toHaveLength(0);
    const old = server.userToken(31 * DAY_MS);
    const second = await open(old, nowMs + 29 * DAY_MS);
    server.kit.failNext(400, 'Refresh refused', { route: '/refresh_access_token' });
    expect(await second.publisher.deliver(job({ caption: 'still' }))).toMatchObject({ ok: true });
    expect(server.kit.requestsTo('/refresh_access_token')).toHaveLength(1);
    expect(server.kit.requestsTo('/:version/me/threads_publish').at(-1)?.headers.authorization).toBe(
      `Bearer ${old}`,
    );
  });
});
