/**
 * Crash safety of create_post: the BUILT stdio server (fresh data directory, demo workspace, real
 * clock, its scheduler running) gets a steady stream of concurrent create_post calls (16 in flight,
 * distinct captions, every publish mode) and is SIGKILLed at a random moment, then restarted; a few
 * rounds. At the end every post that was acknowledged is there with its exact caption, mode, brand and
 * collection (through a new server and in the SQLite file), ids are unique, nothing is half-written
 * (every row has its payload, a consistent status and due time, and an IMMEDIATE post its deliveries),
 * every row comes from exactly one call, and SQLite's integrity check passes.
 */
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import { seededRandom } from '../support/seeded-random.js';
import { type JsonRpcMessage, StdioProcess } from './stdio-process.js';

const ROUNDS = 6;
const IN_FLIGHT = 16;
/** Seeded, so that a failing run can be replayed: CRASH_SEED=<seed>. */
const SEED = process.env.CRASH_SEED ? Number(process.env.CRASH_SEED) : Date.now() % 2_147_483_647;

beforeAll(() => {
  requireBuild();
});

afterEach(async () => {
  await cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Mode = 'DRAFT' | 'QUEUE' | 'SCHEDULE' | 'IMMEDIATE';

interface Sent {
  brandId: number;
  collectionId: number;
  publishMode: Mode;
  caption: string;
  /** Channels in the collection: an IMMEDIATE post has one delivery per channel. */
  channels: number;
}

interface Target {
  brandId: number;
  collectionId: number;
  channels: number;
}

async function collectionsWithChannels(server: StdioProcess): Promise<Target[]> {
  const targets: Target[] = [];
  for (const brandId of [1, 2]) {
    const answer = await server.callTool('list_collections', { brandId });
    const data = (
      answer.result as { structuredContent: { data: Array<{ id: number; channels: unknown[] }> } }
    ).structuredContent.data;
    for (const collection of data) {
      if (collection.channels.length > 0) {
        targets.push({ brandId, collectionId: collection.id, channels: collection.channels.length });
      }
    }
  }
  return targets;
}

function argumentsOf(sent: Sent, scheduledAt: string, random: () => number): Record<string, unknown> {
  const args: Record<string, unknown> = {
    brandId: sent.brandId,
    collectionId: sent.collectionId,
    publishMode: sent.publishMode,
    caption: sent.caption,
  };
  if (sent.publishMode === 'SCHEDULE') args.scheduledAt = scheduledAt;
  // Larger payloads now and then: more bytes to be caught half-written.
  if (random() < 0.3) {
    args.title = 'Crash test';
    args.link = 'https://example.com/crash';
    args.comment = { comment: `Comment on ${sent.caption}`, delay: 5 };
  }
  return args;
}

it('keeps every acknowledged post, and nothing half-written, across SIGKILLs during create_post', async () => {
  const random = seededRandom(SEED);
  const replay = `(seed ${SEED}; replay with CRASH_SEED=${SEED})`;
  const dataDir = tempDir('spm-crash-create-');
  // A local time in the future of the real clock, valid in both demo brands' time zones.
  const scheduledAt = `${new Date().getUTCFullYear() + 1}-07-15 10:30:00`;

  const sent = new Map<string, Sent>();
  const acknowledged = new Map<number, Sent>();
  let targets: Target[] = [];
  let counter = 0;
  const killedWithCallsInFlight: number[] = [];

  for (let round = 0; round < ROUNDS; round++) {
    const server = new StdioProcess(dataDir);
    await server.initialize();
    if (targets.length === 0) targets = await collectionsWithChannels(server);
    expect(targets.length, 'collections with channels in the demo workspace').toBeGreaterThan(0);

    let stop = false;
    let inFlight = 0;
    let acksThisRound = 0;
    const failures: string[] = [];
    const pump = () => {
      while (!stop && inFlight < IN_FLIGHT) {
        const target = targets[Math.floor(random() * targets.length)]!;
        const modes: Mode[] = ['DRAFT', 'QUEUE', 'SCHEDULE', 'IMMEDIATE'];
        const post: Sent = {
          brandId: target.brandId,
          collectionId: target.collectionId,
          publishMode: modes[Math.floor(random() * modes.length)]!,
          caption: `Crash round ${round} post ${++counter} ${random().toString(36).slice(2, 8)}`,
          channels: target.channels,
        };
        sent.set(post.caption, post);
        inFlight++;
        server.requestNoWait(
          'tools/call',
          { name: 'create_post', arguments: argumentsOf(post, scheduledAt, random) },
          (answer: JsonRpcMessage) => {
            inFlight--;
            const result = answer.result as
              | { isError?: boolean; structuredContent?: { data?: { id?: unknown; duplicate?: unknown } } }
              | undefined;
            const data = result?.structuredContent?.data;
            if (answer.error || result?.isError || typeof data?.id !== 'number' || data.duplicate) {
              failures.push(`${post.caption}: ${JSON.stringify(answer).slice(0, 500)}`);
            } else if (acknowledged.has(data.id)) {
              failures.push(
                `post id ${data.id} acknowledged twice: ${post.caption}, ${acknowledged.get(data.id)!.caption}`,
              );
            } else {
              acknowledged.set(data.id, post);
              acksThisRound++;
            }
            pump();
          },
        );
      }
    };
    pump();

    // Kill at a random moment once the server is busy creating posts.
    const deadline = Date.now() + 20_000;
    while (acksThisRound < 5 && Date.now() < deadline) await sleep(2);
    await sleep(random() * 300);
    stop = true;
    killedWithCallsInFlight.push(inFlight);
    await server.kill();
    expect(failures, `create_post calls that failed ${replay}`).toEqual([]);
    expect(
      acksThisRound,
      `round ${round} acknowledged nothing ${replay}; stderr: ${server.stderr()}`,
    ).toBeGreaterThan(0);
  }

  // Every kill landed while calls were under way.
  expect(killedWithCallsInFlight.filter((n) => n > 0).length, `${replay}`).toBe(ROUNDS);
  expect(acknowledged.size).toBeGreaterThan(ROUNDS * 5);

  // 1. A new server: every acknowledged post is there, as it was sent.
  const server = new StdioProcess(dataDir);
  await server.initialize();
  const answers = await Promise.all(
    [...acknowledged.keys()].map((id) =>
      server.callTool('get_post', { brandId: acknowledged.get(id)!.brandId, postId: id }, 60_000),
    ),
  );
  const ids = [...acknowledged.keys()];
  answers.forEach((answer, index) => {
    const post = acknowledged.get(ids[index]!)!;
    const result = answer.result as {
      isError?: boolean;
      structuredContent: {
        data: {
          id: number;
          brandId: number;
          collectionId: number;
          publishMode: string;
          content: { caption?: string };
        };
      };
    };
    expect(
      result.isError ?? false,
      `get_post ${ids[index]} ${JSON.stringify(answer).slice(0, 300)} ${replay}`,
    ).toBe(false);
    expect(result.structuredContent.data, replay).toMatchObject({
      id: ids[index],
      brandId: post.brandId,
      collectionId: post.collectionId,
      publishMode: post.publishMode,
      content: { caption: post.caption },
    });
  });
  server.child.stdin!.end();
  await Promise.race([server.exited, sleep(10_000)]);
  await server.kill();

  // 2. The SQLite file: sound, and every row whole.
  const db = openDatabase(join(dataDir, DATABASE_FILE));
  try {
    expect(db.prepare('PRAGMA integrity_check').all(), replay).toEqual([{ integrity_check: 'ok' }]);
    expect(db.prepare('PRAGMA foreign_key_check').all(), replay).toEqual([]);
    const rows = db
      .prepare(
        `SELECT p.id, p.brand_id, p.collection_id, p.publish_mode, p.status, p.payload, p.due_at_ms,
                p.created_at_ms, p.updated_at_ms,
                (SELECT COUNT(*) FROM deliveries d WHERE d.post_id = p.id) AS deliveries
           FROM posts p ORDER BY p.id`,
      )
      .all() as Array<{
      id: number | bigint;
      brand_id: number | bigint;
      collection_id: number | bigint;
      publish_mode: string;
      status: string;
      payload: string;
      due_at_ms: number | bigint | null;
      created_at_ms: number | bigint | null;
      updated_at_ms: number | bigint | null;
      deliveries: number | bigint;
    }>;

    const byCaption = new Map<string, number>();
    const queueSlots = new Map<string, number>();
    const problems: string[] = [];
    for (const row of rows) {
      const id = Number(row.id);
      const where = `post ${id} (${row.publish_mode}, ${row.status})`;
      let payload: { publishMode?: unknown; caption?: unknown } | undefined;
      try {
        payload = JSON.parse(row.payload) as typeof payload;
      } catch {
        problems.push(`${where}: payload is not JSON: ${String(row.payload).slice(0, 100)}`);
        continue;
      }
      if (typeof payload !== 'object' || payload === null) {
        problems.push(`${where}: payload is not an object`);
        continue;
      }
      const caption = String(payload.caption);
      const call = sent.get(caption);
      if (!call) problems.push(`${where}: caption ${JSON.stringify(caption)} was never sent`);
      if (byCaption.has(caption)) problems.push(`${where}: same call as post ${byCaption.get(caption)}`);
      byCaption.set(caption, id);
      if (payload.publishMode !== row.publish_mode) {
        problems.push(`${where}: payload mode ${String(payload.publishMode)} differs from the row's`);
      }
      if (call && (call.publishMode !== row.publish_mode || call.brandId !== Number(row.brand_id))) {
        problems.push(
          `${where}: stored as ${row.publish_mode} in brand ${row.brand_id}, sent ${JSON.stringify(call)}`,
        );
      }
      if (call && call.collectionId !== Number(row.collection_id)) {
        problems.push(`${where}: collection ${row.collection_id}, sent ${call.collectionId}`);
      }
      if (row.created_at_ms === null || row.updated_at_ms === null) problems.push(`${where}: no timestamps`);
      const due = row.due_at_ms === null ? null : Number(row.due_at_ms);
      const deliveries = Number(row.deliveries);
      const published = ['publishing', 'published', 'partially_published', 'failed'];
      switch (row.publish_mode) {
        case 'DRAFT':
          if (row.status !== 'draft' || deliveries !== 0)
            problems.push(`${where}: a draft with ${deliveries} deliveries`);
          break;
        case 'QUEUE':
        case 'SCHEDULE':
          if (due === null) problems.push(`${where}: no due time`);
          if (row.status === 'queued' || row.status === 'scheduled') {
            if (deliveries !== 0) problems.push(`${where}: ${deliveries} deliveries before its time`);
          } else if (!published.includes(row.status)) {
            problems.push(`${where}: status ${row.status}`);
          }
          if (row.publish_mode === 'QUEUE' && due !== null) {
            const slot = `${row.brand_id}@${due}`;
            if (queueSlots.has(slot))
              problems.push(`${where}: same queue time as post ${queueSlots.get(slot)}`);
            queueSlots.set(slot, id);
          }
          break;
        case 'IMMEDIATE':
          if (!published.includes(row.status)) problems.push(`${where}: status ${row.status}`);
          if (call && deliveries !== call.channels) {
            problems.push(`${where}: ${deliveries} deliveries for ${call.channels} channels`);
          }
          break;
        default:
          problems.push(`${where}: unknown publish mode`);
      }
    }
    expect(problems, replay).toEqual([]);

    // Every acknowledged post is a row; every row is one call that was sent.
    const stored = new Map(rows.map((row) => [Number(row.id), row]));
    for (const [id, post] of acknowledged) {
      const row = stored.get(id);
      expect(row, `acknowledged post ${id} is missing ${replay}`).toBeDefined();
      expect((JSON.parse(row!.payload) as { caption: string }).caption, replay).toBe(post.caption);
      expect(row!.publish_mode, replay).toBe(post.publishMode);
    }
    expect(rows.length).toBeGreaterThanOrEqual(acknowledged.size);
    expect(rows.length).toBeLessThanOrEqual(sent.size);
    expect(new Set(rows.map((row) => Number(row.id))).size).toBe(rows.length);
  } finally {
    db.close();
  }
}, 180_000);
