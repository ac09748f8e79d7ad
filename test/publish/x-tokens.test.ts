/**
 * An X channel's tokens, through the engine's own pieces (ChannelConnectors opening the connector from
 * the store, refreshSecret coordinating the refresh, the secret sealed in the store) against the X
 * stand-in's OAuth endpoints: the sign-in's hooks (authorization, code, PKCE, the 30-second code), a
 * token refreshed ahead of its expiry and after a 401 with the rotated refresh token stored, and a
 * refresh token spent already refused as X does, which asks for a reconnect with X's reason.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatLocalTime } from '../../src/domain/time.js';
import type { DeliveryJob, Publisher } from '../../src/ports.js';
import { ChannelConnectors } from '../../src/publish/channel-connectors.js';
import { verifyX } from '../../src/publish/connectors/x/x-account.js';
import { X_SCOPES, xOAuth, xTokenUrl } from '../../src/publish/connectors/x/x-oauth.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { saveConnection } from '../support/oauth-engine.js';
import { startXServer, type XServer } from '../support/x-server.js';
import { approve } from '../support/x-sign-in.js';

const HTTP = { userAgent: 'social-publisher-mcp/test', timeoutMs: 5_000 };
let rt: TestRuntime;
let server: XServer;
let channelId: number;
let connectors: ChannelConnectors;

beforeEach(async () => {
  rt = await openTestRuntime({ now: Date.now() });
  server = await startXServer({ now: () => rt.clock.now() });
  channelId = (await rt.runtime.store.listChannels(1, { limit: 1, offset: 0 }))[0]!.id;
});

afterEach(async () => {
  await connectors?.close();
  await server.close();
  await rt.close();
});

/** The channel connected to X with these tokens, as `connect x` stores it (with its --auth-root). */
async function connectChannel(tokens = server.tokens()): Promise<void> {
  const { store, secrets } = rt.runtime;
  const verified = await verifyX({ apiRoot: server.url, tokens });
  await saveConnection(rt, channelId, verified, { authRoot: server.url });
  connectors = new ChannelConnectors({
    store,
    secrets,
    fallback: new SandboxPublisher(store.sandbox, rt.clock),
    readEnv: () => undefined,
    oauthApps: {
      get: () => ({ clientId: server.signIn.app.clientId, clientSecret: server.signIn.app.clientSecret }),
    },
    context: {
      loadMedia: async () => {
        throw new Error('no media');
      },
      clock: rt.clock,
      log: () => undefined,
      timeoutMs: 2_000,
      userAgent: 'test',
    },
  });
}

async function storedTokens() {
  const stored = await rt.runtime.store.connections.find(channelId);
  return JSON.parse(rt.runtime.secrets.open(stored!.sealedSecret!, channelId)) as Record<string, unknown>;
}

let jobs = 0;
function job(caption: string): DeliveryJob {
  jobs++;
  return {
    deliveryId: jobs,
    postId: jobs,
    brandId: 1,
    channel: { id: channelId, name: 'Acme on X', type: 'X/Twitter' },
    content: { platform: 'X/Twitter', format: 'feed', caption, media: [] },
    idempotencyKey: `s-${jobs}`,
    dueAtMs: rt.clock.now(),
    attempt: 1,
    state: {},
  };
}

const publisher = (): Promise<Publisher> => connectors.forChannel(channelId);

