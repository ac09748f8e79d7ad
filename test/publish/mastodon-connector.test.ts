/** The Mastodon connector and sign-in against the loopback Mastodon stand-in. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlatformContent } from '../../src/domain/delivery.js';
import {
  type CheckOutcome,
  type DeliveryJob,
  type Publisher,
  type StepOutcome,
  systemClock,
} from '../../src/ports.js';
import type { ConnectorContext, MediaSource, VerifiedConnection } from '../../src/publish/connector.js';
import {
  capabilitiesOfMastodon,
  mastodonOrigin,
  mastodonStatusText,
  openMastodon,
  verifyMastodon,
} from '../../src/publish/connectors/mastodon/mastodon-connector.js';
import {
  MASTODON_SCOPES,
  mastodonOAuth,
  OOB_REDIRECT_URI,
} from '../../src/publish/connectors/mastodon/mastodon-oauth.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import { FakeClock } from '../support/fake-clock.js';
import {
  type MastodonServer,
  type MastodonServerOptions,
  startMastodonServer,
} from '../support/mastodon-server.js';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const MP4 = Uint8Array.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6d, 0x70, 0x34, 0x32]);
const FILES: Record<string, MediaSource> = {
  a: mediaFromBytes(PNG, 'image/png', 'a.png'),
  b: mediaFromBytes(PNG, 'image/png', 'b.png'),
  v: mediaFromBytes(MP4, 'video/mp4', 'v.mp4'),
};

const HTTP = { userAgent: 'social-publisher-mcp/test', timeoutMs: 5_000 };
let server: MastodonServer;
let opened: Publisher[] = [];
let jobs = 0;

async function start(options: MastodonServerOptions = {}): Promise<void> {
  await server?.close();
  server = await startMastodonServer(options);
}

beforeEach(async () => {
  await start();
});

afterEach(async () => {
  await Promise.all(opened.map((publisher) => publisher.close?.()));
  opened = [];
  await server.close();
});

function context(overrides: Partial<ConnectorContext> = {}): ConnectorContext {
  return {
    loadMedia: async (_brandId, media) => FILES[media.id!]!,
    saveSecret: async () => {},
    clock: systemClock,
    log: () => {},
    timeoutMs: 5_000,
    userAgent: 'social-publisher-mcp/test',
    ...overrides,
  };
}

async function connect(overrides: Partial<ConnectorContext> = {}, token = server.token): Promise<Publisher> {
  const verified = await verifyMastodon({ instance: server.url, token });
  const publisher = openMastodon({ ...verified, channelId: 7 }, context(overrides));
  opened.push(publisher);
  return publisher;
}

function job(content: Partial<PlatformContent>, idempotencyKey = `store-1:delivery-${++jobs}`): DeliveryJob {
  return {
    deliveryId: jobs,
    postId: jobs,
    brandId: 1,
    channel: { id: 7, name: 'Mastodon', type: 'Mastodon' },
    content: { platform: 'Mastodon', format: 'feed', media: [], ...content },
    idempotencyKey,
    dueAtMs: Date.UTC(2027, 0, 5, 9),
    attempt: 1,
    state: {},
  };
}

function failed(outcome: StepOutcome) {
  if (outcome.ok !== false) throw new Error(`expected a failure, got ${JSON.stringify(outcome)}`);
  return outcome;
}

const sends = (path: string) => server.requests.filter((request) => request.path === path).length;

describe('verifyMastodon', () => {
  it('says what to store for a good token, with the instance own limits', async () => {
    await start({ maxCharacters: 640 });
    const verified: VerifiedConnection = await verifyMastodon({ instance: server.url, token: server.token });
    expect(verified).toMatchObject({
      kind: 'mastodon',
      account: '@publisher@127.0.0.1',
      accountId: '109000000000000001',
      endpoint: server.url,
      profileUrl: `${server.url}/@publisher`,
      secret: server.token,
    });
    expect(verified.capabilities).toMatchObject({ textLimit: 640, linkLength: 23, maxMedia: 4, polls: true });
  });

  it('rejects a refused token with what to do, never repeating the token', async () => {
    const revoked = server.issueToken();
    server.revoke(revoked);
    for (const token of [revoked, 'not-a-token-at-all']) {
      const error = await verifyMastodon({ instance: server.url, token }).then(
        () => new Error('verified'),
        (e: Error) => e,
      );
      expect(error.message).toMatch(
        /^Mastodon refused the access token: The access token (was revoked|is invalid)/,
      );
      expect(error.message).toContain('Preferences → Development → New application');
      expect(error.message).toContain('write:statuses, write:media and read:accounts');
      expect(error.message).not.toContain(token);
    }
  });

  it('rejects a token without the read:accounts scope', async () => {
    const token = server.issueToken('write:statuses write:media');
    await expect(verifyMastodon({ instance: server.url, token })).rejects.toThrow(
      /refused the access token: This action is outside the authorized scopes/,
    );
  });

  it('takes a bare domain as https, and refuses plain http beyond this machine', async () => {
    expect(mastodonOrigin('mastodon.social')).toBe('https://mastodon.social');
    expect(mastodonOrigin(' https://mastodon.social/@someone ')).toBe('https://mastodon.social');
    const token = 'secret-token-value';
    await expect(verifyMastodon({ instance: 'http://mastodon.example', token })).rejects.toThrow(
      /must use https/,
    );
  });
});

describe('capabilitiesOfMastodon', () => {
  it("keeps our media types the instance supports, and Mastodon's defaults when it says nothing", () => {
    const caps = capabilitiesOfMastodon({
      configuration: {
        statuses: { max_characters: 5000 },
        media_attachments: {
          supported_mime_types: ['image/png', 'video/mp4', 'application/pdf'],
          image_size_limit: 1000,
        },
        polls: { max_options: 6, max_characters_per_option: 80 },
      },
    });
    expect(caps).toMatchObject({
      textLimit: 5000,
      mediaTypes: ['image/png', 'video/mp4'],
      maxImageBytes: 1000,
    });
    expect(caps).toMatchObject({ maxPollOptions: 6, maxPollOptionLength: 80, pollWithMedia: false });
    expect(capabilitiesOfMastodon({})).toMatchObject({
      textLimit: 500,
      textUnit: 'graphemes',
      linkLength: 23,
      maxMedia: 4,
      mediaTypes: ['image/png', 'image/jpeg', 'video/mp4', 'video/quicktime'],
      maxPollOptions: 4,
      maxPollOptionLength: 50,
    });
  });
});

describe('deliver', () => {
  it('posts the caption, the link on its own line and two images described by the alt text', async () => {
    const publisher = await connect();
    const delivery = job({
      caption: 'Fresh roast today',
      link: 'https://example.com/roast',
      alt: 'Two bags of coffee',
      media: [{ id: 'a' }, { id: 'b' }],
    });
    const outcome = await publisher.deliver(delivery);
    expect(server.statuses).toHaveLength(1);
    const status = server.statuses[0]!;
    expect(outcome).toEqual({
      ok: true,
      externalId: status.id,
      url: `${server.url}/@publisher/${status.id}`,
    });
    expect(status.text).toBe('Fresh roast today\n\nhttps://example.com/roast');
    expect(status.mediaIds).toHaveLength(2);
    expect(status.descriptions).toEqual(['Two bags of coffee', 'Two bags of coffee']);
    const files = status.mediaIds.map((id) => server.media.get(id));
    expect(files.map((file) => [file?.fileName, file?.mimeType, file?.size])).toEqual([
      ['a.png', 'image/png', PNG.length],
      ['b.png', 'image/png', PNG.length],
    ]);
    expect(status.idempotencyKey).toBe(delivery.idempotencyKey);
    expect(status.poll).toBeNull();
  });

  it('does not repeat a link the caption already has', () => {
    const text = mastodonStatusText({
      platform: 'Mastodon',
      format: 'feed',
      media: [],
      caption: 'Read https://example.com/roast today',
      link: 'https://example.com/roast',
    });
    expect(text).toBe('Read https://example.com/roast today');
  });

  it('does not wait while Mastodon processes a video: pending, then check attaches it', async () => {
    await start({ videoProcessingPolls: 1 });
    const publisher = await connect();
    const delivery = job({ caption: 'Roasting, live', media: [{ id: 'v' }] });
    let outcome: CheckOutcome = await publisher.deliver(delivery);
    while (outcome.ok === 'pending') outcome = await publisher.check!({ ...delivery, state: outcome.state });
    expect(outcome.ok).toBe(true);
    expect(sends('/api/v1/media/:id')).toBe(2);
    expect(server.statuses[0]!.mediaIds).toHaveLength(1);
  });

  it('sends a poll open for its period; a quiz goes as a plain poll, its explanation unsent', async () => {
    const publisher = await connect();
    const outcome = await publisher.deliver(
      job({
        poll: {
          question: 'Which roast?',
          options: ['Light', 'Dark'],
          period: '3d',
          correctOptionIndex: 1,
          explanation: 'Dark wins',
        },
      }),
    );
    expect(outcome.ok).toBe(true);
    const status = server.statuses[0]!;
    expect(status.poll).toEqual({ options: ['Light', 'Dark'], expiresIn: 259_200, multiple: false });
    expect(status.text).toBe('Which roast?');
  });

  it("turns Mastodon's refusals of the content into refused, with Mastodon's words", async () => {
    const publisher = await connect();
    const cases: [Partial<PlatformContent>, string][] = [
      [{ caption: 'x'.repeat(501) }, 'Validation failed: Text character limit of 500 exceeded'],
      [
        { caption: 'Five', media: ['a', 'b', 'a', 'b', 'a'].map((id) => ({ id })) },
        'Cannot attach more than 4 files',
      ],
      [
        {
          caption: 'Both',
          media: [{ id: 'a' }],
          poll: { question: 'Q?', options: ['1', '2'], period: '1d' },
        },
        'Cannot attach more than 4 files',
      ],
    ];
    for (const [content, said] of cases) {
      const outcome = failed(await publisher.deliver(job(content)));
      expect(outcome.kind).toBe('refused');
      expect(outcome.reason).toBe(`Mastodon refused the status: ${said}`);
    }
    // A link counts 23, so a long link in a caption at the limit is no refusal.
    const atLimit = `${'x'.repeat(476)} https://example.com/${'a'.repeat(100)}`;
    expect((await publisher.deliver(job({ caption: atLimit }))).ok).toBe(true);
    expect(server.statuses).toHaveLength(1);
  });

  it('asks for a reconnect when the token is revoked, out of scope or the account suspended', async () => {
    const publisher = await connect();
    server.revoke(server.token);
    const outcome = failed(await publisher.deliver(job({ caption: 'Hi' })));
    expect(outcome.kind).toBe('reconnect');
    expect(outcome.reason).toContain('The access token was revoked');
    expect(outcome.reason).toContain('social-publisher-mcp connect mastodon');
    expect(outcome.reason).not.toContain(server.token);

    const scoped = await connect({}, server.issueToken('read write:media'));
    const noScope = failed(await scoped.deliver(job({ caption: 'Hi' })));
    expect(noScope).toMatchObject({ kind: 'reconnect' });
    expect(noScope.reason).toContain('This action is outside the authorized scopes');

    const suspendedPublisher = await connect({}, server.issueToken());
    server.suspend();
    const suspended = failed(await suspendedPublisher.deliver(job({ caption: 'Hi' })));
    expect(suspended.kind).toBe('reconnect');
    expect(suspended.reason).toContain('Your login is currently disabled');
  });

  it('waits as long as a 429 asks: Retry-After, or X-RateLimit-Reset', async () => {
    const publisher = await connect();
    server.rateLimitNext('/api/v1/statuses', 1, { retryAfterSeconds: 30 });
    const outcome = failed(await publisher.deliver(job({ caption: 'Hi' })));
    expect(outcome).toMatchObject({ kind: 'rate_limited', retryAfterMs: 30_000 });

    const now = Date.UTC(2027, 0, 5, 9, 0, 0);
    await start({ now: () => now });
    const clocked = await connect({ clock: new FakeClock(now) });
    server.rateLimitNext('/api/v2/media', 1, { resetInSeconds: 120 });
    const limited = failed(await clocked.deliver(job({ caption: 'Hi', media: [{ id: 'a' }] })));
    expect(limited).toMatchObject({ kind: 'rate_limited', retryAfterMs: 120_000 });
    expect(server.statuses).toHaveLength(0);
  });

  it('sends again later after a 5xx, a hang before sending, or a closed port', async () => {
    const publisher = await connect({ timeoutMs: 300 });
    server.failNext('/api/v1/statuses', 1, 503);
    expect(failed(await publisher.deliver(job({ caption: 'Hi' }))).kind).toBe('transient');
    server.failNext('/api/v2/media', 1, 500);
    expect(failed(await publisher.deliver(job({ caption: 'Hi', media: [{ id: 'a' }] }))).kind).toBe(
      'transient',
    );
    // An upload that got no answer created nothing public: sending it again is safe.
    server.hangNext('/api/v2/media');
    expect(failed(await publisher.deliver(job({ caption: 'Hi', media: [{ id: 'a' }] }))).kind).toBe(
      'transient',
    );
    expect(server.statuses).toHaveLength(0);

    await server.close();
    const refused = failed(await publisher.deliver(job({ caption: 'Hi' })));
    expect(refused.kind).toBe('transient');
    expect(refused.reason).toMatch(/could not be reached: .*ECONNREFUSED/);
    await start();
  });

  it('calls a status request that got no answer unknown', async () => {
    const publisher = await connect({ timeoutMs: 300 });
    server.hangNext('/api/v1/statuses');
    const outcome = failed(await publisher.deliver(job({ caption: 'Hi' })));
    expect(outcome.kind).toBe('unknown');
    expect(outcome.reason).toContain('no answer within 300 ms');
    expect(outcome.reason).not.toContain(server.token);
  });

  it('creates nothing new when a status carried out but unanswered is sent again', async () => {
    const publisher = await connect({ timeoutMs: 300 });
    server.hangAfterCreatingNext();
    const delivery = job({ caption: 'Only once', media: [{ id: 'a' }] });
    expect(failed(await publisher.deliver(delivery)).kind).toBe('unknown');
    expect(server.statuses).toHaveLength(1);

    const again = await publisher.deliver({ ...delivery, attempt: 2 });
    expect(again).toMatchObject({ ok: true, externalId: server.statuses[0]!.id });
    expect(server.statuses).toHaveLength(1);
    expect(sends('/api/v1/statuses')).toBe(2);
  });
});

describe('comment', () => {
  it('replies to the delivered status, deduplicated by its own key', async () => {
    const publisher = await connect();
    const delivered = await publisher.deliver(job({ caption: 'Fresh roast today' }));
    if (delivered.ok !== true) throw new Error(JSON.stringify(delivered));
    const comment = {
      deliveryId: 1,
      postId: 1,
      brandId: 1,
      channel: { id: 7, name: 'Mastodon', type: 'Mastodon' as const },
      externalId: delivered.externalId,
      comment: 'Tell us which bag you tried!',
      idempotencyKey: 'store-1:comment-1',
    };
    const outcome = await publisher.comment(comment);
    expect(outcome.ok).toBe(true);
    expect(await publisher.comment(comment)).toEqual(outcome);
    expect(server.statuses).toHaveLength(2);
    expect(server.statuses[1]).toMatchObject({
      text: 'Tell us which bag you tried!',
      inReplyToId: delivered.externalId,
      idempotencyKey: 'store-1:comment-1',
    });

    const orphan = failed(await publisher.comment({ ...comment, externalId: '1', idempotencyKey: 'k-2' }));
    expect(orphan).toMatchObject({ kind: 'refused' });
    expect(orphan.reason).toContain('The post you are trying to reply to does not appear to exist.');
  });
});

describe('signing in (OAuth)', () => {
  it('registers, sends the user to approve, and trades the code for a working token', async () => {
    const redirectUri = 'http://127.0.0.1:53682/callback';
    const endpoint = server.url;
    const app = await mastodonOAuth.registerClient!({ endpoint, redirectUri, ...HTTP });
    const page = mastodonOAuth.authorizationUrl({
      endpoint,
      clientId: app.clientId,
      redirectUri,
      state: 'state-123',
      scopes: MASTODON_SCOPES,
    });
    expect(new URL(page).searchParams.get('scope')).toBe('read:accounts write:statuses write:media');

    const response = await fetch(page, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe('state-123');
    const code = back.searchParams.get('code')!;

    const tokens = await mastodonOAuth.exchangeCode({ endpoint, ...app, code, redirectUri, ...HTTP });
    expect(tokens).not.toHaveProperty('refreshToken');
    expect(mastodonOAuth.refresh).toBeUndefined();
    const verified = await verifyMastodon({ instance: server.url, token: tokens.accessToken });
    expect(verified.account).toBe('@publisher@127.0.0.1');

    const reused = await mastodonOAuth
      .exchangeCode({ endpoint, ...app, code, redirectUri, ...HTTP })
      .catch((e: Error) => e);
    expect(reused).toBeInstanceOf(Error);
    expect((reused as Error).message).toContain('invalid_grant');
    expect((reused as Error).message).not.toContain(code);
    expect((reused as Error).message).not.toContain(app.clientSecret);
  });

  it('shows the code on the page for the out-of-band redirect', async () => {
    const endpoint = server.url;
    const redirectUri = mastodonOAuth.pasteRedirectUri!;
    expect(redirectUri).toBe(OOB_REDIRECT_URI);
    const app = await mastodonOAuth.registerClient!({ endpoint, redirectUri, ...HTTP });
    const page = mastodonOAuth.authorizationUrl({
      endpoint,
      clientId: app.clientId,
      redirectUri,
      state: 's',
      scopes: mastodonOAuth.scopes,
    });
    const html = await (await fetch(page)).text();
    const code = /class="oauth-code"[^>]*value="([^"]+)"/.exec(html)?.[1];
    expect(code).toBeDefined();
    const tokens = await mastodonOAuth.exchangeCode({ endpoint, ...app, code: code!, redirectUri, ...HTTP });
    const publisher = await connect({}, tokens.accessToken);
    expect((await publisher.deliver(job({ caption: 'Signed in' }))).ok).toBe(true);
  });
});

describe('the stand-in', () => {
  const post = (body: string, type: string, token = server.token) =>
    fetch(`${server.url}/api/v1/statuses`, {
      method: 'POST',
      headers: { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body,
    });

  it('answers as Mastodon does to a missing token, form parameters and an unknown media id', async () => {
    const anonymous = await post('status=hi', 'application/x-www-form-urlencoded', '');
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: 'The access token is invalid' });

    const form = 'status=Pick&poll[options][]=A&poll[options][]=B&poll[expires_in]=86400';
    expect((await post(form, 'application/x-www-form-urlencoded')).status).toBe(200);
    expect(server.statuses[0]!.poll).toEqual({ options: ['A', 'B'], expiresIn: 86_400, multiple: false });

    const unknown = await post(JSON.stringify({ status: 'x', media_ids: ['42'] }), 'application/json');
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toEqual({ error: 'Media 42 not found or already attached to another post' });
  });
});
