/**
 * Google Business Profile's own behaviour, against its stand-in (test/support/google-business-server.ts)
 * through the engine's pieces (ChannelConnectors opening the connector from the store, refreshSecret
 * coordinating the refresh, the secret sealed): the sign-in's hooks and the locations it offers, what
 * each post field becomes (counted at the stand-in, which downloads the photo as Google does), Google's
 * review (PROCESSING, then LIVE or REJECTED), its refusals (a project not approved yet, a scope
 * missing), the hour-long token refreshed, and a refresh token Google ended.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PostPayload } from '../../src/domain/post-schemas.js';
import { preflightChannel } from '../../src/domain/preflight.js';
import type { DeliveryJob, Publisher } from '../../src/ports.js';
import { ChannelConnectors } from '../../src/publish/channel-connectors.js';
import {
  capabilitiesOfGoogleBusiness,
  googleBusinessOAuth,
  verifyGoogleBusiness,
} from '../../src/publish/connectors/googlebusiness/business-account.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { type GoogleBusinessServer, startGoogleBusinessServer } from '../support/google-business-server.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';
import { saveConnection } from '../support/oauth-engine.js';
import { approve } from '../support/x-sign-in.js';

const HTTP = { userAgent: 'social-publisher-mcp/test', timeoutMs: 5_000 };
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(20_000)]);

/** A public host of the brand's media, as serve's signed addresses or a bucket would be. */
let media: Server;
let mediaRoot: string;
let mediaGets = 0;
beforeAll(async () => {
  media = createServer((request, response) => {
    mediaGets++;
    if (request.url === '/photo.png') {
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
      response.end(PNG);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => media.listen(0, '127.0.0.1', resolve));
  mediaRoot = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => media.close(() => resolve())));

let rt: TestRuntime;
let server: GoogleBusinessServer;
let channelId: number;
let connectors: ChannelConnectors;
/** What the engine's publicMediaUrl answers for an uploaded file; undefined: no public address. */
let publicBase: string | undefined;

beforeEach(async () => {
  rt = await openTestRuntime({ now: Date.now() });
  server = await startGoogleBusinessServer({
    now: () => rt.clock.now(),
    locations: [
      { account: '1001', id: '2002', title: 'Acme Coffee' },
      { account: '1001', id: '2003', title: 'Acme Roastery' },
    ],
  });
  channelId = (await rt.runtime.store.listChannels(1, { limit: 1, offset: 0 }))[0]!.id;
  publicBase = mediaRoot;
  mediaGets = 0;
});

afterEach(async () => {
  await connectors?.close();
  await server.close();
  await rt.close();
});

/** The channel connected to the location, as `connect googlebusiness --account …` stores it. */
async function connectChannel(
  tokens: { accessToken: string; refreshToken?: string; expiresAtMs?: number } = server.tokens(),
  settings: Record<string, unknown> = {},
) {
  const { store, secrets } = rt.runtime;
  const verified = await verifyGoogleBusiness({
    endpoint: server.url,
    secret: tokens.accessToken,
    tokens,
    account: 'locations/2003',
    ...HTTP,
  });
  await saveConnection(rt, channelId, verified, { ...settings, authRoot: server.url });
  connectors = new ChannelConnectors({
    store,
    secrets,
    fallback: new SandboxPublisher(store.sandbox, rt.clock),
    readEnv: () => undefined,
    oauthApps: { get: () => ({ ...server.signIn.app }) },
    context: {
      loadMedia: async () => {
        throw new Error('Google fetches the photo itself: nothing is uploaded.');
      },
      publicMediaUrl: async (_brandId, element) =>
        element.url ?? (publicBase && element.id ? `${publicBase}/${element.id}` : undefined),
      clock: rt.clock,
      log: () => undefined,
      timeoutMs: 2_000,
      userAgent: 'test',
    },
  });
  return verified;
}

let jobs = 0;
function job(content: Partial<DeliveryJob['content']> = {}): DeliveryJob {
  jobs++;
  return {
    deliveryId: jobs,
    postId: jobs,
    brandId: 1,
    channel: { id: channelId, name: 'Acme on Google', type: 'Google Business' },
    content: {
      platform: 'Google Business',
      format: 'feed',
      caption: `Fresh beans #${jobs}`,
      media: [],
      ...content,
    },
    idempotencyKey: `s-${jobs}`,
    dueAtMs: rt.clock.now(),
    attempt: 1,
    state: {},
  };
}

const publisher = (): Promise<Publisher> => connectors.forChannel(channelId);

describe("Google's sign-in and the locations it offers", () => {
  it('asks for offline access with consent and PKCE, and trades the code for tokens with a refresh token', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const url = googleBusinessOAuth.authorizationUrl({
      endpoint: server.url,
      clientId: server.signIn.app.clientId,
      redirectUri: 'http://127.0.0.1:8788/callback',
      state: 'st-1',
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      scopes: googleBusinessOAuth.scopes,
    });
    const query = new URL(url).searchParams;
    expect(Object.fromEntries(query)).toMatchObject({
      access_type: 'offline',
      prompt: 'consent',
      code_challenge_method: 'S256',
      scope: 'https://www.googleapis.com/auth/business.manage',
      response_type: 'code',
    });
    expect(new URL(url).pathname).toBe('/o/oauth2/v2/auth');
    const { code, state } = await approve(url);
    expect(state).toBe('st-1');
    const tokens = await googleBusinessOAuth.exchangeCode({
      endpoint: server.url,
      code,
      codeVerifier: verifier,
      redirectUri: 'http://127.0.0.1:8788/callback',
      ...server.signIn.app,
      ...HTTP,
    });
    expect(tokens.refreshToken).toMatch(/^1\/\//);
    expect(tokens.expiresAtMs).toBeGreaterThan(rt.clock.now() + 3_000_000);
    const again = await googleBusinessOAuth
      .exchangeCode({
        endpoint: server.url,
        code,
        codeVerifier: verifier,
        redirectUri: 'http://127.0.0.1:8788/callback',
        ...server.signIn.app,
        ...HTTP,
      })
      .catch((error: Error) => error.message);
    expect(again).toMatch(/^Google did not accept the sign-in's code \(invalid_grant/);
    expect(again).not.toContain(code);
  });

  it('lists every location of every account, page by page, each once', async () => {
    await server.close();
    const many = Array.from({ length: 23 }, (_, i) => ({
      account: '1001',
      id: String(3000 + i),
      title: `Shop ${i}`,
    }));
    server = await startGoogleBusinessServer({
      maxPageSize: 10,
      locations: [
        ...many,
        { account: '1002', id: '4000', title: 'Kiosk' },
        { account: '1002', id: '3000', title: 'Shop 0' },
      ],
    });
    const identities = await googleBusinessOAuth.identities!({
      endpoint: server.url,
      accessToken: server.tokens().accessToken,
      ...HTTP,
    });
    expect(identities).toHaveLength(24);
    expect(identities[0]).toEqual({ id: 'locations/3000', name: 'Shop 0', kind: 'location' });
    expect(identities.at(-1)).toEqual({ id: 'locations/4000', name: 'Kiosk', kind: 'location' });
    expect(server.requestsTo('/v1/accounts/:a/locations').length).toBe(4); // 3 pages of 10, then 1002's
  });

  it('picks the location by id, bare id or title, and lists them when none matches', async () => {
    const tokens = server.tokens();
    const verify = (account?: string) =>
      verifyGoogleBusiness({
        endpoint: server.url,
        secret: tokens.accessToken,
        tokens,
        ...HTTP,
        ...(account ? { account } : {}),
      });
    expect((await verify('locations/2003')).accountId).toBe('accounts/1001/locations/2003');
    expect((await verify('2002')).account).toBe('Acme Coffee');
    expect((await verify('acme roastery')).accountId).toBe('accounts/1001/locations/2003');
    await expect(verify('Nowhere')).rejects.toThrow(
      'The Google sign-in manages no location "Nowhere": give one of Acme Coffee (locations/2002), Acme Roastery (locations/2003) with --account.',
    );
    await expect(verify()).rejects.toThrow(/^Name the location to post to with --account/);
  });

  it('says when Google has not approved the project yet (a quota of 0), and what to do', async () => {
    server.setApproved(false);
    const tokens = server.tokens();
    const refused = await verifyGoogleBusiness({
      endpoint: server.url,
      secret: tokens.accessToken,
      tokens,
      ...HTTP,
    }).catch((error: Error) => error.message);
    expect(refused).toMatch(/^Google has not approved this app's Business Profile API access yet/);
    expect(refused).toContain('https://support.google.com/business/contact/api_default');
    expect(refused).not.toContain(tokens.accessToken);
  });
});

describe('a local post', () => {
  it('sends the caption as summary, the link as a Learn more button, the photo by its public address', async () => {
    await connectChannel(server.tokens(), { languageCode: 'en-GB' });
    const outcome = await (await publisher()).deliver(
      job({
        caption: 'New beans ☕ today',
        link: 'https://acme.example/beans',
        title: 'ignored',
        media: [{ id: 'photo.png', type: 'image/png' }],
      }),
    );
    expect(server.posts).toHaveLength(1);
    const [post] = server.posts;
    expect(post!.body).toEqual({
      languageCode: 'en-GB',
      summary: 'New beans ☕ today',
      topicType: 'STANDARD',
      callToAction: { actionType: 'LEARN_MORE', url: 'https://acme.example/beans' },
      media: [{ mediaFormat: 'PHOTO', sourceUrl: `${mediaRoot}/photo.png` }],
    });
    expect(post!.downloaded).toBe(PNG.length);
    expect(post!.location).toBe('2003');
    expect(outcome).toEqual({
      ok: true,
      externalId: post!.name,
      url: `https://local.google.com/place?id=2003&use=posts&lpsid=${post!.id}`,
    });
  });

  it('sends a text post with neither button nor media, and no language unless the connection sets one', async () => {
    await connectChannel();
    expect(await (await publisher()).deliver(job({ caption: 'Closed on Monday' }))).toMatchObject({
      ok: true,
    });
    expect(server.posts[0]!.body).toEqual({ summary: 'Closed on Monday', topicType: 'STANDARD' });
    expect(mediaGets).toBe(0);
  });

  it('refuses, before sending, a video, two photos, an uploaded photo without a public address, a long summary', async () => {
    await connectChannel();
    const connector = await publisher();
    const cases: [Partial<DeliveryJob['content']>, RegExp][] = [
      [{ media: [{ id: 'clip.mp4', type: 'video/mp4' }] }, /carry a JPEG or PNG photo, not video\/mp4/],
      [
        {
          media: [
            { id: 'a.png', type: 'image/png' },
            { id: 'b.png', type: 'image/png' },
          ],
        },
        /one photo, not 2/,
      ],
      [{ caption: 'x'.repeat(1_501) }, /too long for Google Business Profile: 1501 characters, at most 1500/],
    ];
    for (const [content, reason] of cases) {
      const outcome = await connector.deliver(job(content));
      expect(outcome).toMatchObject({ ok: false, kind: 'refused', reason: expect.stringMatching(reason) });
    }
    publicBase = undefined;
    expect(await connector.deliver(job({ media: [{ id: 'photo.png', type: 'image/png' }] }))).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('SOCIAL_PUBLISHER_PUBLIC_URL'),
    });
    expect(server.posts).toEqual([]);
  });

  it('fails as Google does when it cannot fetch the photo', async () => {
    await connectChannel();
    const outcome = await (await publisher()).deliver(job({ media: [{ url: `${mediaRoot}/gone.png` }] }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('could not be fetched'),
    });
  });

  it('waits while Google reviews the post, then reports it LIVE with its link', async () => {
    await server.close();
    server = await startGoogleBusinessServer({
      now: () => rt.clock.now(),
      reviewMs: 60_000,
      locations: [{ account: '1001', id: '2003', title: 'Acme Roastery' }],
    });
    await connectChannel(server.tokens(), {});
    const connector = await publisher();
    const first = job();
    const pending = await connector.deliver(first);
    expect(pending).toMatchObject({ ok: 'pending', reason: expect.stringContaining('PROCESSING') });
    if (pending.ok !== 'pending') throw new Error('not pending');
    expect(pending.checkAtMs).toBe(rt.clock.now() + 15_000);
    rt.clock.advance(15_000);
    const still = await connector.check!({ ...first, state: pending.state });
    expect(still).toMatchObject({ ok: 'pending' });
    rt.clock.advance(60_000);
    const done = await connector.check!({
      ...first,
      state: (still as { state: DeliveryJob['state'] }).state,
    });
    expect(done).toMatchObject({
      ok: true,
      externalId: server.posts[0]!.name,
      url: expect.stringContaining('lpsid='),
    });
    expect(server.posts).toHaveLength(1);
  });

  it("fails a post Google answers REJECTED, with Google's reason and what to do", async () => {
    await connectChannel();
    server.rejectNext();
    expect(await (await publisher()).deliver(job())).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringMatching(
        /Google rejected the local post of Acme Roastery \(state REJECTED\).*content policies/,
      ),
    });
  });

  it('is refused, saying what to do, when the project has no quota yet; reconnect when the scope is missing', async () => {
    await connectChannel();
    const connector = await publisher();
    server.setApproved(false);
    expect(await connector.deliver(job())).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('apply for Basic API Access'),
    });
    server.setApproved(true);
    const narrow = server.signIn.issue(['openid']);
    await connectors.close();
    await connectChannel(server.tokens());
    await rt.runtime.store.connections.save(
      channelId,
      {
        ...(await rt.runtime.store.connections.find(channelId))!,
        sealedSecret: rt.runtime.secrets.seal(JSON.stringify(narrow), channelId),
      },
      rt.clock.now() + 1,
    );
    expect(await (await publisher()).deliver(job())).toMatchObject({
      ok: false,
      kind: 'reconnect',
      reason: expect.stringContaining('for want of a permission'),
    });
  });

  it('refuses the auto-comment (local posts have none), and pre-flight says so', async () => {
    await connectChannel();
    expect(
      await (await publisher()).comment({
        deliveryId: 1,
        postId: 1,
        brandId: 1,
        channel: { id: channelId, name: 'Acme on Google', type: 'Google Business' },
        externalId: 'accounts/1001/locations/2003/localPosts/101',
        comment: 'First!',
        idempotencyKey: 'c-1',
      }),
    ).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('no comments on local posts'),
    });
    const payload = {
      publishMode: 'IMMEDIATE',
      caption: 'Hi',
      comment: { comment: 'First!', delay: 0 },
    } as PostPayload;
    const channel = {
      id: 1,
      name: 'Acme on Google',
      type: 'Google Business' as const,
      status: 'ACTIVE' as const,
      connector: 'googlebusiness',
      capabilities: capabilitiesOfGoogleBusiness(),
    };
    expect(preflightChannel(payload, channel, new Map()).map((warning) => warning.message)).toContain(
      'Google Business has no comments: the auto-comment is not posted there.',
    );
    const withComments = { ...channel, capabilities: { ...channel.capabilities, comments: true } };
    expect(preflightChannel(payload, withComments, new Map())).toEqual([]);
  });
});

