/**
 * Three `serve` instances on one PostgreSQL (docs/deploy.md's setup, on the built program), publishing
 * through the webhook to a receiver here that counts every request it gets, by idempotency key (so by
 * delivery and comment). Writers create QUEUE, SCHEDULE (due a few seconds ahead)
 * and IMMEDIATE posts over the REST API, concurrently and spread over all three; an unanswered create is
 * retried with its Idempotency-Key on the next instance. Meanwhile instances are SIGKILLed at random and
 * started again. At the end:
 *
 * - every post whose create was answered is there, once (no key made two posts);
 * - no queue slot is held by two posts;
 * - nothing is stuck: every due post settled, no delivery or comment pending or being sent;
 * - by default, no delivery or comment reached the receiver twice; every one recorded sent arrived exactly
 *   once; one a kill left in doubt (it was being sent at that moment) was failed with the reason, never
 *   resent, and there are at most as many of those as kills × concurrency;
 * - with SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES (the receiver publishes once per idempotency key, as this
 *   one then does), nothing is failed: every delivery and comment is sent, each published once; a
 *   request repeated is only one a kill left in doubt, sent again with its key and the same body, at most
 *   kills × concurrency of them.
 *
 * The run is seeded (MULTI_INSTANCE_SEED, printed): the choices replay (which instance is killed, when,
 * which modes are written where); the machine's scheduling of course does not.
 */

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { formatLocalTime } from '../../src/domain/time.js';
import { DELIVERY_SELECT } from '../../src/store/row-records.js';
import { cleanup } from '../mcp/cli-harness.js';
import {
  CHANNELS,
  CONCURRENCY,
  createPost,
  type Instance,
  seededRandom,
  sleep,
  startCluster,
  TIMEZONE,
  usePostgresServer,
} from './cluster.js';

const postgres = usePostgresServer();
afterEach(cleanup);

const SEED = Number(process.env.MULTI_INSTANCE_SEED ?? 20261122);
const LEASE_SECONDS = 3;
const WRITERS = 4;
const POSTS_PER_WRITER = 45;
const KILLS = 5;
const IN_DOUBT = 'whether it arrived is unknown';

/**
 * A platform stand-in that counts every request by idempotency key, keeps the body each key first came
 * with (what it published) and the bodies of any repeats, and answers after a moment.
 */
