/**
 * How the Bluesky connector classifies what goes wrong, at the edges the mutation run of 2026-11-25
 * found unguarded (docs/mutation.md), against the PDS stand-in of test/support/bluesky-xrpc-server.ts
 * and its scripted trouble (the failures a real PDS cannot be made to show): a rate limit named by
 * status or by error alone, a 500, a create that never left (transient, sent again) against one whose
 * answer was lost or unreadable (unknown), a session the PDS rejects signed in anew, media that cannot
 * be read, an error nothing foresaw; and the image checks at their limits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/domain/errors.js';
import type { DeliveryJob } from '../../src/ports.js';
import type { ConnectorContext, MediaSource } from '../../src/publish/connector.js';
import {
  capabilitiesOfBluesky,
  openBluesky,
} from '../../src/publish/connectors/bluesky/bluesky-connector.js';
import { checkImage } from '../../src/publish/connectors/bluesky/bluesky-post.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import { startXrpcServer, type XrpcServer } from '../support/bluesky-xrpc-server.js';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const SESSION = {
  accessJwt: 'eyJa.eyJb.sig1',
  refreshJwt: 'eyJc.eyJd.sig2',
  did: 'did:plc:alice',
  handle: 'alice.test',
};
const PNG: MediaSource = mediaFromBytes(
  Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10]),
  'image/png',
  'a.png',
);

const servers: XrpcServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0).reverse()) await server.close();
});

/** A PDS stand-in that knows the stored session; its `kit` scripts what goes wrong. */
async function fakePds(): Promise<XrpcServer> {
  const server = await startXrpcServer({ session: SESSION });
  servers.push(server);
  return server;
}

function open(
  service: string,
  loadMedia: ConnectorContext['loadMedia'] = async () => PNG,
  timeoutMs = 2_000,
) {
  const logged: string[] = [];
  const publisher = openBluesky(
    {
      kind: 'bluesky',
      account: 'alice.test',
      accountId: 'did:plc:alice',
      endpoint: service,
      profileUrl: null,
      settings: {},
      capabilities: capabilitiesOfBluesky(),
      channelId: 1,
      secret: JSON.stringify({ appPassword: 'abcd-efgh-ijkl-mnop', session: SESSION }),
    },
    {
      loadMedia,
      saveSecret: async () => {},
      clock: { now: () => NOW },
      log: (m) => logged.push(m),
      timeoutMs,
      userAgent: 'test',
    },
  );
  return { publisher, logged };
}

let sequence = 0;
function job(content: Partial<DeliveryJob['content']> = {}): DeliveryJob {
  sequence += 1;
  return {
    deliveryId: sequence,
    postId: sequence,
    brandId: 1,
    channel: { id: 1, name: 'Bluesky', type: 'Bluesky' },
    content: { platform: 'Bluesky', format: 'feed', caption: 'hello', media: [], ...content },
    idempotencyKey: `store-a:delivery-${sequence}`,
    dueAtMs: NOW,
    attempt: 1,
    state: {},
  };
}

const CREATE = 'com.atproto.repo.createRecord';

