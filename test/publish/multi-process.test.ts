/**
 * Several processes on one data directory, the documented configuration: two `serve` and one stdio
 * server (driven by the MCP SDK client, as Claude Desktop would) share one store while IMMEDIATE,
 * SCHEDULE and QUEUE posts are created through all three. Sends are counted where they happen:
 *
 * - with the webhook publisher, at a receiver in this test that counts every request (no deduplication),
 *   while processes are SIGKILLed and restarted mid-work: no delivery or comment arrives twice, every
 *   delivery recorded as sent arrived once, and one a killed process left in doubt is failed, not resent;
 * - with the sandbox (idempotent, so a resend would be allowed after a crash) and no kills: every delivery
 *   is claimed once and sent once, however the three processes' ticks interleave.
 *
 * In both, each post is announced settled once, no queue slot is held twice, and nothing is left open.
 */

import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, it } from 'vitest';
import { formatLocalTime } from '../../src/domain/time.js';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { DELIVERY_SELECT } from '../../src/store/row-records.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import {
  CHILD_TIMEOUT_MS,
  childEnv,
  cleanup,
  connectStdio,
  requireBuild,
  runMain,
  spawnMain,
  tempDir,
} from '../mcp/cli-harness.js';
import { ACME_CHANNELS, ACME_TIMEZONE, acmeWorkspaceFile } from '../support/acme-workspace.js';

const API_KEY = 'multi-process-key-0123456789abcdef';
const TIMEZONE = ACME_TIMEZONE;
const CHANNELS = ACME_CHANNELS;
const LEASE_SECONDS = 2;
/**
 * Deliveries (or comments) one process sends at once (SOCIAL_PUBLISHER_SENDS_IN_FLIGHT, set so): the most
 * a kill can leave in doubt.
 */
const CONCURRENCY = 8;
const IN_DOUBT = 'whether it arrived is unknown';

afterEach(cleanup);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A platform stand-in that counts every request it gets, by idempotency key, and answers after a moment. */
async function startReceiver(): Promise<{ server: Server; url: string; received: Map<string, number> }> {
  const received = new Map<string, number>();
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const key = String(request.headers['idempotency-key']);
      received.set(key, (received.get(key) ?? 0) + 1);
      // A send takes a while, as on a real platform: kills land mid-send.
      setTimeout(() => response.end(JSON.stringify({ id: `ext-${key}` })), Math.random() * 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/hook`, received };
}

/** A process of the program and everything it wrote to stderr, across its restarts. */
interface Running {
  kill(): Promise<void>;
  stop(): Promise<void>;
}

async function startServe(env: Record<string, string>, log: string[]): Promise<Running & { url: string }> {
  const child = spawnMain(['serve', '--port', '0'], env);
  let stderr = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), CHILD_TIMEOUT_MS);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = /listening on (http:\/\/\S+):/.exec(stderr)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
  });
  const done = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
    log.push(stderr);
  };
  return { url, kill: () => done('SIGKILL'), stop: () => done('SIGTERM') };
}

async function startStdio(env: Record<string, string>, log: string[]): Promise<Running & { client: Client }> {
  const session = await connectStdio(env);
  return {
    client: session.client,
    async kill() {
      const pid = session.pid();
      if (pid) process.kill(pid, 'SIGKILL');
      await session.close().catch(() => {});
      log.push(session.stderr());
    },
    async stop() {
      await session.close();
      log.push(session.stderr());
    },
  };
}

type Mode = 'IMMEDIATE' | 'SCHEDULE' | 'QUEUE';

/** The post to create as number `i` of a writer: modes in turn, some with an auto-comment. */
function postArgs(writer: string, i: number): Record<string, unknown> {
  const mode: Mode = (['IMMEDIATE', 'SCHEDULE', 'QUEUE'] as const)[i % 3]!;
  const args: Record<string, unknown> = { publishMode: mode, caption: `${writer} ${mode} ${i}` };
  // Due a few seconds from now: they fall due while processes are being killed.
  if (mode === 'SCHEDULE') args.scheduledAt = formatLocalTime(Date.now() + 3_000 + (i % 5) * 1_000, TIMEZONE);
  if (i % 4 === 0) args.comment = { comment: `Comment on ${i}`, delay: 1 };
  return args;
}

/**
 * Creates `count` posts through one way in (a REST base URL or an MCP client), each with its own
 * idempotency key, retried with that key while the process behind it is being restarted: a post is
 * created once even when the answer to its request was lost.
 */
async function writePosts(
  writer: string,
  count: number,
  create: (args: Record<string, unknown>) => Promise<number>,
): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const args = { ...postArgs(writer, i), idempotencyKey: `${writer}-${i}-${randomUUID()}` };
    for (let attempt = 0; ; attempt++) {
      try {
        ids.push(await create(args));
        break;
      } catch (error) {
        if (attempt > 200) throw error;
        await sleep(50);
      }
    }
  }
  return ids;
}

async function restCreate(url: () => string, args: Record<string, unknown>): Promise<number> {
  const { idempotencyKey, ...body } = args;
  const response = await fetch(`${url()}/v1/brands/1/collections/1/posts`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${API_KEY}`,
      'content-type': 'application/json',
      'idempotency-key': String(idempotencyKey),
    },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { data?: { id?: number } };
  if (response.status >= 300) throw new Error(`create answered ${response.status}: ${JSON.stringify(json)}`);
  return json.data!.id!;
}