async function startReceiver() {
  const received = new Map<string, number>();
  const published = new Map<string, string>();
  const repeats: { key: string; body: string }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const key = String(request.headers['idempotency-key']);
      const body = Buffer.concat(chunks).toString('utf8');
      received.set(key, (received.get(key) ?? 0) + 1);
      if (published.has(key)) repeats.push({ key, body });
      else published.set(key, body);
      // A send takes a while, as on a real platform: kills land mid-send.
      setTimeout(() => response.end(JSON.stringify({ id: `ext-${key}` })), 5 + Math.random() * 25);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    published,
    repeats,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

type StoredDelivery = {
  id: string;
  status: string;
  reason: string | null;
  comment_status: string;
  external_id: string | null;
};

/**
 * The run both tests share: writers and kills as the file's comment says, until everything due has
 * settled and the instances have stopped; then the deliveries as stored.
 */
async function chaos(receiver: Receiver, env: Record<string, string>) {
  const random = seededRandom(SEED);
  process.stderr.write(`three instances: seed ${SEED} (MULTI_INSTANCE_SEED replays it)\n`);
  const cluster = await startCluster(postgres(), {
    instances: 3,
    env: {
      SOCIAL_PUBLISHER_CLAIM_LEASE_SECONDS: String(LEASE_SECONDS),
      SOCIAL_PUBLISHER_WEBHOOK_URL: receiver.url,
      SOCIAL_PUBLISHER_WEBHOOK_SECRET: 'a-webhook-secret-for-the-test',
      ...env,
    },
  });
  const { instances, apiKey } = cluster;
  const started = performance.now();
  try {
    // Each writer's plan, drawn up front from the seed: the mode of each post and where it goes first.
    const plans = Array.from({ length: WRITERS }, (_, writer) =>
      Array.from({ length: POSTS_PER_WRITER }, (_, i) => ({
        writer,
        i,
        mode: (['IMMEDIATE', 'SCHEDULE', 'QUEUE'] as const)[Math.floor(random() * 3)]!,
        dueInMs: 2_000 + Math.floor(random() * 5_000),
        comment: random() < 0.25,
        instance: Math.floor(random() * instances.length),
      })),
    );
    const writing = plans.map(async (plan) => {
      const answered: number[] = [];
      for (const post of plan) {
        const body: Record<string, unknown> = {
          publishMode: post.mode,
          caption: `writer ${post.writer} post ${post.i} (${post.mode})`,
        };
        if (post.mode === 'SCHEDULE') {
          body.scheduledAt = formatLocalTime(Date.now() + post.dueInMs, TIMEZONE);
        }
        if (post.comment) body.comment = { comment: `More on post ${post.i}`, delay: 1 };
        const key = `w${post.writer}-${post.i}-${randomUUID()}`;
        // Not answered (the instance was killed, or is starting again): the same key on the next one.
        for (let attempt = 0; ; attempt++) {
          const target = instances[(post.instance + attempt) % instances.length]!;
          try {
            if (!target.running) throw new Error(`${target.name} is down`);
            answered.push(await createPost(target.url, apiKey, body, key));
            break;
          } catch (error) {
            if (attempt > 300) throw error;
            await sleep(20);
          }
        }
      }
      return answered;
    });

    // While they write and publish: SIGKILL an instance at random, start it again at once.
    const killed: string[] = [];
    for (let kill = 0; kill < KILLS; kill++) {
      await sleep(800 + Math.floor(random() * 1_200));
      const victim: Instance = instances[Math.floor(random() * instances.length)]!;
      await victim.kill();
      killed.push(victim.name);
      await victim.start();
    }
    const created = (await Promise.all(writing)).flat();
    const writtenMs = performance.now() - started;

    // Every answered post is there, once.
    expect(new Set(created).size).toBe(WRITERS * POSTS_PER_WRITER);
    const stored = await cluster.query<{ id: number }>('SELECT id FROM posts');
    expect(stored.map((row) => Number(row.id)).sort((a, b) => a - b)).toEqual(
      [...created].sort((a, b) => a - b),
    );
    // No queue slot given to two posts, whichever instance chose it.
    const queued = await cluster.query<{ due_at_ms: string }>(
      `SELECT due_at_ms FROM posts WHERE publish_mode = 'QUEUE' AND status = 'queued'`,
    );
    expect(queued.length).toBeGreaterThan(0);
    expect(new Set(queued.map((row) => row.due_at_ms)).size).toBe(queued.length);

    // Nothing stuck: everything due settles, the last SCHEDULE posts and the in-doubt takeovers (a
    // lease after a kill) included.
    const open = async () =>
      Number(
        (
          await cluster.query<{ n: string }>(
            `SELECT (SELECT COUNT(*) FROM posts WHERE status = 'publishing'
                       OR (status = 'scheduled' AND due_at_ms <= $1))
                  + (SELECT COUNT(*) FROM jobs WHERE status IN ('waiting', 'active')) AS n`,
            [Date.now()],
          )
        )[0]!.n,
      );
    const deadline = Date.now() + 30_000;
    while ((await open()) > 0 && Date.now() < deadline) await sleep(100);
    expect(await open()).toBe(0);
    const settledMs = performance.now() - started;
    await cluster.stopAll();

    const deliveries = await cluster.query<StoredDelivery>(
      `SELECT id, status, reason, comment_status, external_id FROM (${DELIVERY_SELECT}) AS delivery ORDER BY id`,
    );
    const settledPosts = await cluster.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM posts WHERE status IN ('published', 'partially_published', 'failed')`,
    );
    expect(deliveries.length).toBe(Number(settledPosts[0]!.n) * CHANNELS.length);
    return { deliveries, killed, posts: created.length, writtenMs, settledMs };
  } finally {
    await cluster.stopAll();
  }
}

it('publishes every delivery at most once, and once unless a kill left it in doubt, across three instances killed at random', async () => {
  const receiver = await startReceiver();
  try {
    const run = await chaos(receiver, {});
    const sends = (key: string) => receiver.received.get(key) ?? 0;
    // Nothing reached the receiver twice.
    expect([...receiver.received.entries()].filter(([, n]) => n > 1)).toEqual([]);
    let inDoubt = 0;
    for (const delivery of run.deliveries) {
      if (delivery.status === 'sent') {
        expect(sends(`delivery-${delivery.id}`), `delivery ${delivery.id}`).toBe(1);
      } else {
        // Being sent when its instance was killed: failed with the reason, not sent again.
        expect(delivery, `delivery ${delivery.id}`).toMatchObject({ status: 'failed' });
        expect(delivery.reason).toContain(IN_DOUBT);
        inDoubt++;
      }
      if (delivery.comment_status === 'sent') expect(sends(`comment-${delivery.id}`)).toBe(1);
    }
    expect(inDoubt).toBeLessThanOrEqual(KILLS * CONCURRENCY);
    process.stderr.write(
      `three instances: ${run.posts} posts written in ${Math.round(run.writtenMs)} ms, ${run.deliveries.length} deliveries settled ${Math.round(run.settledMs)} ms after the start; killed ${run.killed.join(', ')}; ${inDoubt} left in doubt by the kills; ${receiver.received.size} distinct sends, none twice\n`,
    );
  } finally {
    await receiver.close();
  }
}, 120_000);

it('publishes every delivery exactly once, across three instances killed at random, to a receiver that deduplicates (SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES)', async () => {
  const receiver = await startReceiver();
  try {
    const run = await chaos(receiver, { SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES: '1' });
    // Nothing lost to doubt: every delivery, and every comment asked for, was sent and recorded with the
    // receiver's answer.
    for (const delivery of run.deliveries) {
      const key = `delivery-${delivery.id}`;
      expect(delivery, `delivery ${delivery.id}`).toMatchObject({
        status: 'sent',
        external_id: `ext-${key}`,
      });
      expect(receiver.published.has(key), key).toBe(true);
      if (delivery.comment_status !== 'none') {
        expect(delivery.comment_status, `comment of delivery ${delivery.id}`).toBe('sent');
        expect(receiver.published.has(`comment-${delivery.id}`)).toBe(true);
      }
    }
    // Published once each: the receiver got nothing but these deliveries and comments.
    const expected = run.deliveries.flatMap((delivery) => [
      `delivery-${delivery.id}`,
      ...(delivery.comment_status === 'sent' ? [`comment-${delivery.id}`] : []),
    ]);
    expect([...receiver.published.keys()].sort()).toEqual(expected.sort());
    // A request repeated is a send a kill left in doubt, sent again with its key and the same content
    // (only the time of sending differs).
    const content = (body: string) => ({ ...(JSON.parse(body) as object), sentAt: undefined });
    for (const repeat of receiver.repeats) {
      expect(content(repeat.body), repeat.key).toEqual(content(receiver.published.get(repeat.key)!));
    }
    expect(receiver.repeats.length).toBeLessThanOrEqual(KILLS * CONCURRENCY);
    process.stderr.write(
      `three instances, deduplicating receiver: ${run.posts} posts, ${run.deliveries.length} deliveries all sent and published once each; killed ${run.killed.join(', ')}; ${receiver.repeats.length} sent again after a kill left them in doubt\n`,
    );
  } finally {
    await receiver.close();
  }
}, 120_000);