describe("Google's tokens", () => {
  it('refreshes the hour-long token ahead of its expiry, keeping the refresh token Google does not renew', async () => {
    const tokens = server.tokens();
    await connectChannel(tokens);
    rt.clock.advance(3_599_000 - 60_000);
    expect(await (await publisher()).deliver(job())).toMatchObject({ ok: true });
    expect(server.signIn.refreshes).toBe(1);
    const stored = await rt.runtime.store.connections.find(channelId);
    const secret = JSON.parse(rt.runtime.secrets.open(stored!.sealedSecret!, channelId)) as Record<
      string,
      unknown
    >;
    expect(secret.refreshToken).toBe(tokens.refreshToken);
    expect(secret.accessToken).not.toBe(tokens.accessToken);
  });

  it('asks for a reconnect, saying why, when Google ended the refresh token (an app in Testing, after 7 days)', async () => {
    server.signIn.testingMode = true;
    await connectChannel();
    rt.clock.advance(8 * 24 * 3_600_000);
    const outcome = await (await publisher()).deliver(job());
    expect(outcome).toMatchObject({ ok: false, kind: 'reconnect' });
    expect((outcome as { reason: string }).reason).toContain('Token has been expired or revoked');
    expect((outcome as { reason: string }).reason).toContain('expire after 7 days');
    expect(server.posts).toEqual([]);
  });
});
