/**
 * What is Facebook's own, against its loopback Graph API stand-in (test/support/facebook-server.ts):
 * what each post field becomes on the wire, photos and videos as bytes, the steps (prepare, pending
 * video), the sign-in and the Pages, verify's messages, and Meta's refusals as the engine's kinds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlatformContent, PlatformMedia } from '../../src/domain/delivery.js';
import type { DeliveryJob, Publisher } from '../../src/ports.js';
import type { ConnectorContext, MediaSource, VerifiedConnection } from '../../src/publish/connector.js';
import { verifyFacebook } from '../../src/publish/connectors/facebook/facebook-account.js';
import { openFacebook } from '../../src/publish/connectors/facebook/facebook-connector.js';
import {
  FACEBOOK_SCOPES,
  facebookOAuth,
  facebookTokenUrl,
} from '../../src/publish/connectors/facebook/facebook-oauth.js';
import { RESUMABLE_FROM_BYTES } from '../../src/publish/connectors/facebook/facebook-video.js';
import { GRAPH_API_VERSION } from '../../src/publish/connectors/meta/graph.js';
import { tokensOf } from '../../src/publish/connectors/oauth-tokens.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import { contractJob } from '../support/connector-contract.js';
import {
  CODE_LIFETIME_MS,
  type FacebookServer,
  graphError,
  startFacebookServer,
} from '../support/facebook-server.js';

let server: FacebookServer;
let nowMs: number;
let files: Map<string, MediaSource & { blobs: number }>;
let publishers: Publisher[];

/** A media file of `size` bytes, counting how often it is opened as a Blob. */
function file(id: string, type: string, size: number) {
  const source = mediaFromBytes(new Uint8Array(size).fill(7), type, `${id}.${type.split('/')[1]}`);
  const counted = { ...source, blobs: 0 };
  counted.blob = () => {
    counted.blobs++;
    return source.blob();
  };
  files.set(id, counted);
  return { id, type } satisfies PlatformMedia;
}

function context(): ConnectorContext {
  return {
    loadMedia: async (_brand, media) => files.get(media.id ?? '')!,
    saveSecret: async () => {},
    clock: { now: () => nowMs },
    log: () => {},
    timeoutMs: 5_000,
    userAgent: 'facebook-test',
  };
}

const verify = (account?: string, token = server.userToken()) =>
  verifyFacebook({
    endpoint: server.url,
    secret: token,
    tokens: { accessToken: token },
    ...(account === undefined ? {} : { account }),
    userAgent: 'facebook-test',
    timeoutMs: 5_000,
  });

async function open(connection?: VerifiedConnection) {
  const publisher = openFacebook(
    { ...(connection ?? (await verify(server.main.id))), channelId: 1 },
    context(),
  );
  publishers.push(publisher);
  return publisher;
}

function job(content: Partial<PlatformContent>, state: DeliveryJob['state'] = {}): DeliveryJob {
  const base = contractJob('Facebook');
  return { ...base, content: { ...base.content, ...content }, state };
}

const fields = (route: string) => new Map(server.kit.requestsTo(route).at(-1)?.body.fields ?? []);

beforeEach(async () => {
  nowMs = Date.UTC(2026, 10, 26, 9);
  server = await startFacebookServer({ now: () => nowMs });
  files = new Map();
  publishers = [];
});

afterEach(async () => {
  await Promise.all(publishers.map((publisher) => publisher.close?.()));
  await server.close();
});