describe('Bluesky failure kinds', () => {
  it('is rate limited by a 429 whatever its error, and by RateLimitExceeded whatever its status', async () => {
    for (const limited of [
      { status: 429, body: { error: 'TooManyRequests', message: 'Slow down' } },
      { status: 400, body: { error: 'RateLimitExceeded', message: 'Slow down' } },
    ]) {
      const pds = await fakePds();
      pds.kit.answerNext({ ...limited, headers: { 'retry-after': '12' } }, { count: 2 });
      expect(await open(pds.url).publisher.deliver(job())).toEqual({
        ok: false,
        kind: 'rate_limited',
        reason: 'Bluesky is rate limiting alice.test (Slow down).',
        retryAfterMs: 12_000,
      });
    }
  });

  it('is transient on a 500 from the create', async () => {
    const pds = await fakePds();
    pds.kit.failNext(500, 'Oops', { route: pds.route(CREATE) });
    expect(await open(pds.url).publisher.deliver(job())).toEqual({
      ok: false,
      kind: 'transient',
      reason: 'Bluesky failed the post (HTTP 500: Oops).',
    });
  });

  it('a create that never left is transient; one whose answer was unreadable may be out (unknown)', async () => {
    // The lookup is answered, then the server is gone: the create cannot connect.
    const refused = await fakePds();
    refused.kit.closeAfterAnswering();
    expect(await open(refused.url).publisher.deliver(job())).toEqual({
      ok: false,
      kind: 'transient',
      reason: `Bluesky (${refused.url}) could not be reached (ECONNREFUSED).`,
    });
    expect(refused.methods()).toEqual(['com.atproto.repo.getRecord']);
    const unreadable = await fakePds();
    const raw = { status: 200, headers: { 'content-type': 'application/json' }, body: 'not json' };
    unreadable.kit.answerNext(raw, { route: unreadable.route(CREATE) });
    expect(await open(unreadable.url).publisher.deliver(job())).toMatchObject({
      ok: false,
      kind: 'unknown',
      reason: expect.stringMatching(/^Bluesky did not answer the post \(.+\): it may have been published\.$/),
    });
  });

  it('signs in again with the app password when the session and its refresh are both rejected', async () => {
    const pds = await fakePds();
    pds.kit.revoke(SESSION.accessJwt);
    pds.kit.revoke(SESSION.refreshJwt);
    expect(await open(pds.url).publisher.deliver(job())).toMatchObject({ ok: true });
    expect(pds.methods()).toContain('com.atproto.server.createSession');
    expect(pds.records).toHaveLength(1);
  });

  it("media that cannot be read: refused with the service's words, transient otherwise", async () => {
    const { url } = await fakePds();
    const invalid = open(url, async () => {
      throw ValidationError.single('media.0.url', 'The media.0.url is not reachable.');
    });
    expect(await invalid.publisher.deliver(job({ media: [{ url: 'https://a.example/a.png' }] }))).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'A media file of the post could not be read: The media.0.url is not reachable.',
    });
    const flaky = open(url, async () => {
      throw new Error('socket hang up');
    });
    expect(await flaky.publisher.deliver(job({ media: [{ url: 'https://a.example/a.png' }] }))).toEqual({
      ok: false,
      kind: 'transient',
      reason: 'A media file of the post could not be read: socket hang up',
    });
  });

  it('an unexpected error (a due time that is no time): transient before the create, and logged', async () => {
    const pds = await fakePds();
    const { publisher, logged } = open(pds.url);
    expect(await publisher.deliver({ ...job(), dueAtMs: Number.NaN })).toEqual({
      ok: false,
      kind: 'transient',
      reason: 'The Bluesky post failed unexpectedly: Invalid time value',
    });
    expect(logged).toEqual(['Bluesky post for alice.test failed unexpectedly: Invalid time value']);
    expect(pds.methods()).toEqual([]);
  });
});

describe('Bluesky image checks', () => {
  const file = (type: string, size: number): MediaSource => mediaFromBytes(new Uint8Array(size), type, 'f');

  it('takes an image of exactly 2,000,000 bytes, not one byte more', () => {
    expect(() => checkImage(file('image/png', 2_000_000))).not.toThrow();
    expect(() => checkImage(file('image/png', 2_000_001))).toThrow(
      'f is 2000001 bytes; Bluesky takes images of at most 2000000 bytes (2 MB).',
    );
  });

  it('says why a video is refused, and nothing more for another type', () => {
    expect(() => checkImage(file('video/mp4', 10))).toThrow(
      'Bluesky takes PNG and JPEG images; f is video/mp4 (video goes through Bluesky’s separate video service, which this connector does not support).',
    );
    expect(() => checkImage(file('image/gif', 10))).toThrow(
      'Bluesky takes PNG and JPEG images; f is image/gif.',
    );
  });
});
