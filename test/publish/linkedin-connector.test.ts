/**
 * What is LinkedIn's own, against its loopback stand-in (test/support/linkedin-server.ts): what each post
 * field becomes on the wire, the sign-in and the identities, verify's messages, the version headers,
 * LinkedIn's refusals, and the token kept fresh (or the channel asked to reconnect).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlatformContent, PlatformMedia } from '../../src/domain/delivery.js';
import type { DeliveryJob, Publisher } from '../../src/ports.js';
import type { ConnectorContext, MediaSource, VerifiedConnection } from '../../src/publish/connector.js';
import { verifyLinkedIn } from '../../src/publish/connectors/linkedin/linkedin-account.js';
import { LINKEDIN_VERSION } from '../../src/publish/connectors/linkedin/linkedin-api.js';
import { openLinkedIn } from '../../src/publish/connectors/linkedin/linkedin-connector.js';
import { linkedinOAuth } from '../../src/publish/connectors/linkedin/linkedin-oauth.js';
import { tokensOf, tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import { contractJob } from '../support/connector-contract.js';
import {
  type LinkedInServer,
  MEMBER_URN,
  startLinkedInServer,
  VIDEO_PART_BYTES,
} from '../support/linkedin-server.js';

const DAY_MS = 86_400_000;
let server: LinkedInServer;
let nowMs: number;
let files: Map<string, MediaSource & { ranges: [number, number][]; blobs: number }>;
let saved: string[];
let publishers: Publisher[];

/** A media file of `size` bytes, counting how it is read. */
function file(id: string, type: string, name: string, size: number) {
  const source = mediaFromBytes(new Uint8Array(size).fill(7), type, name);
  const counted = { ...source, ranges: [] as [number, number][], blobs: 0 };
  counted.range = (start, end) => {
    counted.ranges.push([start, end]);
    return source.range(start, end);
  };
  counted.blob = () => {
    counted.blobs++;
    return source.blob();
  };
  files.set(id, counted);
  return { id, type } satisfies PlatformMedia;
}

function context(extra: Partial<ConnectorContext> = {}): ConnectorContext {
  return {
    loadMedia: async (_brand, media) => files.get(media.id ?? '')!,
    saveSecret: async (secret) => {
      saved.push(secret);
    },
    clock: { now: () => nowMs },
    log: () => {},
    timeoutMs: 5_000,
    userAgent: 'linkedin-test',
    ...extra,
  };
}

async function verified(account?: string, token = server.token): Promise<VerifiedConnection> {
  return verifyLinkedIn({
    endpoint: server.url,
    secret: token,
    tokens: { accessToken: token, expiresAtMs: nowMs + 60 * DAY_MS },
    ...(account === undefined ? {} : { account }),
    userAgent: 'linkedin-test',
    timeoutMs: 5_000,
  });
}

async function open(connection?: VerifiedConnection, extra: Partial<ConnectorContext> = {}) {
  const publisher = openLinkedIn({ ...(connection ?? (await verified())), channelId: 1 }, context(extra));
  publishers.push(publisher);
  return publisher;
}

function job(content: Partial<PlatformContent>, state: DeliveryJob['state'] = {}): DeliveryJob {
  const base = contractJob('LinkedIn');
  return { ...base, content: { ...base.content, ...content }, state };
}

// biome-ignore lint/suspicious/noExplicitAny: the posts are read as LinkedIn reads them, loosely
const lastPost = () => server.posts.at(-1)?.body as Record<string, any>;

beforeEach(async () => {
  nowMs = Date.UTC(2026, 10, 26, 9);
  server = await startLinkedInServer({ now: () => nowMs, refreshTokens: false });
  files = new Map();
  saved = [];
  publishers = [];
});

afterEach(async () => {
  await Promise.all(publishers.map((publisher) => publisher.close?.()));
  await server.close();
});