describe("X's sign-in hooks", () => {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const redirectUri = 'http://127.0.0.1:8788/callback';

  function authorize(): string {
    return xOAuth.authorizationUrl({
      endpoint: server.url,
      clientId: server.signIn.app.clientId,
      redirectUri,
      state: 'st-1',
      codeChallenge: challenge,
      scopes: X_SCOPES,
    });
  }
  const exchange = (code: string, codeVerifier = verifier) =>
    xOAuth.exchangeCode({
      endpoint: server.url,
      code,
      codeVerifier,
      redirectUri,
      ...server.signIn.app,
      ...HTTP,
    });

  it("asks x.com's page and api.x.com's token endpoint, or both on another auth root", () => {
    const url = new URL(
      xOAuth.authorizationUrl({
        endpoint: 'https://x.com',
        clientId: 'cid',
        redirectUri,
        state: 's',
        codeChallenge: 'c',
        scopes: X_SCOPES,
      }),
    );
    expect(`${url.origin}${url.pathname}`).toBe('https://x.com/i/oauth2/authorize');
    expect(url.search).toContain(
      'scope=tweet.read%20tweet.write%20users.read%20media.write%20offline.access',
    );
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      code_challenge_method: 'S256',
      redirect_uri: redirectUri,
    });
    expect(authorize().startsWith(`${server.url}/i/oauth2/authorize?`)).toBe(true);
    expect(xTokenUrl('https://x.com')).toBe('https://api.x.com/2/oauth2/token');
    expect(xTokenUrl(`${server.url}/`)).toBe(`${server.url}/2/oauth2/token`);
  });

  it('trades the code for tokens with the PKCE verifier and the app credentials', async () => {
    const { code, state } = await approve(authorize());
    expect(state).toBe('st-1');
    const tokens = await exchange(code);
    expect(tokens).toMatchObject({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresAtMs: expect.any(Number),
      scope: X_SCOPES.join(' '),
    });
    const call = server.kit.requestsTo('/2/oauth2/token')[0]!;
    expect(Object.fromEntries(call.body.fields)).toEqual({
      code,
      grant_type: 'authorization_code',
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect(call.headers.authorization).toMatch(/^Basic /);
  });

  it('says what went wrong with a code, never repeating it or a secret', async () => {
    const { code } = await approve(authorize());
    const wrong = await exchange(code, 'another-verifier-of-43-characters-0000000000').catch(
      (e: Error) => e.message,
    );
    expect(wrong).toBe(
      "X did not accept the sign-in's code (invalid_request: Value passed for the code_verifier was invalid.): codes last 30 seconds and work once; sign in again, with the redirect URI registered in the app exactly as given.",
    );
    const late = await approve(authorize());
    rt.clock.advance(31_000);
    expect(await exchange(late.code).catch((e: Error) => e.message)).toMatch(
      /authorization code was invalid/,
    );
    const badApp = await xOAuth
      .exchangeCode({
        endpoint: server.url,
        code: late.code,
        redirectUri,
        clientId: 'x',
        clientSecret: 'nope-secret',
        ...HTTP,
      })
      .catch((e: Error) => e.message);
    expect(badApp).toMatch(/^X did not accept the app's credentials/);
    for (const message of [wrong, badApp]) {
      for (const secret of [code, verifier, server.signIn.app.clientSecret, 'nope-secret']) {
        expect(message).not.toContain(secret);
      }
    }
  });
});

describe('an X channel whose token expires', () => {
  it('refreshes ahead of the expiry, and stores the rotated refresh token', async () => {
    server.signIn.accessTokenSeconds = 60;
    const first = server.tokens();
    server.signIn.accessTokenSeconds = 7_200;
    await connectChannel(first);
    const outcome = await (await publisher()).deliver(job('Fresh'));
    expect(outcome).toMatchObject({ ok: true });
    expect(server.signIn.refreshes).toBe(1);
    const stored = await storedTokens();
    expect(stored.refreshToken).not.toBe(first.refreshToken);
    expect(stored.accessToken).not.toBe(first.accessToken);
    expect(server.posts).toHaveLength(1);
    // The post went with the new token: the old one was never sent to /2/tweets.
    expect(server.kit.requestsTo('/2/tweets')[0]!.headers.authorization).toBe(`Bearer ${stored.accessToken}`);
  });

  it('two processes sending at once with an expiring token refresh it once, and both posts go', async () => {
    server.signIn.accessTokenSeconds = 60;
    const first = server.tokens();
    server.signIn.accessTokenSeconds = 7_200;
    await connectChannel(first);
    // A second process's connectors on the same store (its own refresh owner, its own connector).
    const { store, secrets } = rt.runtime;
    const other = new ChannelConnectors({
      store,
      secrets,
      fallback: new SandboxPublisher(store.sandbox, rt.clock),
      readEnv: () => undefined,
      oauthApps: {
        get: () => ({ clientId: server.signIn.app.clientId, clientSecret: server.signIn.app.clientSecret }),
      },
      context: {
        loadMedia: async () => {
          throw new Error('no media');
        },
        clock: rt.clock,
        log: () => undefined,
        timeoutMs: 2_000,
        userAgent: 'test',
      },
    });
    try {
      const [a, b] = await Promise.all([
        publisher().then((p) => p.deliver(job('From one process'))),
        other.forChannel(channelId).then((p) => p.deliver(job('From another'))),
      ]);
      expect(a).toMatchObject({ ok: true });
      expect(b).toMatchObject({ ok: true });
      // One refresh: a second one with the same (rotating) refresh token would have killed the sign-in.
      expect(server.signIn.refreshes).toBe(1);
      expect(server.posts).toHaveLength(2);
      const stored = await storedTokens();
      for (const request of server.kit.requestsTo('/2/tweets')) {
        expect(request.headers.authorization).toBe(`Bearer ${stored.accessToken}`);
      }
    } finally {
      await other.close();
    }
  });

  it('refreshes ahead of a post due after its expiry (freshen), once; the send then needs none', async () => {
    server.signIn.accessTokenSeconds = 30 * 60;
    const first = server.tokens();
    server.signIn.accessTokenSeconds = 7_200;
    await connectChannel(first);
    // A post due in 10 minutes: the token still has 30 minutes, nothing to do.
    expect(await connectors.freshen(channelId, rt.clock.now() + 10 * 60_000)).toBe(false);
    expect(server.signIn.refreshes).toBe(0);
    // A post due in an hour: the token would be stale then, so it is refreshed now, once.
    expect(await connectors.freshen(channelId, rt.clock.now() + 60 * 60_000)).toBe(true);
    expect(await connectors.freshen(channelId, rt.clock.now() + 60 * 60_000)).toBe(false);
    expect(server.signIn.refreshes).toBe(1);
    const stored = await storedTokens();
    expect(stored.refreshToken).not.toBe(first.refreshToken);
    // The connector was opened again with the new token: the post goes without another refresh.
    rt.clock.set(rt.clock.now() + 60 * 60_000);
    expect(await (await publisher()).deliver(job('On time'))).toMatchObject({ ok: true });
    expect(server.signIn.refreshes).toBe(1);
    expect(server.kit.requestsTo('/2/tweets')[0]!.headers.authorization).toBe(`Bearer ${stored.accessToken}`);
  });

  it('the engine refreshes it while the post is still ahead, and the post goes at its second without one', async () => {
    server.signIn.accessTokenSeconds = 5 * 60;
    const first = server.tokens();
    server.signIn.accessTokenSeconds = 7_200;
    await connectChannel(first);
    const { store } = rt.runtime;
    const scheduler = new Scheduler({
      store,
      clock: rt.clock,
      publisher: new SandboxPublisher(store.sandbox, rt.clock),
      connectors,
    });
    const dueAtMs = rt.clock.now() + 10 * 60_000;
    await rt.service.createPost({
      brandId: 1,
      collectionId: 1,
      publishMode: 'SCHEDULE',
      scheduledAt: formatLocalTime(dueAtMs, 'America/New_York'),
      caption: 'At nine',
    });
    // Ten minutes ahead, in the engine's pass: the token (5 minutes left) is refreshed, nothing is sent.
    await scheduler.runOnce();
    expect(server.signIn.refreshes).toBe(1);
    expect(server.posts).toHaveLength(0);
    rt.clock.set(dueAtMs);
    await scheduler.runOnce();
    expect(server.posts).toHaveLength(1);
    expect(server.signIn.refreshes).toBe(1);
    await scheduler.stop();
  });

  it('refreshes after a 401 and sends the post once more, once', async () => {
    const first = server.tokens();
    await connectChannel(first);
    server.signIn.expire(first.accessToken);
    const outcome = await (await publisher()).deliver(job('After a 401'));
    expect(outcome).toMatchObject({ ok: true });
    expect(server.kit.requestsTo('/2/tweets').map((request) => request.status)).toEqual([401, 201]);
    expect(server.posts).toHaveLength(1);
    const stored = await storedTokens();
    expect(stored.refreshToken).not.toBe(first.refreshToken);
    // The next send takes the stored token without refreshing again.
    expect(await (await publisher()).deliver(job('Again'))).toMatchObject({ ok: true });
    expect(server.signIn.refreshes).toBe(1);
  });

  it('asks for a reconnect, with X’s reason, when the refresh token was spent already', async () => {
    const first = server.tokens();
    await connectChannel(first);
    // Another holder of the same sign-in refreshed with it: the stored refresh token is spent.
    const other = await xOAuth.refresh!({
      endpoint: server.url,
      refreshToken: first.refreshToken!,
      ...server.signIn.app,
      ...HTTP,
    });
    server.signIn.expire(first.accessToken);
    const outcome = await (await publisher()).deliver(job('Spent'));
    expect(outcome).toEqual({
      ok: false,
      kind: 'reconnect',
      reason:
        'X refused to renew the sign-in of this channel (X refused the refresh token (invalid_request: Value passed for the token was invalid.)): run social-publisher-mcp connect again.',
    });
    expect(server.posts).toEqual([]);
    expect(JSON.stringify(outcome)).not.toContain(first.refreshToken!);
    // X ends the whole sign-in on a reuse: the other holder's new tokens stop working too.
    await expect(verifyX({ apiRoot: server.url, tokens: other })).rejects.toThrow(/^X refused the sign-in/);
    await expect(
      xOAuth.refresh!({
        endpoint: server.url,
        refreshToken: other.refreshToken!,
        ...server.signIn.app,
        ...HTTP,
      }),
    ).rejects.toThrow('X refused the refresh token');
  });
});
