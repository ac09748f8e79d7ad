/**
 * The publishing loop with a fake clock: posts go out at their instant, to every channel, once; the
 * comment follows after its delay; missed posts go out on start; in-doubt deliveries are handled.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatLocalTime } from '../../src/domain/time.js';
import type { Claim, Publisher, PublishingEvent, PublishingEventSink, Store } from '../../src/ports.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { WebhookPublisher } from '../../src/publish/webhook-publisher.js';
import { resolveLocalUser } from '../../src/service/acting-user.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { HeldPlatform } from '../support/held-platform.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

const EVERYWHERE = 1; // 12 channels, Pinterest INACTIVE
const CONVERSATION = 3; // 6 channels, all with polls
const MINUTE = 60_000;

let rt: TestRuntime;
let scheduler: Scheduler;

function outbox(kind: 'delivery' | 'comment' = 'delivery') {
  return rt.sql.all(
    'SELECT delivery_id, platform, body, sends FROM sandbox_outbox WHERE kind = ? ORDER BY id',
    kind,
  );
}

/** How many times the sandbox was asked to send each delivery (or comment): what a platform would see. */
const sendsOf = (kind: 'delivery' | 'comment' = 'delivery') => outbox(kind).map((row) => Number(row.sends));

/** A claim some other process took (and, for these tests, never finished): theirs until `leaseUntilMs`. */
const otherProcess = (leaseUntilMs: number) => ({ owner: 'elsewhere:4242:dead', leaseUntilMs });
/** Another process claims due jobs (sends, or comments once those are due) and dies: their deliveries. */
const claimAsOtherProcess = async (store: Store, limit: number, claim: Claim, nowMs: number) =>
  (await store.jobs.claim(limit, claim, nowMs)).map((claimed) => claimed.delivery!);

async function create(args: Record<string, unknown>): Promise<number> {
  const created = await rt.service.createPost({
    brandId: 1,
    collectionId: EVERYWHERE,
    caption: 'Hello',
    ...args,
  });
  return created.id!;
}

const post = (id: number) => rt.service.getPost({ brandId: 1, postId: id });

beforeEach(async () => {
  rt = await openTestRuntime();
  scheduler = new Scheduler({
    store: rt.runtime.store,
    clock: rt.clock,
    publisher: new SandboxPublisher(rt.runtime.store.sandbox, rt.clock),
  });
});

afterEach(async () => {
  await scheduler.stop();
  await rt.close();
});

