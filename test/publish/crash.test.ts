/**
 * Exactly once across crashes: the built program publishes many posts while it is SIGKILLed at random
 * moments and restarted. At the end every due delivery was made, and none twice. Sends are counted
 * where they happen, at the publisher: the sandbox counts every time it is asked to send a delivery,
 * although it keeps its body once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { formatLocalTime } from '../../src/domain/time.js';
import { openLocalRuntime } from '../../src/local-runtime.js';
import { resolveLocalUser } from '../../src/service/acting-user.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { makeTempDir } from '../support/local.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'main.js');
const IMMEDIATE_POSTS = 600;
const SCHEDULED_POSTS = 300;
const SENDABLE_CHANNELS = 11; // Everywhere: 12 channels, Pinterest INACTIVE
const ROUNDS = 15;
/**
 * Deliveries one process sends at once (SOCIAL_PUBLISHER_SENDS_IN_FLIGHT, set so): the most a kill can
 * leave sent but not yet recorded.
 */
const CONCURRENCY = 8;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});

function startServer(dataDir: string): ChildProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SOCIAL_PUBLISHER_DATA_DIR: dataDir,
    // A killed process's claims are taken over once their lease ends: 2 s, so that restarts recover soon.
    SOCIAL_PUBLISHER_CLAIM_LEASE_SECONDS: '2',
    SOCIAL_PUBLISHER_SENDS_IN_FLIGHT: String(CONCURRENCY),
  };
  delete env.SOCIAL_PUBLISHER_API_KEY;
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['pipe', 'ignore', 'ignore'] });
  children.push(child);
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('makes every due delivery exactly once while the server is killed and restarted', async () => {
  expect(existsSync(MAIN), 'dist/main.js is missing: run npm run build first').toBe(true);
  const dataDir = makeTempDir('spm-crash-');
  const runtime = await openLocalRuntime({ dataDir, demo: true });
  const service = new LocalPublishingService(runtime, await resolveLocalUser(runtime.store, undefined));
  for (let i = 0; i < IMMEDIATE_POSTS; i++) {
    await service.createPost({ brandId: 1, collectionId: 1, publishMode: 'IMMEDIATE', caption: `Now ${i}` });
  }
  // Due while the server is being killed: they must start exactly once too.
  const dueAt = formatLocalTime(Date.now() + 4_000, 'America/New_York');
  for (let i = 0; i < SCHEDULED_POSTS; i++) {
    await service.createPost({
      brandId: 1,
      collectionId: 1,
      publishMode: 'SCHEDULE',
      scheduledAt: dueAt,
      caption: `Later ${i}`,
    });
  }
  await runtime.close();

  const db = openDatabase(join(dataDir, DATABASE_FILE));
  const count = (sql: string) => Number((db.prepare(sql).get() as { n: number | bigint }).n);
  const total = (IMMEDIATE_POSTS + SCHEDULED_POSTS) * SENDABLE_CHANNELS;
  const sent = () => count("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'sent'");
  let killedMidway = 0;
  try {
    // Kill each run at a random moment after it has made progress, whatever the machine's speed.
    for (let round = 0; round < ROUNDS && sent() < total; round++) {
      const before = sent();
      const child = startServer(dataDir);
      const deadline = Date.now() + 20_000;
      while (sent() === before && Date.now() < deadline) await sleep(5);
      await sleep(Math.random() * 40);
      await kill(child);
      const after = sent();
      if (after > before && after < total) killedMidway++;
    }
    const last = startServer(dataDir);
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const open = count(
        "SELECT COUNT(*) AS n FROM posts WHERE status IN ('queued', 'scheduled', 'publishing')",
      );
      if (open === 0) break;
      await sleep(100);
    }
    await kill(last);

    // Several kills landed mid-way, so the restarts had real work to recover.
    expect(killedMidway).toBeGreaterThanOrEqual(3);
    expect(count("SELECT COUNT(*) AS n FROM deliveries WHERE status IN ('pending', 'sending')")).toBe(0);
    expect(count("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'sent'")).toBe(total);
    expect(count("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'failed'")).toBe(
      IMMEDIATE_POSTS + SCHEDULED_POSTS,
    );
    expect(count("SELECT COUNT(*) AS n FROM posts WHERE status = 'partially_published'")).toBe(
      IMMEDIATE_POSTS + SCHEDULED_POSTS,
    );
    // Every sent delivery reached the platform (the sandbox outbox), and only sent ones did.
    expect(count("SELECT COUNT(*) AS n FROM sandbox_outbox WHERE kind = 'delivery'")).toBe(total);
    // The publisher was asked at most once per claim (attempts counts claims), and a second claim only
    // followed a kill: a delivery was sent twice only when the process sending it was killed before it
    // could record the send, at most CONCURRENCY per kill, and the idempotent sandbox allows that resend.
    expect(
      count(`SELECT COUNT(*) AS n FROM sandbox_outbox o JOIN jobs s ON s.delivery_id = o.delivery_id AND s.kind = 'send'
             WHERE o.kind = 'delivery' AND o.sends > s.attempts`),
    ).toBe(0);
    const resent = count("SELECT COUNT(*) AS n FROM sandbox_outbox WHERE kind = 'delivery' AND sends > 1");
    expect(resent).toBeLessThanOrEqual(ROUNDS * CONCURRENCY);
    expect(
      count(`SELECT COUNT(*) AS n FROM sandbox_outbox o JOIN deliveries d ON d.id = o.delivery_id
             WHERE o.kind = 'delivery' AND d.status = 'sent'`),
    ).toBe(total);
    expect(
      count(
        `SELECT COUNT(*) AS n FROM (SELECT post_id, channel_id FROM deliveries GROUP BY post_id, channel_id HAVING COUNT(*) > 1)`,
      ),
    ).toBe(0);
  } finally {
    db.close();
  }
}, 120_000);