describe('what each post field becomes', () => {
  it('a text post: message and link on /feed, with the Page token, the permalink read after write', async () => {
    const outcome = await (await open()).deliver(
      job({ caption: 'Fresh beans', link: 'https://acme.test/beans' }),
    );
    const post = server.posts.at(-1)!;
    expect(post).toMatchObject({ kind: 'feed', message: 'Fresh beans', link: 'https://acme.test/beans' });
    expect(outcome).toEqual({
      ok: true,
      externalId: post.id,
      url: `https://www.facebook.com/${post.id.replace('_', '/posts/')}`,
    });
    const request = server.kit.requestsTo('/:version/:page/feed').at(-1)!;
    expect(request.path).toBe(`/${GRAPH_API_VERSION}/${server.main.id}/feed`);
    expect(request.headers.authorization).toBe(`Bearer ${server.main.token}`);
    expect(request.query.get('fields')).toBe('id,permalink_url');
  });

  it('a location is sent as place; a collaborator on a text post is refused before anything is sent', async () => {
    const publisher = await open();
    await publisher.deliver(job({ overrides: { location: { id: '110843418940484', name: 'Seattle' } } }));
    expect(server.posts.at(-1)?.place).toBe('110843418940484');
    const sent = server.kit.log.length;
    const refused = await publisher.deliver(job({ overrides: { collab: 'partner.page' } }));
    expect(refused).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('on a Reel'),
    });
    expect(server.kit.log.length).toBe(sent);
  });

  it('one photo: /photos with the bytes as source, the caption and link as its message', async () => {
    const photo = file('p1', 'image/jpeg', 300_000);
    const outcome = await (await open()).deliver(
      job({ caption: 'Our roastery', link: 'https://acme.test', media: [photo] }),
    );
    const request = server.kit.requestsTo('/:version/:page/photos').at(-1)!;
    expect(request.body.files.map((f) => [f.field, f.size])).toEqual([['source', 300_000]]);
    // A multipart form sends its line breaks as CRLF.
    expect(fields('/:version/:page/photos').get('message')).toMatch(
      /^Our roastery\r?\n\r?\nhttps:\/\/acme\.test$/,
    );
    const post = server.posts.at(-1)!;
    expect(post.kind).toBe('photo');
    expect(outcome).toMatchObject({ ok: true, externalId: post.id });
    expect(files.get('p1')!.blobs).toBe(1);
  });

  it('several photos: each uploaded unpublished, then one /feed post with attached_media', async () => {
    const media = [
      file('a', 'image/png', 1_000),
      file('b', 'image/jpeg', 2_000),
      file('c', 'image/png', 3_000),
    ];
    const outcome = await (await open()).deliver(job({ caption: 'Three', media }));
    const uploads = server.kit.requestsTo('/:version/:page/photos');
    expect(uploads.map((request) => new Map(request.body.fields).get('published'))).toEqual([
      'false',
      'false',
      'false',
    ]);
    expect(uploads.map((request) => request.body.files[0]?.size)).toEqual([1_000, 2_000, 3_000]);
    const post = server.posts.at(-1)!;
    expect(post.kind).toBe('feed');
    expect(post.photoIds).toHaveLength(3);
    expect(fields('/:version/:page/feed').get('attached_media[0]')).toBe(
      JSON.stringify({ media_fbid: post.photoIds[0] }),
    );
    expect(outcome).toMatchObject({ ok: true, externalId: post.id });
  });

  it('prepare uploads the photos unpublished ahead; the commit attaches them without uploading again', async () => {
    const media = [file('a', 'image/png', 1_000), file('b', 'image/png', 1_000)];
    const publisher = await open();
    const prepared = await publisher.prepare!(job({ caption: 'Ahead', media }));
    expect(prepared).toMatchObject({ ok: 'prepared', state: { step: 'prepare' } });
    expect(server.posts).toHaveLength(0);
    const uploads = server.kit.requestsTo('/:version/:page/photos').length;
    const outcome = await publisher.deliver(
      job({ caption: 'Ahead', media }, prepared.ok === 'prepared' ? prepared.state : {}),
    );
    expect(outcome).toMatchObject({ ok: true });
    expect(server.kit.requestsTo('/:version/:page/photos').length).toBe(uploads);
    expect(server.posts.at(-1)?.photoIds).toHaveLength(2);
  });

  it('a video: /videos with the bytes, pending while Meta processes it, then sent with its permalink', async () => {
    const video = file('v', 'video/mp4', 500_000);
    const publisher = await open();
    const first = await publisher.deliver(job({ caption: 'Watch', media: [video] }));
    expect(first).toMatchObject({ ok: 'pending', reason: 'Facebook is processing the video of the post.' });
    const upload = server.kit.requestsTo('/:version/:page/videos').at(-1)!;
    expect(upload.body.files[0]).toMatchObject({ field: 'source', size: 500_000 });
    expect(new Map(upload.body.fields).get('description')).toBe('Watch');
    if (first.ok !== 'pending') return;
    const still = await publisher.check!(job({}, first.state));
    expect(still).toMatchObject({ ok: 'pending' });
    nowMs += 5_000;
    const done = await publisher.check!(job({}, first.state));
    const id = [...server.videos.keys()][0]!;
    expect(done).toEqual({
      ok: true,
      externalId: id,
      url: `https://www.facebook.com/${server.main.id}/videos/${id}/`,
    });
    expect(server.kit.requestsTo('/:version/:page/videos')).toHaveLength(1);
  });

  it('a large video: chunked (start, each part Meta asks for, read by range, finish), then pending', async () => {
    const size = RESUMABLE_FROM_BYTES + 3 * 1024 * 1024;
    const video = file('big', 'video/mp4', size);
    const ranges: [number, number][] = [];
    const source = files.get('big')!;
    const range = source.range;
    source.range = (start, end) => {
      ranges.push([start, end]);
      return range(start, end);
    };
    const publisher = await open();
    const first = await publisher.deliver(job({ caption: 'Long', media: [video] }));
    expect(first).toMatchObject({ ok: 'pending' });
    const phases = server.kit
      .requestsTo('/:version/:page/videos')
      .map((request) => new Map(request.body.fields).get('upload_phase'));
    const parts = Math.ceil(size / (4 * 1024 * 1024));
    expect(phases).toEqual(['start', ...Array(parts).fill('transfer'), 'finish']);
    expect(server.transfers.reduce((sum, bytes) => sum + bytes, 0)).toBe(size);
    expect(ranges[0]).toEqual([0, 4 * 1024 * 1024]);
    expect(ranges.at(-1)?.[1]).toBe(size);
    expect(source.blobs).toBe(0);
    expect(server.videos.get([...server.videos.keys()][0]!)?.description).toBe('Long');
  });

  it('an unanswered start of a chunked upload is transient: nothing was published', async () => {
    const video = file('big', 'video/mp4', RESUMABLE_FROM_BYTES + 1);
    const slow = openFacebook(
      { ...(await verify(server.main.id)), channelId: 1 },
      { ...context(), timeoutMs: 300 },
    );
    publishers.push(slow);
    server.kit.hang('forever', { route: '/:version/:page/videos' });
    expect(await slow.deliver(job({ media: [video] }))).toMatchObject({ ok: false, kind: 'transient' });
    expect(server.posts).toHaveLength(0);
  });

  it('a video Meta fails to process is refused when checked', async () => {
    await server.close();
    server = await startFacebookServer({
      now: () => nowMs,
      videoProcessingFails: true,
      videoProcessingMs: 0,
    });
    const publisher = await open();
    const first = await publisher.deliver(job({ media: [file('v', 'video/mp4', 10)] }));
    expect(first).toMatchObject({ ok: 'pending' });
    const checked = await publisher.check!(job({}, first.ok === 'pending' ? first.state : {}));
    expect(checked).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: expect.stringContaining('could not process'),
    });
  });

  it('photos and a video together, or a Story of two files, are refused before anything is sent', async () => {
    const publisher = await open();
    const mixed = await publisher.deliver(
      job({ media: [file('p', 'image/png', 10), file('v', 'video/mp4', 10)] }),
    );
    expect(mixed).toMatchObject({ ok: false, kind: 'refused', reason: expect.stringContaining('not both') });
    const story = await publisher.deliver(
      job({ format: 'story', media: [file('v2', 'video/mp4', 10), file('p2', 'image/png', 10)] }),
    );
    expect(story).toMatchObject({ ok: false, kind: 'refused', reason: expect.stringContaining('Story') });
    expect(server.kit.log.filter((request) => request.method === 'POST')).toHaveLength(0);
  });

  it('a photo Story: the photo unpublished, then /photo_stories', async () => {
    const outcome = await (await open()).deliver(
      job({ format: 'story', media: [file('s', 'image/jpeg', 5_000)] }),
    );
    const story = server.posts.at(-1)!;
    expect(story.kind).toBe('story');
    expect(fields('/:version/:page/photo_stories').get('photo_id')).toBe(story.photoIds[0]);
    expect(outcome).toMatchObject({ ok: true, externalId: story.id });
  });

  it('the auto-comment is a comment by the Page on the post', async () => {
    const publisher = await open();
    const sent = await publisher.deliver(job({ caption: 'Hello' }));
    const externalId = sent.ok === true ? sent.externalId : null;
    const outcome = await publisher.comment!({
      deliveryId: 1,
      postId: 1,
      brandId: 1,
      channel: { id: 1, name: 'Page', type: 'Facebook' },
      externalId,
      comment: 'First!',
      idempotencyKey: 'c1',
    });
    expect(server.comments).toEqual([{ id: expect.any(String), objectId: externalId, message: 'First!' }]);
    expect(outcome).toMatchObject({ ok: true, externalId: server.comments[0]!.id });
  });

  it('a connection pins another Graph version with graphVersion', async () => {
    const connection = await verify(server.main.id);
    await (await open({ ...connection, settings: { graphVersion: 'v26.0' } })).deliver(job({}));
    expect(server.kit.requestsTo('/:version/:page/feed').at(-1)?.path).toBe(`/v26.0/${server.main.id}/feed`);
  });
});

