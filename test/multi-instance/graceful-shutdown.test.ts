/**
 * SIGTERM to one of two instances while both are sending, on the built program and one PostgreSQL, with
 * the default 30 s lease: the stopping instance answers /health with 503 at once while still serving the
 * API for its drain time (SOCIAL_PUBLISHER_DRAIN_SECONDS), then stops accepting, finishes the sends it
 * has under way, hands back whatever it claimed but had not begun, tells the other instance, and exits
 * 0 holding no claim. So the other instance publishes everything left right away: nothing waits for the
 * stopped instance's lease to run out, nothing is failed as in doubt, nothing is sent twice.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { cleanup } from '../mcp/cli-harness.js';
import { CHANNELS, createPost, sleep, startCluster, usePostgresServer } from './cluster.js';

const postgres = usePostgresServer();
afterEach(cleanup);

const POSTS = 6;
/** How long the receiver takes over each send: long enough for the SIGTERM to land mid-send. */
const SEND_MS = 1_200;
const LEASE_MS = 30_000;

it('hands its work to the other instance on SIGTERM: no claim left, nothing waits for the lease', async () => {
  const received = new Map<string, number>();
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const key = String(request.headers['idempotency-key']);
      received.set(key, (received.get(key) ?? 0) + 1);
      setTimeout(() => response.end('{}'), SEND_MS);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const cluster = await startCluster(postgres(), {
    instances: 2,
    env: {
      SOCIAL_PUBLISHER_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      SOCIAL_PUBLISHER_WEBHOOK_SECRET: 'a-webhook-secret-for-the-test',
      SOCIAL_PUBLISHER_DRAIN_SECONDS: '1',
    },
  });
  const a = cluster.instances[0]!;
  const health = async (url: string) => {
    const response = await fetch(`${url}/health`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  try {
    expect(await health(a.url)).toEqual({
      status: 200,
      body: { status: 'ok', store: 'ok', engine: 'running', shuttingDown: false },
    });
    // Created on A; B hears of them by the plan signal. Both start sending, 8 at a time each.
    for (let i = 0; i < POSTS; i++) {
      await createPost(a.url, cluster.apiKey, { publishMode: 'IMMEDIATE', caption: `Roast ${i}` }, `k${i}`);
    }
    const total = POSTS * CHANNELS.length;
    const pidA = a.pid;
    // SIGTERM while A has sends under way.
    const sendingOnA = async () =>
      Number(
        (
          await cluster.query<{ n: string }>(
            `SELECT COUNT(*) AS n FROM jobs WHERE kind = 'send' AND status = 'active' AND owner LIKE $1`,
            [`%:${pidA}:%`],
          )
        )[0]!.n,
      );
    while ((await sendingOnA()) === 0) await sleep(20);

    const stopped = a.stop();
    const terminatedAt = performance.now();
    // Draining: /health says 503 at once, while the API still answers.
    await sleep(200);
    expect(await health(a.url)).toMatchObject({
      status: 503,
      body: { status: 'unavailable', shuttingDown: true },
    });
    const brands = await fetch(`${a.url}/v1/brands`, {
      headers: { authorization: `Bearer ${cluster.apiKey}` },
    });
    expect(brands.status).toBe(200);
    expect(await stopped).toBe(0);
    const exitedMs = performance.now() - terminatedAt;

    // It left no claim behind: everything it had claimed was sent and recorded, or handed back.
    expect(await sendingOnA()).toBe(0);

    // B publishes the rest now, far sooner than A's lease would have let it.
    const open = async () =>
      Number(
        (
          await cluster.query<{ n: string }>(
            `SELECT COUNT(*) AS n FROM deliveries WHERE status IN ('pending', 'sending')`,
          )
        )[0]!.n,
      );
    while ((await open()) > 0 && performance.now() - terminatedAt < LEASE_MS) await sleep(50);
    const doneMs = performance.now() - terminatedAt;
    expect(await open()).toBe(0);
    // Had A left a claim, B would have taken it only once its lease ended, about 30 s after the claim.
    expect(doneMs).toBeLessThan((LEASE_MS * 2) / 3);

    const rows = await cluster.query<{ id: string; status: string; claim_owner: string }>(
      `SELECT d.id, d.status, s.owner AS claim_owner
       FROM deliveries d JOIN jobs s ON s.delivery_id = d.id AND s.kind = 'send' ORDER BY d.id`,
    );
    expect(rows).toHaveLength(total);
    expect(rows.filter((row) => row.status !== 'sent')).toEqual([]);
    expect([...received.values()].every((n) => n === 1)).toBe(true);
    expect(received.size).toBe(total);
    const byA = rows.filter((row) => row.claim_owner.includes(`:${pidA}:`)).length;
    const handedBack = (a.log().match(/handed back unsent/g) ?? []).length;
    expect(a.log()).toContain('stopping: finishing the sends under way');
    process.stderr.write(
      `graceful shutdown: A exited ${Math.round(exitedMs)} ms after SIGTERM (1 s drain, sends of ${SEND_MS} ms under way); A sent ${byA} of ${total}, handed back ${handedBack}; all ${total} sent once ${Math.round(doneMs)} ms after SIGTERM (lease ${LEASE_MS / 1000} s)\n`,
    );
  } finally {
    await cluster.stopAll();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}, 90_000);