describe('what each post field becomes', () => {
  it("escapes little text's reserved characters, so that LinkedIn does not cut the post", async () => {
    const caption = 'Q&A (live) at #Acme: @you, *bold* _it_ ~x~ [a] {b} <c> | back\\slash — end';
    const outcome = await (await open()).deliver(job({ caption }));
    expect(outcome).toMatchObject({ ok: true });
    const commentary = lastPost().commentary as string;
    expect(commentary).toBe(
      'Q&A \\(live\\) at \\#Acme: \\@you, \\*bold\\* \\_it\\_ \\~x\\~ \\[a\\] \\{b\\} \\<c\\> \\| back\\\\slash — end',
    );
    // No reserved character is left without its backslash.
    expect(commentary.replace(/\\[\\|{}@[\]()<>#*_~]/g, '')).not.toMatch(/[\\|{}@[\]()<>#*_~]/);
  });

  it('a text post: author, public, main feed, published; the id from x-restli-id and its feed URL', async () => {
    const outcome = await (await open()).deliver(job({ caption: 'Hello' }));
    const [post] = server.posts;
    expect(post?.body).toEqual({
      author: MEMBER_URN,
      commentary: 'Hello',
      visibility: 'PUBLIC',
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      lifecycleState: 'PUBLISHED',
      isReshareDisabledByAuthor: false,
    });
    expect(outcome).toEqual({
      ok: true,
      externalId: post?.urn,
      url: `https://www.linkedin.com/feed/update/${post?.urn}`,
    });
  });

  it('a link without media becomes an article card titled by its host; with media it goes in the text', async () => {
    const publisher = await open();
    await publisher.deliver(job({ caption: 'Read this', link: 'https://example.com/a' }));
    expect(lastPost()).toMatchObject({
      commentary: 'Read this',
      content: { article: { source: 'https://example.com/a', title: 'example.com' } },
    });
    await publisher.deliver(
      job({ caption: 'Look', link: 'https://example.com/b', media: [file('i', 'image/png', 'i.png', 10)] }),
    );
    expect(lastPost().commentary).toBe('Look\n\nhttps://example.com/b');
    expect(lastPost().content.article).toBeUndefined();
  });

  it('one image: initializeUpload, its bytes PUT to the upload URL, content.media with the alt text', async () => {
    await (await open()).deliver(job({ alt: 'A cat', media: [file('one', 'image/jpeg', 'cat.jpg', 1_234)] }));
    const [upload] = [...server.uploads.values()];
    expect(upload).toMatchObject({ kind: 'image', owner: MEMBER_URN, bytes: 1_234, status: 'AVAILABLE' });
    expect(lastPost().content).toEqual({ media: { id: upload?.urn, altText: 'A cat' } });
  });

  it('several images: a multiImage post, in order', async () => {
    const media = [file('a', 'image/png', 'a.png', 10), file('b', 'image/jpeg', 'b.jpg', 20)];
    await (await open()).deliver(job({ media }));
    const urns = [...server.uploads.values()].map((upload) => upload.urn);
    expect(lastPost().content).toEqual({ multiImage: { images: urns.map((id) => ({ id })) } });
  });

  it('a PDF: the Documents API, content.media with the file name as title', async () => {
    await (await open()).deliver(job({ media: [file('pdf', 'application/pdf', 'deck.pdf', 5_000)] }));
    const [upload] = [...server.uploads.values()];
    expect(upload).toMatchObject({ kind: 'document', bytes: 5_000 });
    expect(upload?.urn).toMatch(/^urn:li:document:/);
    expect(lastPost().content).toEqual({ media: { id: upload?.urn, title: 'deck.pdf' } });
  });

  it('a poll: question, options and duration', async () => {
    const poll = { question: 'Which one?', options: ['Red', 'Blue', 'Green'], period: '3d' as const };
    await (await open()).deliver(job({ caption: 'Vote', poll }));
    expect(lastPost().content).toEqual({
      poll: {
        question: 'Which one?',
        options: [{ text: 'Red' }, { text: 'Blue' }, { text: 'Green' }],
        settings: { duration: 'THREE_DAYS' },
      },
    });
  });

  it('a video: parts of 4 MiB read one range at a time, finalized with their ETags, pending while processing', async () => {
    await server.close();
    server = await startLinkedInServer({ now: () => nowMs, videoProcessingMs: 30_000 });
    const size = 2 * VIDEO_PART_BYTES + 1_000;
    const video = file('v', 'video/mp4', 'clip.mp4', size);
    const publisher = await open();
    const first = await publisher.deliver(job({ caption: 'Watch', media: [video] }));
    expect(first).toMatchObject({
      ok: 'pending',
      checkAtMs: expect.any(Number),
      reason: expect.stringMatching(/processing/),
    });
    expect(server.posts).toEqual([]);
    const [upload] = [...server.uploads.values()];
    expect(upload?.parts).toEqual([VIDEO_PART_BYTES, VIDEO_PART_BYTES, 1_000]);
    const counted = files.get('v')!;
    expect(counted.blobs).toBe(0);
    expect(counted.ranges).toEqual([
      [0, VIDEO_PART_BYTES],
      [VIDEO_PART_BYTES, 2 * VIDEO_PART_BYTES],
      [2 * VIDEO_PART_BYTES, size],
    ]);
    const finalize = server.kit.requestsTo('/rest/videos', 'POST').at(-1);
    const finalized = finalize?.body.json as { finalizeUploadRequest?: { uploadedPartIds?: string[] } };
    expect(finalized.finalizeUploadRequest?.uploadedPartIds).toHaveLength(3);
    if (first.ok !== 'pending') return;
    const still = await publisher.check!(job({ caption: 'Watch', media: [video] }, first.state));
    expect(still).toMatchObject({ ok: 'pending' });
    nowMs += 31_000;
    const done = await publisher.check!(job({ caption: 'Watch', media: [video] }, first.state));
    expect(done).toMatchObject({ ok: true, externalId: server.posts[0]?.urn });
    expect(lastPost().content).toEqual({ media: { id: upload?.urn, title: 'clip.mp4' } });
    expect(server.uploads.size).toBe(1);
  });

  it('prepare uploads ahead, and the commit posts with what was prepared, uploading nothing again', async () => {
    const publisher = await open();
    const media = [file('p', 'image/png', 'p.png', 99)];
    const prepared = await publisher.prepare!(job({ media }));
    expect(prepared).toMatchObject({ ok: 'prepared', expiresAtMs: expect.any(Number) });
    expect(server.posts).toEqual([]);
    if (prepared.ok !== 'prepared') return;
    await publisher.deliver(job({ media }, prepared.state));
    expect(server.uploads.size).toBe(1);
    expect(lastPost().content.media.id).toBe([...server.uploads.keys()][0]);
  });

  it('the comment: on the post, as its author, escaped', async () => {
    const publisher = await open();
    const sent = await publisher.deliver(job({ caption: 'Post' }));
    const urn = sent.ok === true ? sent.externalId : null;
    const outcome = await publisher.comment({
      deliveryId: 1,
      postId: 1,
      brandId: 1,
      channel: { id: 1, name: 'LinkedIn', type: 'LinkedIn' },
      externalId: urn,
      comment: 'More at #docs (soon)',
      idempotencyKey: 'c-1',
    });
    expect(outcome).toMatchObject({ ok: true });
    expect(server.comments).toEqual([
      {
        post: urn,
        body: { actor: MEMBER_URN, object: urn, message: { text: 'More at \\#docs \\(soon\\)' } },
      },
    ]);
  });
});

describe('headers and refusals', () => {
  it('every API call carries LinkedIn-Version (the default, or the connection setting) and Rest.li 2.0.0', async () => {
    await (await open()).deliver(job({ media: [file('h', 'image/png', 'h.png', 5)] }));
    const api = server.kit.log.filter((request) => request.path.startsWith('/rest/'));
    expect(api.length).toBeGreaterThan(1);
    for (const request of api) {
      expect(request.headers['linkedin-version']).toBe(LINKEDIN_VERSION);
      expect(request.headers['x-restli-protocol-version']).toBe('2.0.0');
    }
    const connection = await verified();
    const pinned = await open({
      ...connection,
      settings: { ...connection.settings, linkedinVersion: '202509' },
    });
    await pinned.deliver(job({ caption: 'pinned' }));
    expect(server.kit.requestsTo('/rest/posts').at(-1)?.headers['linkedin-version']).toBe('202509');
  });

  it('a retired version is refused, saying to set linkedinVersion', async () => {
    const connection = await verified();
    const old = await open({
      ...connection,
      settings: { ...connection.settings, linkedinVersion: '202306' },
    });
    const outcome = await old.deliver(job({ caption: 'old' }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('linkedinVersion'),
    });
    expect(outcome).toMatchObject({ reason: expect.stringContaining('NONEXISTENT_VERSION') });
  });

  it("a duplicate post is refused in LinkedIn's words", async () => {
    const publisher = await open();
    await publisher.deliver(job({ caption: 'Same words' }));
    const again = await publisher.deliver(job({ caption: 'Same words' }));
    expect(again).toMatchObject({ ok: false, kind: 'refused' });
    expect(again).toMatchObject({ reason: expect.stringContaining('DUPLICATE_POST') });
    expect(again).toMatchObject({ reason: expect.stringContaining(server.posts[0]!.urn) });
  });

  it('a missing permission (403 ACCESS_DENIED) asks for a reconnect granting it', async () => {
    const memberOnly = server.issueToken('openid profile');
    const publisher = await open(await verified(undefined, memberOnly));
    const outcome = await publisher.deliver(job({ caption: 'No scope' }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'reconnect',
      reason: expect.stringContaining('w_member_social'),
    });
  });
});

describe('the sign-in, the identities and verify', () => {
  const http = { userAgent: 'linkedin-test', timeoutMs: 5_000 };
  const redirectUri = 'http://127.0.0.1:8788/callback';

  it('authorizes, exchanges the code once, and refuses it a second time or with a wrong secret', async () => {
    const url = linkedinOAuth.authorizationUrl({
      endpoint: server.url,
      clientId: server.clientId,
      redirectUri,
      state: 'st-1',
      scopes: linkedinOAuth.scopes,
    });
    expect(new URL(url).pathname).toBe('/oauth/v2/authorization');
    // The member's scopes only: asking for a page's scope an app lacks fails LinkedIn's whole sign-in.
    expect(new URL(url).searchParams.get('scope')).toBe('openid profile w_member_social');
    // The pages' scopes too once a page is named (--account); not for the member.
    expect(linkedinOAuth.scopesFor?.('Acme Corp')).toEqual([
      'openid',
      'profile',
      'w_member_social',
      'w_organization_social',
      'r_organization_social',
      'rw_organization_admin',
    ]);
    expect(linkedinOAuth.scopesFor?.('urn:li:person:abc')).toEqual(['openid', 'profile', 'w_member_social']);
    expect(linkedinOAuth.scopesFor?.(undefined)).toEqual(['openid', 'profile', 'w_member_social']);
    const { code, state } = await server.approve(url);
    expect(state).toBe('st-1');
    const client = { clientId: server.clientId, clientSecret: server.clientSecret };
    const tokens = await linkedinOAuth.exchangeCode({
      endpoint: server.url,
      code,
      redirectUri,
      ...client,
      ...http,
    });
    expect(tokens.accessToken).toMatch(/\S/);
    expect(tokens.refreshToken).toBeUndefined();
    expect(tokens.expiresAtMs).toBeGreaterThan(Date.now() + 59 * DAY_MS);
    const exchange = server.kit.requestsTo('/oauth/v2/accessToken')[0];
    expect(Object.fromEntries(exchange?.body.fields ?? [])).toMatchObject({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: server.clientId,
      client_secret: server.clientSecret,
    });
    const again = linkedinOAuth.exchangeCode({ endpoint: server.url, code, redirectUri, ...client, ...http });
    await expect(again).rejects.toThrow(/did not accept the code/);
    const fresh = await server.approve(url);
    const wrong = linkedinOAuth.exchangeCode({
      endpoint: server.url,
      code: fresh.code,
      redirectUri,
      ...client,
      clientSecret: 'not-the-secret',
      ...http,
    });
    await expect(wrong).rejects.toThrow(/did not accept the app's credentials.*client secret/);
    await expect(wrong).rejects.not.toThrow(/not-the-secret/);
  });

  it('refuses an expired code', async () => {
    const url = linkedinOAuth.authorizationUrl({
      endpoint: server.url,
      clientId: server.clientId,
      redirectUri,
      state: 's',
      scopes: ['openid'],
    });
    const { code } = await server.approve(url);
    nowMs += 31 * 60_000;
    const late = linkedinOAuth.exchangeCode({
      endpoint: server.url,
      code,
      redirectUri,
      clientId: server.clientId,
      clientSecret: server.clientSecret,
      ...http,
    });
    await expect(late).rejects.toThrow(/did not accept the code/);
  });

  it('lists the member and the pages they administer, named', async () => {
    const identities = await linkedinOAuth.identities!({
      endpoint: server.url,
      accessToken: server.token,
      ...http,
    });
    expect(identities).toEqual([
      { id: MEMBER_URN, name: 'Ada Lovelace', kind: 'member' },
      { id: 'urn:li:organization:2414183', name: 'Acme Corp', kind: 'organization' },
    ]);
    const memberOnly = server.issueToken('openid profile w_member_social');
    expect(
      await linkedinOAuth.identities!({ endpoint: server.url, accessToken: memberOnly, ...http }),
    ).toEqual([{ id: MEMBER_URN, name: 'Ada Lovelace', kind: 'member' }]);
  });

  it('verify: the member, or a page by URN or name; the tokens become the secret', async () => {
    const member = await verified();
    expect(member).toMatchObject({
      kind: 'linkedin',
      account: 'Ada Lovelace',
      accountId: MEMBER_URN,
      endpoint: server.url,
      profileUrl: null,
      settings: { author: MEMBER_URN },
    });
    expect(tokensOf(member.secret).accessToken).toBe(server.token);
    for (const account of ['urn:li:organization:2414183', 'Acme Corp']) {
      expect(await verified(account)).toMatchObject({
        account: 'Acme Corp',
        accountId: 'urn:li:organization:2414183',
        profileUrl: 'https://www.linkedin.com/company/2414183/',
        settings: { author: 'urn:li:organization:2414183' },
      });
    }
    const page = await open(await verified('Acme Corp'));
    await page.deliver(job({ caption: 'As the page' }));
    expect(lastPost().author).toBe('urn:li:organization:2414183');
  });

  it("verify's messages: a page not administered, no pages at all, a revoked token", async () => {
    await expect(verified('Other Inc')).rejects.toThrow(
      /does not administer a LinkedIn page "Other Inc".*Acme Corp \(urn:li:organization:2414183\)/,
    );
    const memberOnly = server.issueToken('openid profile w_member_social');
    await expect(verified('Acme Corp', memberOnly)).rejects.toThrow(/Community Management API/);
    server.kit.revoke(server.token);
    const revoked = verified();
    await expect(revoked).rejects.toThrow(/refused the sign-in.*revoked/);
    await expect(revoked).rejects.not.toThrow(server.token);
  });
});

describe('the token', () => {
  it('expired, without a refresh token: reconnect with the reason, nothing sent', async () => {
    const connection = await verified();
    const expired = tokensSecret({ accessToken: server.token, expiresAtMs: nowMs - 1_000 });
    const publisher = await open({ ...connection, secret: expired });
    const outcome = await publisher.deliver(job({ caption: 'Too late' }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'reconnect',
      reason: expect.stringMatching(/expired and cannot be renewed/),
    });
    expect(server.kit.requestsTo('/rest/posts')).toEqual([]);
  });

  it('with a refresh token (partner apps): refreshed once ahead of expiry, stored, and used', async () => {
    await server.close();
    server = await startLinkedInServer({ now: () => nowMs, refreshTokens: true });
    const url = linkedinOAuth.authorizationUrl({
      endpoint: server.url,
      clientId: server.clientId,
      redirectUri: 'http://127.0.0.1:8788/callback',
      state: 's',
      scopes: linkedinOAuth.scopes,
    });
    const client = { clientId: server.clientId, clientSecret: server.clientSecret };
    const tokens = await linkedinOAuth.exchangeCode({
      endpoint: server.url,
      code: (await server.approve(url)).code,
      redirectUri: 'http://127.0.0.1:8788/callback',
      ...client,
      userAgent: 't',
      timeoutMs: 5_000,
    });
    expect(tokens.refreshToken).toMatch(/\S/);
    const connection = await verified(undefined, tokens.accessToken);
    const nearlyExpired = { ...tokens, expiresAtMs: nowMs + 60_000 };
    const publisher = await open(
      {
        ...connection,
        secret: tokensSecret(nearlyExpired),
        settings: { ...connection.settings, authRoot: server.url },
      },
      {
        oauthClient: () => client,
        refreshSecret: async ({ stale, refresh }) => {
          const fresh = await refresh(stale);
          saved.push(fresh);
          return fresh;
        },
      },
    );
    expect(await publisher.deliver(job({ caption: 'One' }))).toMatchObject({ ok: true });
    expect(await publisher.deliver(job({ caption: 'Two' }))).toMatchObject({ ok: true });
    const refreshes = server.kit.requestsTo('/oauth/v2/accessToken').slice(1);
    expect(refreshes).toHaveLength(1);
    expect(Object.fromEntries(refreshes[0]?.body.fields ?? [])).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: tokens.refreshToken,
    });
    expect(saved).toHaveLength(1);
    const renewed = tokensOf(saved[0]!);
    expect(renewed.refreshToken).toBe(tokens.refreshToken);
    const sentWith = server.kit.requestsTo('/rest/posts').map((request) => request.headers.authorization);
    expect(sentWith).toEqual([`Bearer ${renewed.accessToken}`, `Bearer ${renewed.accessToken}`]);
  });

  it('refused (401) mid-life: refreshed once and the call retried', async () => {
    await server.close();
    server = await startLinkedInServer({ now: () => nowMs, refreshTokens: true });
    const url = linkedinOAuth.authorizationUrl({
      endpoint: server.url,
      clientId: server.clientId,
      redirectUri: 'http://127.0.0.1:8788/callback',
      state: 's',
      scopes: linkedinOAuth.scopes,
    });
    const client = { clientId: server.clientId, clientSecret: server.clientSecret };
    const tokens = await linkedinOAuth.exchangeCode({
      endpoint: server.url,
      code: (await server.approve(url)).code,
      redirectUri: 'http://127.0.0.1:8788/callback',
      ...client,
      userAgent: 't',
      timeoutMs: 5_000,
    });
    const connection = await verified(undefined, tokens.accessToken);
    const publisher = await open(
      {
        ...connection,
        secret: tokensSecret(tokens),
        settings: { ...connection.settings, authRoot: server.url },
      },
      { oauthClient: () => client, refreshSecret: async ({ stale, refresh }) => refresh(stale) },
    );
    server.kit.revoke(tokens.accessToken);
    expect(await publisher.deliver(job({ caption: 'After 401' }))).toMatchObject({ ok: true });
    expect(server.kit.requestsTo('/rest/posts').map((request) => request.status)).toEqual([401, 201]);
    expect(server.posts).toHaveLength(1);
  });
});