describe("Meta's refusals, as the engine's kinds", () => {
  const cases: [string, ReturnType<typeof graphError>, Record<string, unknown>][] = [
    [
      '190/463 expired',
      graphError(190, 'Error validating access token: Session has expired', { subcode: 463 }),
      { kind: 'reconnect', reason: expect.stringContaining('the sign-in expired') },
    ],
    [
      '10 permission',
      graphError(10, '(#10) Application does not have permission for this action'),
      { kind: 'reconnect', reason: expect.stringContaining('pages_manage_posts') },
    ],
    [
      '4 app limit',
      graphError(4, '(#4) Application request limit reached'),
      { kind: 'rate_limited', retryAfterMs: 3_600_000 },
    ],
    ['17 user limit', graphError(17, '(#17) User request limit reached'), { kind: 'rate_limited' }],
    ['32 page limit', graphError(32, '(#32) Page request limit reached'), { kind: 'rate_limited' }],
    [
      '613 custom limit',
      graphError(613, 'Calls to this api have exceeded the rate limit.'),
      { kind: 'rate_limited' },
    ],
    [
      '80001 with the minutes to regain access',
      graphError(80_001, 'There have been too many calls to this Page account.', {
        headers: {
          'x-business-use-case-usage': JSON.stringify({
            '1': [{ type: 'pages', call_count: 100, estimated_time_to_regain_access: 7 }],
          }),
        },
      }),
      { kind: 'rate_limited', retryAfterMs: 7 * 60_000 },
    ],
    [
      '368 policy, in Meta’s words for people',
      graphError(368, 'The action attempted has been deemed abusive or is otherwise disallowed', {
        userMessage: 'You can’t post this because it looks like spam.',
      }),
      { kind: 'refused', reason: expect.stringContaining('You can’t post this because it looks like spam.') },
    ],
    [
      '506 duplicate',
      graphError(506, 'Duplicate status message'),
      { kind: 'refused', reason: expect.stringContaining('duplicate') },
    ],
    [
      '2 service down',
      graphError(2, 'An unexpected error has occurred. Please retry your request later.'),
      { kind: 'transient' },
    ],
  ];
  for (const [name, answer, expected] of cases) {
    it(name, async () => {
      const publisher = await open();
      server.kit.answerNext(answer, { route: '/:version/:page/feed' });
      expect(await publisher.deliver(job({}))).toMatchObject({ ok: false, ...expected });
      expect(server.posts).toHaveLength(0);
    });
  }

  it('the business-use-case usage on a success spaces the account’s sends once spent', async () => {
    const publisher = await open();
    server.kit.rateLimits.set(server.main.id, { remaining: 1, resetAtMs: nowMs + 20 * 60_000 });
    const sent = await publisher.deliver(job({}));
    expect(sent).toMatchObject({ ok: true, limit: { remaining: 0, resetAtMs: nowMs + 20 * 60_000 } });
    const limited = await publisher.deliver(job({ caption: 'again' }));
    expect(limited).toMatchObject({ ok: false, kind: 'rate_limited', retryAfterMs: 20 * 60_000 });
  });
});