describe('scheduler', () => {
  it('publishes a SCHEDULE post at its instant, not before, to every channel once', async () => {
    const id = await create({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-21 08:30:00' }); // 13:30Z
    rt.clock.set(Date.parse('2026-11-21T13:29:59.999Z'));
    expect(await scheduler.runOnce()).toMatchObject({ started: 0, sent: 0 });
    expect((await post(id)).status).toBe('scheduled');

    rt.clock.set(Date.parse('2026-11-21T13:30:00Z'));
    expect(await scheduler.runOnce()).toMatchObject({ started: 1, sent: 11 });
    const published = await post(id);
    expect(published.status).toBe('partially_published');
    expect(published.publishedAt).toBe('2026-11-21T13:30:00.000000Z');
    expect(published.deliveries.map((d) => d.status).sort()).toEqual(
      [...Array(11).fill('sent'), 'failed'].sort(),
    );
    expect(published.deliveries.find((d) => d.channelType === 'Pinterest')?.reason).toContain('INACTIVE');
    expect(outbox()).toHaveLength(11);
    expect(await scheduler.runOnce()).toMatchObject({ started: 0, sent: 0 });
    expect(outbox()).toHaveLength(11);
  });

  it('starts posts of one brand in different collections, due together, each to its own channels', async () => {
    const everywhere = await create({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-21 08:30:00' });
    const conversation = await create({
      publishMode: 'SCHEDULE',
      scheduledAt: '2026-11-21 08:30:00',
      collectionId: CONVERSATION,
    });
    const again = await create({
      publishMode: 'SCHEDULE',
      scheduledAt: '2026-11-21 08:30:00',
      caption: 'Again',
    });
    rt.clock.set(Date.parse('2026-11-21T13:30:00Z'));
    expect(await scheduler.runOnce()).toMatchObject({ started: 3 });
    const channelsOf = async (id: number) =>
      (await post(id)).deliveries.map((delivery) => delivery.channelId).sort((a, b) => a - b);
    const collectionChannels = async (collectionId: number) =>
      ((await rt.runtime.store.findCollection(1, collectionId))?.channels ?? [])
        .map((channel) => channel.id)
        .sort((a, b) => a - b);
    expect(await channelsOf(everywhere)).toEqual(await collectionChannels(EVERYWHERE));
    expect(await channelsOf(again)).toEqual(await collectionChannels(EVERYWHERE));
    expect(await channelsOf(conversation)).toEqual(await collectionChannels(CONVERSATION));
    expect((await post(conversation)).deliveries).toHaveLength(6);
  });

  it('records exactly what each platform receives', async () => {
    await create({
      publishMode: 'IMMEDIATE',
      collectionId: CONVERSATION,
      title: 'Not for X',
      poll: { question: 'Light or dark?', options: ['Light', 'Dark'], period: '1d' },
      platforms: { instagram: { collab: 'friend' } },
    });
    await scheduler.runOnce();
    const bodies = outbox().map((row) => JSON.parse(String(row.body)).content);
    expect(bodies.map((content) => content.platform).sort()).toEqual(
      ['Bluesky', 'LinkedIn', 'Mastodon', 'Telegram', 'Threads', 'X/Twitter'].sort(),
    );
    for (const content of bodies) {
      expect(content).toEqual({
        platform: expect.any(String),
        format: 'feed',
        caption: 'Hello',
        media: [],
        poll: { question: 'Light or dark?', options: ['Light', 'Dark'], period: '1d' },
      });
    }
  });

  it('publishes a QUEUE post at its queue time and an IMMEDIATE post on the next tick', async () => {
    const queued = await create({ publishMode: 'QUEUE', caption: 'Queued' }); // 09:00 New York = 14:00Z
    const now = await create({ publishMode: 'IMMEDIATE', caption: 'Now' });
    expect((await post(now)).status).toBe('publishing');
    await scheduler.runOnce();
    expect((await post(now)).status).toBe('partially_published');
    expect((await post(queued)).status).toBe('queued');
    rt.clock.set(Date.parse('2026-11-21T14:00:00Z'));
    await scheduler.runOnce();
    expect((await post(queued)).status).toBe('partially_published');
  });

  it('catches up on posts that fell due while it was not running', async () => {
    const ids = [];
    for (let day = 22; day <= 25; day++) {
      ids.push(
        await create({
          publishMode: 'SCHEDULE',
          scheduledAt: `2026-11-${day} 10:00:00`,
          caption: `Day ${day}`,
        }),
      );
    }
    rt.clock.set(Date.parse('2026-11-30T00:00:00Z'));
    expect(await scheduler.runOnce()).toMatchObject({ started: 4, sent: 44 });
    for (const id of ids) expect((await post(id)).status).toBe('partially_published');
  });

  it('posts the auto-comment delay seconds after each successful delivery, once', async () => {
    const id = await create({ publishMode: 'IMMEDIATE', comment: { comment: 'First!', delay: 90 } });
    await scheduler.runOnce();
    const sent = (await post(id)).deliveries.filter((d) => d.status === 'sent');
    expect(sent).toHaveLength(11);
    expect(
      sent.every((d) => d.comment.status === 'pending' && d.comment.dueAt === '2026-11-21T12:01:30.000000Z'),
    ).toBe(true);
    rt.clock.advance(89_999);
    expect((await scheduler.runOnce()).comments).toBe(0);
    rt.clock.advance(1);
    expect((await scheduler.runOnce()).comments).toBe(11);
    expect((await scheduler.runOnce()).comments).toBe(0);
    expect(outbox('comment').map((row) => JSON.parse(String(row.body)).comment)).toEqual(
      Array(11).fill('First!'),
    );
    expect(sendsOf('comment')).toEqual(Array(11).fill(1));
    const failed = (await post(id)).deliveries.find((d) => d.status === 'failed');
    expect(failed?.comment.status).toBe('none');
  });

  it('does not publish a cancelled post', async () => {
    const id = await create({ publishMode: 'QUEUE' });
    await rt.service.deletePost({ brandId: 1, postId: id });
    rt.clock.advance(24 * 60 * MINUTE);
    expect(await scheduler.runOnce()).toMatchObject({ started: 0, sent: 0 });
    expect((await post(id)).status).toBe('cancelled');
    expect(outbox()).toHaveLength(0);
  });

  it("sends a burst's first batch of posts while the next batches start, each batch in one claim", async () => {
    // Three posts of two brands due by 13:30Z, started one post at a time (a batch of one): each batch
    // is sent once its start committed, before the last post starts, not once the whole burst started;
    // and each batch is claimed at once.
    const order: string[] = [];
    const sandbox = new SandboxPublisher(rt.runtime.store.sandbox, rt.clock);
    const recording: Publisher = {
      name: 'recording',
      idempotent: true,
      deliver: async (job) => {
        order.push(`send ${job.postId}`);
        return sandbox.deliver(job);
      },
      comment: (job) => sandbox.comment(job),
    };
    const first = await create({ publishMode: 'SCHEDULE', scheduledAt: '2026-11-21 08:29:00' });
    await rt.service.createPost({
      brandId: 2,
      collectionId: 5,
      caption: 'Hello Tokyo',
      publishMode: 'SCHEDULE',
      scheduledAt: '2026-11-21 22:29:30', // Asia/Tokyo: 13:29:30Z
    });
    const last = await create({
      publishMode: 'SCHEDULE',
      scheduledAt: '2026-11-21 08:30:00',
      caption: 'Later',
    });
    rt.clock.set(Date.parse('2026-11-21T13:30:00Z'));
    const kiteChannels = 4;
    const claims: number[] = [];
    const store = rt.runtime.store;
    const claim = store.jobs.claim.bind(store.jobs);
    store.jobs.claim = async (...args) => {
      const claimed = await claim(...args);
      if (claimed.length > 0) claims.push(claimed.length);
      return claimed;
    };
    const batched = new Scheduler({
      store,
      clock: rt.clock,
      publisher: recording,
      batchSize: 1,
      events: (event) => {
        if (/publishing to/.test(event.message)) order.push(`start ${event.postId}`);
      },
    });
    const summary = await batched.runOnce();
    expect(summary).toMatchObject({ started: 3, sent: 22 + kiteChannels });
    expect(order.indexOf(`send ${first}`)).toBeGreaterThan(order.indexOf(`start ${first}`));
    expect(order.indexOf(`send ${first}`)).toBeLessThan(order.indexOf(`start ${last}`));
    expect(claims.slice(0, 3)).toEqual([11, kiteChannels, 11]);
    expect(sendsOf()).toEqual(Array(22 + kiteChannels).fill(1));
  });

  it('asks the publisher once per delivery', async () => {
    for (let i = 0; i < 3; i++) await create({ publishMode: 'IMMEDIATE', caption: `Post ${i}` });
    expect(await scheduler.runOnce()).toMatchObject({ sent: 33 });
    expect(await scheduler.runOnce()).toMatchObject({ sent: 0 });
    expect(sendsOf()).toEqual(Array(33).fill(1));
  });

  it('leaves another process its claims while their lease lasts, then sends them again once', async () => {
    const id = await create({ publishMode: 'IMMEDIATE' });
    const leaseUntilMs = rt.clock.now() + 30_000;
    // Another process claimed five deliveries and sent the first before it died: they stay `sending`.
    const claimed = await claimAsOtherProcess(
      rt.runtime.store,
      5,
      otherProcess(leaseUntilMs),
      rt.clock.now(),
    );
    await new SandboxPublisher(rt.runtime.store.sandbox, rt.clock).deliver({
      deliveryId: claimed[0]!.id,
      postId: claimed[0]!.postId,
      brandId: 1,
      channel: { id: claimed[0]!.channelId, name: claimed[0]!.channelName, type: claimed[0]!.channelType },
      content: claimed[0]!.content!,
      idempotencyKey: `test-${claimed[0]!.id}`,
      dueAtMs: rt.clock.now(),
      attempt: 1,
      state: {},
    });
    expect(await scheduler.runOnce()).toMatchObject({ sent: 6 });
    expect((await post(id)).status).toBe('publishing');
    rt.clock.set(leaseUntilMs); // the lease lasts up to its end
    expect(await scheduler.runOnce()).toMatchObject({ sent: 0 });
    rt.clock.set(leaseUntilMs + 1);
    expect(await scheduler.runOnce()).toMatchObject({ sent: 5 });
    expect((await post(id)).status).toBe('partially_published');
    // Only the delivery the dead process had sent was sent twice, which the idempotent sandbox allows.
    expect(
      outbox()
        .filter((row) => Number(row.sends) === 2)
        .map((row) => row.delivery_id),
    ).toEqual([claimed[0]!.id]);
    expect(sendsOf().filter((n) => n === 1)).toHaveLength(10);
    const deliveries = (await post(id)).deliveries;
    expect(deliveries.filter((d) => d.attempts === 2).map((d) => d.id)).toEqual(claimed.map((d) => d.id));
  });

  it('posts a comment another process left mid-send again only once its lease is over', async () => {
    await create({ publishMode: 'IMMEDIATE', comment: { comment: 'First!', delay: 60 } });
    await scheduler.runOnce();
    rt.clock.advance(60_000);
    const leaseUntilMs = rt.clock.now() + 30_000;
    const claimed = await claimAsOtherProcess(
      rt.runtime.store,
      3,
      otherProcess(leaseUntilMs),
      rt.clock.now(),
    );
    expect(claimed).toHaveLength(3);
    expect((await scheduler.runOnce()).comments).toBe(8);
    rt.clock.set(leaseUntilMs + 1);
    expect((await scheduler.runOnce()).comments).toBe(3);
    expect(sendsOf('comment')).toEqual(Array(11).fill(1));
  });
});

describe('scheduler with a failing platform', () => {
  /** A platform whose client throws (a bug, a socket torn down) instead of answering. */
  const throwing = (on: 'deliver' | 'comment'): Publisher => ({
    name: 'flaky',
    idempotent: true,
    deliver: async (job) => {
      if (on === 'deliver') throw new Error('socket hang up');
      return { ok: true, externalId: `ok-${job.deliveryId}` };
    },
    comment: async () => {
      throw new Error('socket hang up');
    },
  });

  it('fails a delivery whose publisher throws, with the reason, and goes on', async () => {
    scheduler = new Scheduler({ store: rt.runtime.store, clock: rt.clock, publisher: throwing('deliver') });
    const id = await create({ publishMode: 'IMMEDIATE', collectionId: CONVERSATION });
    expect(await scheduler.runOnce()).toMatchObject({ sent: 0, failed: 6 });
    const post = await rt.service.getPost({ brandId: 1, postId: id });
    expect(post.status).toBe('failed');
    expect(post.deliveries.map((d) => d.reason)).toEqual(
      Array(6).fill('The flaky publisher failed: socket hang up'),
    );
  });

  it('fails a comment whose publisher throws, with the reason', async () => {
    scheduler = new Scheduler({ store: rt.runtime.store, clock: rt.clock, publisher: throwing('comment') });
    const id = await create({
      publishMode: 'IMMEDIATE',
      collectionId: CONVERSATION,
      comment: { comment: 'First!', delay: 1 },
    });
    await scheduler.runOnce();
    rt.clock.advance(1_000);
    expect((await scheduler.runOnce()).comments).toBe(0);
    const post = await rt.service.getPost({ brandId: 1, postId: id });
    expect(post.deliveries.map((d) => [d.comment.status, d.comment.reason])).toEqual(
      Array(6).fill(['failed', 'The flaky publisher failed: socket hang up']),
    );
  });

  it('never takes back its own claim, even when its lease ran out while it was still sending', async () => {
    const platform = new HeldPlatform();
    scheduler = new Scheduler({
      store: rt.runtime.store,
      clock: rt.clock,
      publisher: platform,
      concurrency: 1,
    });
    const id = await create({ publishMode: 'IMMEDIATE', collectionId: CONVERSATION });
    platform.hold();
    const first = scheduler.runOnce();
    await platform.sendStarted;
    rt.clock.advance(31_000); // past the lease, with no renewal on the fake clock
    await scheduler.runOnce();
    platform.open();
    await first;
    const post = await rt.service.getPost({ brandId: 1, postId: id });
    expect(post.status).toBe('published');
    expect(post.deliveries.map((d) => d.attempts)).toEqual(Array(6).fill(1));
    expect([...platform.sends.values()]).toEqual(Array(6).fill(1));
  });
});

describe('scheduler with the webhook publisher', () => {
  let server: Server;
  let received: Array<{ headers: IncomingMessage['headers']; body: Record<string, unknown> }>;
  let failFor: string | undefined;

  beforeEach(async () => {
    received = [];
    failFor = undefined;
    server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk) => {
        text += chunk;
      });
      request.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        received.push({ headers: request.headers, body });
        const channel = body.channel as { type: string };
        response.statusCode = failFor === '*' || channel.type === failFor ? 422 : 200;
        response.end(JSON.stringify({ id: `ext-${received.length}` }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  function webhookScheduler(options: { leaseMs?: number; events?: PublishingEventSink } = {}): Scheduler {
    const { port } = server.address() as AddressInfo;
    return new Scheduler({
      store: rt.runtime.store,
      clock: rt.clock,
      publisher: new WebhookPublisher({
        url: `http://127.0.0.1:${port}/hook`,
        secret: 'a-webhook-secret-of-some-length',
        maxAttempts: 1,
      }),
      ...options,
    });
  }

  it('delivers each channel to the webhook once; a refused delivery fails with the reason, the others go on', async () => {
    scheduler = webhookScheduler();
    failFor = 'Instagram';
    const id = await create({ publishMode: 'IMMEDIATE' });
    await scheduler.runOnce();
    expect(received).toHaveLength(11);
    expect(new Set(received.map((r) => r.headers['idempotency-key'])).size).toBe(11);
    const result = await post(id);
    expect(result.status).toBe('partially_published');
    const instagram = result.deliveries.find((d) => d.channelType === 'Instagram');
    expect(instagram).toMatchObject({ status: 'failed' });
    expect(instagram?.reason).toContain('422');
    expect(result.deliveries.find((d) => d.channelType === 'Facebook')?.externalId).toMatch(/^ext-\d+$/);
  });

  it("tells the brand each delivery that failed and the post's end, once each", async () => {
    const events: PublishingEvent[] = [];
    scheduler = webhookScheduler({ events: (event) => events.push(event) });
    failFor = 'Telegram';
    const id = await create({ publishMode: 'IMMEDIATE' });
    // Another process claimed three deliveries and died: they fail, with their reason, once the lease ends.
    await claimAsOtherProcess(rt.runtime.store, 3, otherProcess(rt.clock.now() + MINUTE), rt.clock.now());
    await scheduler.runOnce();
    rt.clock.advance(MINUTE + 1);
    await scheduler.runOnce();
    await scheduler.runOnce();
    const messages = events.map((event) => `${event.level} ${event.message}`);
    expect(messages.filter((m) => m.includes('failed: The webhook answered 422'))).toEqual([
      expect.stringMatching(
        new RegExp(`^warning delivery \\d+ of post ${id} to Northwind Coffee on Telegram failed`),
      ),
    ]);
    expect(messages.filter((m) => m.includes('whether it arrived is unknown'))).toHaveLength(3);
    expect(messages.filter((m) => m === `warning post ${id}: partially published`)).toHaveLength(1);
    expect(events.every((event) => event.brandId === 1 && event.postId === id)).toBe(true);
    const post = await rt.service.getPost({ brandId: 1, postId: id });
    const failed = post.deliveries.filter((d) => d.status === 'failed');
    expect(failed).toHaveLength(5); // Pinterest (INACTIVE), Telegram (refused), three in doubt
    expect(failed.every((d) => d.sentAt === null && d.externalId === null)).toBe(true);
  });

  it('fails a post none of whose deliveries went out, with no published time', async () => {
    scheduler = webhookScheduler();
    failFor = '*';
    const id = await create({ publishMode: 'IMMEDIATE', collectionId: CONVERSATION });
    await scheduler.runOnce();
    const post = await rt.service.getPost({ brandId: 1, postId: id });
    expect(post.status).toBe('failed');
    expect(post.publishedAt).toBeNull();
  });

  it('fails, never reposts, a comment another process left mid-send once its lease is over', async () => {
    scheduler = webhookScheduler();
    const id = await create({
      publishMode: 'IMMEDIATE',
      collectionId: CONVERSATION,
      comment: { comment: 'First!', delay: 60 },
    });
    await scheduler.runOnce();
    rt.clock.advance(60_000);
    const leaseUntilMs = rt.clock.now() + MINUTE;
    const inDoubt = await claimAsOtherProcess(
      rt.runtime.store,
      2,
      otherProcess(leaseUntilMs),
      rt.clock.now(),
    );
    expect((await scheduler.runOnce()).comments).toBe(4);
    rt.clock.set(leaseUntilMs + 1);
    expect((await scheduler.runOnce()).comments).toBe(0);
    const comments = received.filter((r) => r.headers['x-social-publisher-event'] === 'comment');
    expect(comments).toHaveLength(4);
    const deliveries = (await rt.service.getPost({ brandId: 1, postId: id })).deliveries;
    const failed = deliveries.filter((d) => d.comment.status === 'failed');
    expect(failed.map((d) => d.id).sort()).toEqual(inDoubt.map((d) => d.id).sort());
    expect(failed.every((d) => d.comment.reason?.includes('whether it arrived is unknown'))).toBe(true);
    expect(failed.every((d) => d.comment.sentAt === null)).toBe(true);
    const posted = deliveries.filter((d) => d.comment.status === 'sent');
    expect(posted.map((d) => d.comment.sentAt)).toEqual(Array(4).fill('2026-11-21T12:01:00.000000Z'));
  });

  it('marks failed, never resends, a webhook delivery left in doubt once its lease is over', async () => {
    scheduler = webhookScheduler();
    const id = await create({ publishMode: 'IMMEDIATE' });
    await claimAsOtherProcess(rt.runtime.store, 3, otherProcess(rt.clock.now() + 5 * MINUTE), rt.clock.now());
    await scheduler.runOnce();
    expect(received).toHaveLength(8); // the 3 in doubt are neither sent nor settled yet
    expect((await post(id)).status).toBe('publishing');
    rt.clock.advance(5 * MINUTE);
    await scheduler.runOnce();
    expect((await post(id)).status).toBe('publishing'); // still within the lease
    rt.clock.advance(1);
    await scheduler.runOnce();
    expect(received).toHaveLength(8);
    const result = await post(id);
    expect(result.deliveries.filter((d) => d.reason?.includes('whether it arrived is unknown'))).toHaveLength(
      3,
    );
    expect(result.status).toBe('partially_published');
  });
});

/** The post's status once it is `wanted`, or after ~2 s of asking (the loop runs on real time). */
async function statusWhenSettled(service: LocalPublishingService, postId: number | null, wanted: string) {
  for (let i = 0; i < 100; i++) {
    const { status } = await service.getPost({ brandId: 1, postId });
    if (status === wanted) return status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return (await service.getPost({ brandId: 1, postId })).status;
}

describe('scheduler loop', () => {
  it('publishes a post scheduled a moment ahead on time, not at its next long sleep', async () => {
    const realTime = await openTestRuntime({ now: Date.now() });
    const clock = { now: () => Date.now() };
    const loop = new Scheduler({
      store: realTime.runtime.store,
      clock,
      publisher: new SandboxPublisher(realTime.runtime.store.sandbox, clock),
      maxSleepMs: 60_000,
    });
    try {
      loop.start();
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The service tells the loop about every post it plans, as the running servers wire it.
      const service = new LocalPublishingService(
        { ...realTime.runtime, onPlanChanged: () => loop.wake() },
        await resolveLocalUser(realTime.runtime.store, undefined),
      );
      const due = Math.ceil((Date.now() + 1500) / 1000) * 1000;
      const created = await service.createPost({
        brandId: 1,
        collectionId: CONVERSATION,
        publishMode: 'SCHEDULE',
        scheduledAt: formatLocalTime(due, 'America/New_York'),
        caption: 'Soon',
      });
      for (let i = 0; i < 200; i++) {
        if ((await service.getPost({ brandId: 1, postId: created.id })).status === 'published') break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const post = await service.getPost({ brandId: 1, postId: created.id });
      expect(post.status).toBe('published');
      // Sent at its instant (give or take a tick), far from the 60 s the loop would otherwise sleep.
      expect(Date.parse(post.publishedAt!) - due).toBeLessThan(2000);
    } finally {
      await loop.stop();
      await realTime.close();
    }
  });

  it('keeps running when the store cannot be read while it plans its next tick', async () => {
    const realTime = await openTestRuntime({ now: Date.now() });
    const { store } = realTime.runtime;
    let failing = true;
    let failedReads = 0;
    // The real store, whose next-due read fails as a busy or closing database would.
    const posts = new Proxy(store.posts, {
      get(target, key, receiver) {
        if (key === 'nextDueAtMs' && failing) {
          return async () => {
            failedReads++;
            throw new Error('database is locked');
          };
        }
        const value = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const logged: string[] = [];
    const clock = { now: () => Date.now() };
    const loop = new Scheduler({
      store: new Proxy(store, { get: (target, key) => (key === 'posts' ? posts : Reflect.get(target, key)) }),
      clock,
      publisher: new SandboxPublisher(store.sandbox, clock),
      maxSleepMs: 20,
      log: (message) => logged.push(message),
    });
    try {
      loop.start();
      for (let i = 0; i < 100 && failedReads < 3; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(failedReads).toBeGreaterThanOrEqual(3); // it tried again: the loop is alive
      // Said once, not at every try.
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain('planning the next publishing tick failed');
      failing = false;
      const created = await realTime.service.createPost({
        brandId: 1,
        collectionId: CONVERSATION,
        publishMode: 'IMMEDIATE',
        caption: 'After the failure',
      });
      loop.wake();
      expect(await statusWhenSettled(realTime.service, created.id, 'published')).toBe('published');
    } finally {
      await loop.stop();
      await realTime.close();
    }
  });

  it('starts and stops idempotently and publishes an IMMEDIATE post when woken', async () => {
    const realTime = await openTestRuntime({ now: Date.now() });
    const loop = new Scheduler({
      store: realTime.runtime.store,
      clock: { now: () => Date.now() },
      publisher: new SandboxPublisher(realTime.runtime.store.sandbox, { now: () => Date.now() }),
      maxSleepMs: 60_000,
    });
    try {
      loop.start();
      loop.start();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const created = await realTime.service.createPost({
        brandId: 1,
        collectionId: CONVERSATION,
        publishMode: 'IMMEDIATE',
        caption: 'Woken',
      });
      loop.wake();
      expect(await statusWhenSettled(realTime.service, created.id, 'published')).toBe('published');
      await loop.stop();
      await loop.stop();
    } finally {
      await loop.stop();
      await realTime.close();
    }
  });

  /**
   * A running loop (real time, one send at a time) whose first send of a new IMMEDIATE post to the six
   * Conversation channels is held mid-send.
   */
  async function loopHeldMidSend(caption: string) {
    const realTime = await openTestRuntime({ now: Date.now() });
    const platform = new HeldPlatform();
    const loop = new Scheduler({
      store: realTime.runtime.store,
      clock: { now: () => Date.now() },
      publisher: platform,
      concurrency: 1,
      maxSleepMs: 60_000,
    });
    const created = await realTime.service.createPost({
      brandId: 1,
      collectionId: CONVERSATION,
      publishMode: 'IMMEDIATE',
      caption,
    });
    platform.hold();
    loop.start();
    await platform.sendStarted;
    return { realTime, platform, loop, postId: created.id };
  }

  it('never runs two ticks at once, however often it is started', async () => {
    const { realTime, platform, loop, postId } = await loopHeldMidSend('One tick at a time');
    try {
      // A second start (or a wake) while the tick is held mid-send must not start a second tick, which
      // would send the post's other deliveries beside the held one.
      loop.start();
      loop.wake();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect([...platform.sends.values()]).toEqual([1]);
      platform.open();
      expect(await statusWhenSettled(realTime.service, postId, 'published')).toBe('published');
      expect([...platform.sends.values()]).toEqual(Array(6).fill(1));
    } finally {
      await loop.stop();
      await realTime.close();
    }
  });

  it('on stop, finishes and records the send under way, claims nothing more, leaves the rest pending', async () => {
    const { realTime, platform, loop, postId } = await loopHeldMidSend('Stopping');
    try {
      let stopped = false;
      const stopping = loop.stop().then(() => {
        stopped = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(stopped).toBe(false); // it waits for the send under way
      platform.open();
      await stopping;
      const deliveries = (await realTime.service.getPost({ brandId: 1, postId })).deliveries;
      expect(deliveries.map((d) => d.status).sort()).toEqual([
        'pending',
        'pending',
        'pending',
        'pending',
        'pending',
        'sent',
      ]);
      expect([...platform.sends.values()]).toEqual([1]);
    } finally {
      await loop.stop();
      await realTime.close();
    }
  });

  it("takes over a stopped process's claim when its lease ends, not at its next long sleep", async () => {
    const realTime = await openTestRuntime({ now: Date.now() });
    const clock = { now: () => Date.now() };
    const loop = new Scheduler({
      store: realTime.runtime.store,
      clock,
      publisher: new SandboxPublisher(realTime.runtime.store.sandbox, clock),
      maxSleepMs: 60_000,
    });
    try {
      const created = await realTime.service.createPost({
        brandId: 1,
        collectionId: CONVERSATION,
        publishMode: 'IMMEDIATE',
        caption: 'Left behind',
      });
      // A process claimed one delivery and died; its lease ends 500 ms from now.
      const leaseEnd = Date.now() + 500;
      await claimAsOtherProcess(realTime.runtime.store, 1, otherProcess(leaseEnd), Date.now());
      loop.start();
      expect(await statusWhenSettled(realTime.service, created.id, 'published')).toBe('published');
      const post = await realTime.service.getPost({ brandId: 1, postId: created.id });
      expect(Date.parse(post.publishedAt!)).toBeGreaterThan(leaseEnd);
      expect(Date.parse(post.publishedAt!) - leaseEnd).toBeLessThan(1_500);
      expect(post.deliveries.map((d) => d.attempts).sort()).toEqual([1, 1, 1, 1, 1, 2]);
    } finally {
      await loop.stop();
      await realTime.close();
    }
  });
});
