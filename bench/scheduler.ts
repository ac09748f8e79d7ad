/**
 * Scheduler throughput: 10,000 SCHEDULE posts, all due, to a collection of exactly 3 active channels (an
 * imported workspace), delivered by Scheduler.runOnce with the sandbox publisher. Timed: runOnce alone.
 * Checked: 30,000 outbox records, one per delivery, every delivery sent, every post published.
 */
import { join } from 'node:path';
import { formatLocalTime } from '../src/domain/time.js';
import { openLocalRuntime } from '../src/local-runtime.js';
import { ChannelConnectors } from '../src/publish/channel-connectors.js';
import { mediaLoader } from '../src/publish/media-loader.js';
import { SandboxPublisher } from '../src/publish/sandbox-publisher.js';
import { Scheduler } from '../src/publish/scheduler.js';
import { authenticate } from '../src/service/acting-user.js';
import { LocalPublishingService } from '../src/service/local-service.js';
import { importWorkspace } from '../src/service/workspace.js';
import { DATABASE_FILE } from '../src/store/open-store.js';
import { openDatabase } from '../src/store/sqlite/driver.js';
import { tempDir } from './lib/proc.js';
import type { Figure } from './lib/report.js';
import { threeChannelBrand } from './lib/seed.js';

const API_KEY = 'bench-scheduler-key-0123456789';
const TIMEZONE = 'Europe/Berlin';

export async function schedulerThroughput(options: { posts?: number } = {}): Promise<Figure[]> {
  const posts = options.posts ?? 10_000;
  const dataDir = tempDir();
  let nowMs = Date.now();
  const clock = { now: () => nowMs };
  const runtime = await openLocalRuntime({ dataDir, demo: false }, { clock });
  let seconds: number;
  let summary: Awaited<ReturnType<Scheduler['runOnce']>>;
  try {
    const ids = await importWorkspace(runtime.store, clock, {
      brands: [threeChannelBrand('Bench Roasters', TIMEZONE)],
      users: [{ name: 'Bench', timezone: TIMEZONE, apiKey: API_KEY, brands: ['Bench Roasters'] }],
    });
    const brand = ids.brands[0]!;
    const service = new LocalPublishingService(runtime, await authenticate(runtime.store, API_KEY));
    // All at the same minute, two minutes ahead; then the clock moves past it: all due at once.
    const dueAtMs = nowMs - (nowMs % 60_000) + 2 * 60_000;
    const scheduledAt = formatLocalTime(dueAtMs, TIMEZONE);
    for (let i = 0; i < posts; i++) {
      await service.createPost({
        brandId: brand.id,
        collectionId: brand.collections[0]!.id,
        publishMode: 'SCHEDULE',
        scheduledAt,
        caption: `Scheduled bench post ${i}: this week's single origin.`,
      });
    }
    nowMs = dueAtMs + 1_000;
    // Routed per channel as a server does (each delivery looks up its channel's connection).
    const publisher = new SandboxPublisher(runtime.store.sandbox, clock);
    const connectors = new ChannelConnectors({
      store: runtime.store,
      secrets: runtime.secrets,
      fallback: publisher,
      readEnv: () => undefined,
      context: {
        loadMedia: mediaLoader(runtime.store, runtime.media, undefined),
        clock,
        log: () => undefined,
        timeoutMs: 30_000,
        userAgent: 'bench',
      },
    });
    const scheduler = new Scheduler({ store: runtime.store, clock, publisher, connectors });
    const started = performance.now();
    summary = await scheduler.runOnce();
    seconds = (performance.now() - started) / 1000;
  } finally {
    await runtime.close();
  }
  const db = openDatabase(join(dataDir, DATABASE_FILE));
  const count = (sql: string) => Number((db.prepare(sql).get() as { n: number | bigint }).n);
  let checks: Record<string, number>;
  try {
    checks = {
      outbox: count(`SELECT COUNT(*) AS n FROM sandbox_outbox WHERE kind = 'delivery'`),
      outboxDistinctDeliveries: count(
        `SELECT COUNT(DISTINCT delivery_id) AS n FROM sandbox_outbox WHERE kind = 'delivery'`,
      ),
      deliveriesSent: count(`SELECT COUNT(*) AS n FROM deliveries WHERE status = 'sent'`),
      deliveries: count('SELECT COUNT(*) AS n FROM deliveries'),
      postsPublished: count(`SELECT COUNT(*) AS n FROM posts WHERE status = 'published'`),
    };
  } finally {
    db.close();
  }
  const expected = posts * 3;
  const exactlyOnce =
    checks.outbox === expected &&
    checks.outboxDistinctDeliveries === expected &&
    checks.deliveries === expected &&
    checks.deliveriesSent === expected &&
    checks.postsPublished === posts;
  return [
    {
      name: `scheduler, ${posts.toLocaleString('en-US')} due posts × 3 channels (sandbox)`,
      value: seconds,
      unit: 's',
      bar: '≤ 10 s, none twice',
      ratio: seconds / 10,
      pass: seconds <= 10 && exactlyOnce,
      details: { summary, checks, deliveriesPerSecond: expected / seconds, exactlyOnce },
    },
  ];
}