describe('the sign-in, the Pages and verify', () => {
  it('the dialog on the auth root, the code exchanged, then a long-lived token (fb_exchange_token)', async () => {
    const redirectUri = server.app.redirectUris[0]!;
    const address = facebookOAuth.authorizationUrl({
      endpoint: server.url,
      clientId: server.app.clientId,
      redirectUri,
      state: 's-1',
      scopes: FACEBOOK_SCOPES,
    });
    const url = new URL(address);
    expect(url.pathname).toBe(`/${GRAPH_API_VERSION}/dialog/oauth`);
    expect(url.searchParams.get('scope')).toBe(
      'pages_show_list,pages_manage_posts,pages_read_engagement,pages_manage_engagement,publish_video,business_management',
    );
    expect(url.searchParams.has('code_challenge')).toBe(false);
    const response = await fetch(address, { redirect: 'manual' });
    const code = new URL(response.headers.get('location')!).searchParams.get('code')!;
    const exchange = { endpoint: server.url, redirectUri, ...server.app, userAgent: 't', timeoutMs: 5_000 };
    const tokens = await facebookOAuth.exchangeCode({ ...exchange, code });
    expect(server.userTokens.get(tokens.accessToken)?.long).toBe(true);
    expect(
      server.kit.requestsTo('/:version/oauth/access_token').map((r) => r.query.get('grant_type')),
    ).toEqual([null, 'fb_exchange_token']);
    await expect(facebookOAuth.exchangeCode({ ...exchange, code })).rejects.toThrow(/codes work once/);
  });

  it("Meta's own addresses: the dialog on www.facebook.com, the token endpoint on graph.facebook.com", () => {
    const address = facebookOAuth.authorizationUrl({
      endpoint: 'https://www.facebook.com',
      clientId: '123',
      redirectUri: 'http://localhost:8788/callback',
      state: 's',
      scopes: ['pages_show_list'],
    });
    expect(address.startsWith(`https://www.facebook.com/${GRAPH_API_VERSION}/dialog/oauth?`)).toBe(true);
    expect(facebookTokenUrl('https://www.facebook.com')).toBe(
      `https://graph.facebook.com/${GRAPH_API_VERSION}/oauth/access_token`,
    );
    expect(facebookTokenUrl(server.url)).toBe(`${server.url}/${GRAPH_API_VERSION}/oauth/access_token`);
  });

  it('an expired code and a wrong app secret are told apart, with no secret in the message', async () => {
    const redirectUri = server.app.redirectUris[0]!;
    const address = facebookOAuth.authorizationUrl({
      endpoint: server.url,
      clientId: server.app.clientId,
      redirectUri,
      state: 's',
      scopes: FACEBOOK_SCOPES,
    });
    const code = new URL(
      (await fetch(address, { redirect: 'manual' })).headers.get('location')!,
    ).searchParams.get('code')!;
    nowMs += CODE_LIFETIME_MS + 1;
    const base = {
      endpoint: server.url,
      redirectUri,
      clientId: server.app.clientId,
      userAgent: 't',
      timeoutMs: 5_000,
    };
    await expect(
      facebookOAuth.exchangeCode({ ...base, clientSecret: server.app.clientSecret, code }),
    ).rejects.toThrow(/sign in again/);
    const wrong = facebookOAuth.exchangeCode({ ...base, clientSecret: 'not-the-secret-0123', code });
    await expect(wrong).rejects.toThrow(/App ID and App Secret/);
    await expect(wrong).rejects.not.toThrow(/not-the-secret-0123/);
  });

  it('the identities: the Pages of /me/accounts (every page of the listing) and of the Business Portfolio', async () => {
    await server.close();
    server = await startFacebookServer({ now: () => nowMs, accountsPageSize: 1 });
    const identities = await facebookOAuth.identities!({
      endpoint: server.url,
      accessToken: server.userToken(),
      userAgent: 't',
      timeoutMs: 5_000,
    });
    expect(identities).toEqual(server.pages.map((page) => ({ id: page.id, name: page.name, kind: 'page' })));
    const without = await facebookOAuth.identities!({
      endpoint: server.url,
      accessToken: server.userToken('pages_show_list,pages_manage_posts'),
      userAgent: 't',
      timeoutMs: 5_000,
    });
    expect(without.map((page) => page.name)).toEqual(['Acme Coffee', 'Acme Bakery']);
  });

  it('verify stores the Page token of the Page chosen, by id or by name', async () => {
    const byId = await verify(server.portfolio.id);
    expect(byId).toMatchObject({
      kind: 'facebook',
      account: 'Acme Roastery',
      accountId: server.portfolio.id,
      profileUrl: `https://www.facebook.com/${server.portfolio.id}`,
      endpoint: server.url,
    });
    expect(tokensOf(byId.secret)).toEqual({ accessToken: server.portfolio.token });
    expect((await verify('acme bakery')).accountId).toBe(server.pages[1]!.id);
  });

  it("verify's messages: no Page chosen among several, an unknown Page, a dead sign-in", async () => {
    await expect(verify()).rejects.toThrow(/Name the Page to post to with --account: one of Acme Coffee/);
    await expect(verify('Nope')).rejects.toThrow(/no Page "Nope": give one of/);
    const token = server.userToken();
    server.kit.revoke(token);
    await expect(verify(server.main.id, token)).rejects.toThrow(
      /refused the sign-in .*connect facebook again/,
    );
    await expect(verify(server.main.id, token)).rejects.not.toThrow(token);
  });
});
