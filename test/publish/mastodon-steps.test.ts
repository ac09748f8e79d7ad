/**
 * The Mastodon connector's steps against the loopback stand-in, called directly (the engine that will
 * drive them is not wired yet): `prepare` uploads media ahead of the due time and answers `prepared`,
 * or `pending` while the instance processes a video (202, then 206 until ready); `check` asks again
 * and ends a prepare with `prepared`; `deliver` with the prepared state only posts the status, and
 * without it never waits for processing: it answers `pending` and `check` posts the status.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PlatformContent } from '../../src/domain/delivery.js';
import type { CheckOutcome, DeliveryJob, Publisher } from '../../src/ports.js';
import type { ConnectorContext } from '../../src/publish/connector.js';
import {
  MASTODON_PREPARE_LEAD_MS,
  openMastodon,
  verifyMastodon,
} from '../../src/publish/connectors/mastodon/mastodon-connector.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import { FakeClock } from '../support/fake-clock.js';
import { type MastodonServer, startMastodonServer } from '../support/mastodon-server.js';

const NOW = Date.UTC(2027, 0, 5, 8, 0, 0);
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const MP4 = Uint8Array.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6d, 0x70, 0x34, 0x32]);
const FILES = {
  a: () => mediaFromBytes(PNG, 'image/png', 'a.png'),
  v: () => mediaFromBytes(MP4, 'video/mp4', 'v.mp4'),
};

let server: MastodonServer;
const opened: Publisher[] = [];
let clock: FakeClock;
let loaded = 0;

afterEach(async () => {
  await Promise.all(opened.splice(0).map((publisher) => publisher.close?.()));
  await server.close();
});

async function connect(videoProcessingPolls = 1): Promise<Publisher> {
  server = await startMastodonServer({ videoProcessingPolls });
  clock = new FakeClock(NOW);
  loaded = 0;
  const context: ConnectorContext = {
    loadMedia: async (_brandId, media) => {
      loaded++;
      return FILES[media.id as keyof typeof FILES]();
    },
    saveSecret: async () => {},
    clock,
    log: () => {},
    timeoutMs: 5_000,
    userAgent: 'social-publisher-mcp/test',
  };
  const verified = await verifyMastodon({ instance: server.url, token: server.token });
  const publisher = openMastodon({ ...verified, channelId: 7 }, context);
  opened.push(publisher);
  return publisher;
}

function job(content: Partial<PlatformContent>, state: DeliveryJob['state'] = {}): DeliveryJob {
  return {
    deliveryId: 1,
    postId: 1,
    brandId: 1,
    channel: { id: 7, name: 'Mastodon', type: 'Mastodon' },
    content: { platform: 'Mastodon', format: 'feed', media: [], ...content },
    idempotencyKey: 'store-1:delivery-1',
    dueAtMs: NOW + 3_600_000,
    attempt: 1,
    state,
  };
}

const sends = (path: string) => server.requests.filter((request) => request.path === path).length;

describe('Mastodon prepare', () => {
  it('uploads images ahead and answers prepared with their ids; the commit only posts the status', async () => {
    const publisher = await connect();
    expect(publisher.prepareLeadMs).toBe(MASTODON_PREPARE_LEAD_MS);
    expect(MASTODON_PREPARE_LEAD_MS).toBe(6 * 3_600_000);
    const content = { caption: 'Beans', alt: 'A bag of beans', media: [{ id: 'a' }, { id: 'a' }] };
    const prepared = await publisher.prepare!(job(content));
    expect(prepared).toEqual({
      ok: 'prepared',
      state: expect.objectContaining({ step: 'prepare', processing: [] }),
      expiresAtMs: NOW + 20 * 3_600_000,
    });
    if (prepared.ok !== 'prepared') throw new Error('not prepared');
    const mediaIds = prepared.state.mediaIds as string[];
    expect(mediaIds).toEqual([...server.media.keys()]);
    expect(server.statuses).toEqual([]);

    const sent = await publisher.deliver(job(content, prepared.state));
    expect(sent).toMatchObject({ ok: true, externalId: server.statuses[0]!.id });
    expect(sends('/api/v2/media')).toBe(2);
    expect(server.statuses[0]!.mediaIds).toEqual(mediaIds);
    expect(server.statuses[0]!.descriptions).toEqual(['A bag of beans', 'A bag of beans']);
    expect(loaded).toBe(2);
  });

  it('is pending while a video is processed, checked a few seconds on, then prepared', async () => {
    const publisher = await connect(1);
    const content = { caption: 'Roasting', media: [{ id: 'v' }] };
    const first = await publisher.prepare!(job(content));
    expect(first).toMatchObject({
      ok: 'pending',
      state: { step: 'prepare', checks: 0 },
      checkAtMs: NOW + 3_000,
      reason: 'Mastodon is processing a video of the post.',
      deadlineAtMs: NOW + 30 * 60_000,
    });
    if (first.ok !== 'pending') throw new Error('not pending');
    expect(sends('/api/v1/media/:id')).toBe(0);

    clock.advance(3_000);
    const second = await publisher.check!(job(content, first.state));
    // Checked again half as long again later, the count kept in the state.
    expect(second).toMatchObject({ ok: 'pending', state: { checks: 1 }, checkAtMs: clock.now() + 4_500 });
    if (second.ok !== 'pending') throw new Error('not pending');
    const third = await publisher.check!(job(content, second.state));
    expect(third).toMatchObject({ ok: 'prepared', state: { step: 'prepare', processing: [] } });
    expect(sends('/api/v1/media/:id')).toBe(2);
    expect(server.statuses).toEqual([]);

    if (third.ok !== 'prepared') throw new Error('not prepared');
    expect(await publisher.deliver(job(content, third.state))).toMatchObject({ ok: true });
    expect(server.statuses[0]!.mediaIds).toEqual(third.state.mediaIds);
    expect(sends('/api/v2/media')).toBe(1);
  });

  it('a commit while the prepared video is still processing becomes pending, and check posts it', async () => {
    const publisher = await connect(1);
    const content = { caption: 'Roasting', media: [{ id: 'v' }] };
    const pending = await publisher.prepare!(job(content));
    if (pending.ok !== 'pending') throw new Error('not pending');
    const commit = await publisher.deliver(job(content, pending.state));
    expect(commit).toMatchObject({ ok: 'pending', state: { step: 'commit' } });
    if (commit.ok !== 'pending') throw new Error('not pending');
    expect(await publisher.check!(job(content, commit.state))).toMatchObject({ ok: true });
    expect(server.statuses).toHaveLength(1);
    expect(sends('/api/v2/media')).toBe(1);
  });

  it('a failed upload is classified like any other: a 503 is transient, nothing prepared', async () => {
    const publisher = await connect();
    server.failNext('/api/v2/media', 1, 503);
    expect(await publisher.prepare!(job({ media: [{ id: 'a' }] }))).toMatchObject({
      ok: false,
      kind: 'transient',
      reason: expect.stringMatching(/^Mastodon failed the media upload \(HTTP 503: /),
    });
  });
});

describe('Mastodon deliver without prepare', () => {
  it('never waits for processing: pending with the uploaded ids, then check posts the status once', async () => {
    const publisher = await connect(1);
    const content = { caption: 'Roasting, live', media: [{ id: 'v' }] };
    const started = performance.now();
    const pending = await publisher.deliver(job(content));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(pending).toMatchObject({
      ok: 'pending',
      state: { step: 'commit', processing: [expect.any(String)] },
      checkAtMs: NOW + 3_000,
    });
    expect(server.statuses).toEqual([]);
    if (pending.ok !== 'pending') throw new Error('not pending');

    let outcome: CheckOutcome = pending;
    let checks = 0;
    while (outcome.ok === 'pending') {
      outcome = await publisher.check!(job(content, outcome.state));
      checks++;
    }
    expect(checks).toBe(2);
    expect(outcome).toMatchObject({ ok: true, externalId: server.statuses[0]!.id });
    expect(server.statuses[0]!.mediaIds).toEqual(pending.state.mediaIds);
    expect(server.statuses[0]!.idempotencyKey).toBe('store-1:delivery-1');
    expect(sends('/api/v2/media')).toBe(1);
  });

  it('check without a media step to resume refuses', async () => {
    const publisher = await connect();
    expect(await publisher.check!(job({ caption: 'x' }))).toMatchObject({ ok: false, kind: 'refused' });
  });
});
