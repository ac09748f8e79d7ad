/**
 * What the YouTube connector's tests share: a video of the brand on disk (a sparse file that reads as an
 * MP4, so that 100 MB cost no disk and no memory), the connector's context over it (the media loader
 * of the engine), and the connector opened against the stand-in. `stepped` runs a delivery's steps the
 * way the engine does (deliver, then check while it is pending, the state of each step handed to the
 * next, confirm with the state stored), for the cases that want the outcome of the whole delivery.
 */
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { DeliveryJob, MediaRecord, Publisher, StepState, Store } from '../../src/ports.js';
import type { ConnectorContext } from '../../src/publish/connector.js';
import { verifyYouTube } from '../../src/publish/connectors/youtube/youtube-account.js';
import { openYouTube } from '../../src/publish/connectors/youtube/youtube-connector.js';
import { mediaLoader } from '../../src/publish/media-loader.js';
import { makeTempDir } from './temp-dirs.js';
import type { YouTubeServer } from './youtube-server.js';

const MP4_HEAD = Buffer.from('000000186674797069736f6d0000020069736f6d6d703432', 'hex');

/** A sparse file of `size` bytes that reads as an MP4 (its bytes after the head are zeros, but `mark`). */
export function videoFile(id: string, size: number, mark = 'youtube'): MediaRecord {
  const path = join(makeTempDir(), id);
  const fd = openSync(path, 'w');
  writeSync(fd, MP4_HEAD);
  // A mark in the middle, so that bytes sent from a wrong offset change the digest.
  writeSync(fd, Buffer.from(`${mark}:${id}`), 0, undefined, Math.floor(size / 2));
  ftruncateSync(fd, size);
  closeSync(fd);
  return { id, brandId: 1, type: 'video/mp4', size, sha256: '', path, createdAtMs: 0, durationMs: null };
}

export function youtubeContext(
  records: MediaRecord[],
  extra: Partial<ConnectorContext> = {},
): ConnectorContext {
  const store = {
    findMedia: async (_brandId: number, ids: string[]) => records.filter((record) => ids.includes(record.id)),
  } as unknown as Store;
  return {
    loadMedia: mediaLoader(store, undefined, undefined),
    saveSecret: async () => {},
    clock: { now: () => Date.now() },
    log: () => {},
    timeoutMs: 30_000,
    userAgent: 'social-publisher-mcp/test',
    ...extra,
  };
}

/** Verifies the stand-in's channel with fresh tokens and opens the connector. */
export async function openAgainst(
  server: YouTubeServer,
  context: ConnectorContext,
  tokens = server.tokens(),
): Promise<Publisher> {
  const verified = await verifyYouTube({
    endpoint: server.url,
    secret: tokens.accessToken,
    tokens,
    userAgent: 'test',
    timeoutMs: 5_000,
  });
  return openYouTube(
    { ...verified, settings: { ...verified.settings, authRoot: server.url }, channelId: 1 },
    context,
  );
}

/** A YouTube delivery of one video of the brand. */
export function videoJob(mediaId: string, content: Partial<DeliveryJob['content']> = {}): DeliveryJob {
  return {
    deliveryId: 1,
    postId: 1,
    brandId: 1,
    channel: { id: 1, name: 'Northwind TV', type: 'YouTube' },
    content: {
      platform: 'YouTube',
      format: 'feed',
      title: 'Morning roast',
      caption: 'How we roast on Mondays.',
      media: [{ id: mediaId }],
      ...content,
    },
    idempotencyKey: 'store-test:delivery-1',
    dueAtMs: Date.now(),
    attempt: 1,
    state: {},
  };
}

/**
 * The publisher, its delivery run through its steps as the engine runs them: `deliver` answers the
 * delivery's end (sent or failed) after the checks its pendings asked for; the state of each step is
 * kept per delivery, as the store keeps it, for the next step and for `confirm`.
 */
export function stepped(publisher: Publisher, maxSteps = 20): Publisher {
  const states = new Map<number, StepState>();
  const run = async (job: DeliveryJob, first: (job: DeliveryJob) => ReturnType<Publisher['deliver']>) => {
    let outcome = await first({ ...job, state: states.get(job.deliveryId) ?? job.state });
    for (let step = 0; outcome.ok === 'pending' && step < maxSteps; step++) {
      states.set(job.deliveryId, outcome.state);
      outcome = (await publisher.check!({ ...job, state: outcome.state })) as typeof outcome;
    }
    // A delivery that ended (sent, or failed for good) leaves no state; one to be retried keeps it.
    const retried =
      outcome.ok === false && ['transient', 'unknown', 'rate_limited'].includes(outcome.kind ?? '');
    if (!retried) states.delete(job.deliveryId);
    return outcome;
  };
  return {
    name: publisher.name,
    idempotent: publisher.idempotent,
    deliver: (job) => run(job, (first) => publisher.deliver(first)),
    check: (job) => publisher.check!(job),
    confirm: async (job) => {
      if (!states.has(job.deliveryId)) return publisher.confirm!(job);
      return run(job, (first) => publisher.confirm!(first) as ReturnType<Publisher['deliver']>);
    },
    comment: (job) => publisher.comment(job),
    close: () => publisher.close?.() ?? Promise.resolve(),
  };
}