async function mcpCreate(client: () => Client, args: Record<string, unknown>): Promise<number> {
  const result = (await client().callTool(
    { name: 'create_post', arguments: { brandId: 1, collectionId: 1, ...args } },
    undefined,
    { timeout: CHILD_TIMEOUT_MS },
  )) as CallToolResult;
  if (result.isError) throw new Error(JSON.stringify(result.content));
  return (result.structuredContent as { data: { id: number } }).data.id;
}

async function scenario(options: {
  publisher: 'webhook' | 'sandbox';
  kills: boolean;
  postsPerWriter: number;
}) {
  requireBuild();
  const dataDir = tempDir('spm-multi-');
  const receiver = await startReceiver();
  const env = childEnv({
    SOCIAL_PUBLISHER_DATA_DIR: dataDir,
    SOCIAL_PUBLISHER_DEMO: '0',
    SOCIAL_PUBLISHER_CLAIM_LEASE_SECONDS: String(LEASE_SECONDS),
    SOCIAL_PUBLISHER_SENDS_IN_FLIGHT: String(CONCURRENCY),
    ...(options.publisher === 'webhook'
      ? {
          SOCIAL_PUBLISHER_WEBHOOK_URL: receiver.url,
          SOCIAL_PUBLISHER_WEBHOOK_SECRET: 'a-webhook-secret-for-the-test',
        }
      : {}),
  });
  const imported = await runMain(['import', acmeWorkspaceFile(dataDir, API_KEY)], env);
  expect(imported.code, imported.stderr).toBe(0);

  const log: string[] = [];
  let serveA = await startServe(env, log);
  const serveB = await startServe(env, log);
  let stdio = await startStdio(env, log);
  let kills = 0;
  try {
    const writers = Promise.all([
      writePosts('a', options.postsPerWriter, (args) => restCreate(() => serveA.url, args)),
      writePosts('b', options.postsPerWriter, (args) => restCreate(() => serveB.url, args)),
      writePosts('c', options.postsPerWriter, (args) => mcpCreate(() => stdio.client, args)),
    ]);
    if (options.kills) {
      // Kill one `serve` and the stdio server mid-work, twice each, and start them again.
      for (let round = 0; round < 2; round++) {
        await sleep(1_500);
        const killedA = serveA;
        const replacement = killedA.kill().then(() => startServe(env, log));
        serveA = await replacement;
        kills++;
        await sleep(1_000);
        await stdio.kill();
        stdio = await startStdio(env, log);
        kills++;
      }
    }
    const [fromA, fromB, fromC] = await writers;
    const created = [...fromA, ...fromB, ...fromC];
    expect(new Set(created).size).toBe(options.postsPerWriter * 3);

    const db = openDatabase(join(dataDir, DATABASE_FILE));
    const rows = <T>(sql: string, ...params: number[]) => db.prepare(sql).all(...params) as T[];
    const count = (sql: string) => Number(rows<{ n: number }>(sql)[0]!.n);
    try {
      // No queue slot was given to two posts, whichever process assigned it.
      const queued = rows<{ due_at_ms: number }>(
        `SELECT due_at_ms FROM posts WHERE publish_mode = 'QUEUE' AND status = 'queued'`,
      );
      expect(queued.length).toBeGreaterThan(0);
      expect(new Set(queued.map((row) => row.due_at_ms)).size).toBe(queued.length);
      // Publish some queued posts now, through both `serve` processes.
      const queuedIds = rows<{ id: number }>(
        `SELECT id FROM posts WHERE status = 'queued' ORDER BY id LIMIT 12`,
      );
      await Promise.all(
        queuedIds.map(async ({ id }, i) => {
          const base = i % 2 === 0 ? serveA.url : serveB.url;
          const response = await fetch(`${base}/v1/brands/1/posts/${id}/publish`, {
            method: 'POST',
            headers: { authorization: `Bearer ${API_KEY}` },
          });
          expect(response.status).toBe(200);
        }),
      );

      // Wait until everything due has gone out, every comment included.
      const deadline = Date.now() + 60_000;
      const open = () =>
        count(`SELECT COUNT(*) AS n FROM posts WHERE status IN ('publishing', 'scheduled')`) +
        count(`SELECT COUNT(*) AS n FROM jobs WHERE status IN ('waiting', 'active')`);
      while (open() > 0 && Date.now() < deadline) await sleep(100);
      expect(open()).toBe(0);
      await Promise.all([serveA.stop(), serveB.stop(), stdio.stop()]);

      const deliveries = rows<{
        id: number;
        status: string;
        reason: string | null;
        attempts: number;
        comment_status: string;
      }>(`SELECT id, status, reason, attempts, comment_status FROM (${DELIVERY_SELECT}) AS delivery`);
      const settledPosts = rows<{ id: number }>(
        `SELECT id FROM posts WHERE status IN ('published', 'partially_published', 'failed')`,
      );
      // Everything but the posts still waiting for their queue slot: IMMEDIATE and SCHEDULE posts, the
      // queued ones published now (and any whose slot came during the test).
      const stillQueued = count(`SELECT COUNT(*) AS n FROM posts WHERE status = 'queued'`);
      expect(stillQueued).toBeLessThanOrEqual(queued.length - queuedIds.length);
      expect(settledPosts.length + stillQueued).toBe(created.length);
      expect(deliveries.length).toBe(settledPosts.length * CHANNELS.length);

      // Each settled post announced once, by whichever process settled it; a kill may lose an
      // announcement made just before it, never double one.
      const announced = new Map<number, number>();
      for (const match of log
        .join('\n')
        .matchAll(/\] post (\d+): (published|partially published|failed)$/gm)) {
        announced.set(Number(match[1]), (announced.get(Number(match[1])) ?? 0) + 1);
      }
      expect([...announced.values()].filter((n) => n > 1)).toEqual([]);
      expect(settledPosts.length - announced.size).toBeLessThanOrEqual(kills * CONCURRENCY);

      if (options.publisher === 'webhook') {
        const sends = (key: string) => receiver.received.get(key) ?? 0;
        // No delivery and no comment reached the platform twice.
        expect([...receiver.received.entries()].filter(([, n]) => n > 1)).toEqual([]);
        for (const delivery of deliveries) {
          if (delivery.status === 'sent') {
            expect(sends(`delivery-${delivery.id}`), `delivery ${delivery.id}`).toBe(1);
          } else {
            // Left in doubt by a killed process: failed with the reason, not sent again.
            expect(delivery.status).toBe('failed');
            expect(delivery.reason).toContain(IN_DOUBT);
          }
          if (delivery.comment_status === 'sent') expect(sends(`comment-${delivery.id}`)).toBe(1);
        }
        const inDoubt = deliveries.filter((delivery) => delivery.status === 'failed').length;
        expect(inDoubt).toBeLessThanOrEqual(kills * CONCURRENCY);
      } else {
        // Nothing was killed: every delivery was claimed once and the sandbox asked once.
        expect(deliveries.every((delivery) => delivery.status === 'sent')).toBe(true);
        expect(deliveries.filter((delivery) => delivery.attempts !== 1)).toEqual([]);
        const outbox = rows<{ kind: string; sends: number }>('SELECT kind, sends FROM sandbox_outbox');
        expect(outbox.filter((row) => row.kind === 'delivery')).toHaveLength(deliveries.length);
        expect(outbox.filter((row) => row.sends !== 1)).toEqual([]);
        expect(outbox.filter((row) => row.kind === 'comment')).toHaveLength(
          deliveries.filter((delivery) => delivery.comment_status === 'sent').length,
        );
      }
    } finally {
      db.close();
    }
  } finally {
    await new Promise((resolve) => receiver.server.close(resolve));
  }
}

it('sends each delivery once with two serve and one stdio process, some killed and restarted (webhook)', async () => {
  await scenario({ publisher: 'webhook', kills: true, postsPerWriter: 150 });
}, 150_000);

it('claims and sends each delivery once with two serve and one stdio process (sandbox)', async () => {
  await scenario({ publisher: 'sandbox', kills: false, postsPerWriter: 120 });
}, 150_000);
