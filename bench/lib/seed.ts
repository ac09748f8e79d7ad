/**
 * Seeds posts straight into the SQLite file (its own connection, one transaction per batch): a brand's
 * history of published posts plus its plan (a run of queued posts on consecutive queue slots and
 * scheduled posts spread over the next year), as fast as SQLite takes rows.
 */
import { randomBytes } from 'node:crypto';
import { queueSlotsAfter } from '../../src/domain/queue.js';
import type { BrandRecord } from '../../src/ports.js';
import { openDatabase, type SqlDatabase } from '../../src/store/sqlite/driver.js';

const DAY_MS = 86_400_000;
const INSERT = `INSERT INTO posts (brand_id, collection_id, user_id, publish_mode, status, payload, due_at_ms,
  idempotency_key, content_hash, created_at_ms, updated_at_ms, published_at_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)`;

export interface SeedTarget {
  file: string;
  brand: BrandRecord;
  collectionId: number;
  userId: string;
  nowMs: number;
}

export class PostSeeder {
  private readonly db: SqlDatabase;
  private seeded = 0;

  constructor(private readonly target: SeedTarget) {
    this.db = openDatabase(target.file);
    this.db.exec('PRAGMA busy_timeout = 5000');
  }

  count(): number {
    return Number((this.db.prepare('SELECT COUNT(*) AS n FROM posts').get() as { n: number | bigint }).n);
  }

  maxId(): number {
    return Number((this.db.prepare('SELECT MAX(id) AS m FROM posts').get() as { m: number | bigint }).m ?? 0);
  }

  /** Posts the benchmark created after `id`, removed so that each stage starts from the same plan. */
  removeAfter(id: number): void {
    this.db.prepare('DELETE FROM deliveries WHERE post_id > ?').run(id);
    this.db.prepare('DELETE FROM posts WHERE id > ?').run(id);
  }

  private insertRows(
    total: number,
    row: (i: number) => [string, string, number | null, number | null],
  ): void {
    const { brand, collectionId, userId, nowMs } = this.target;
    const insert = this.db.prepare(INSERT);
    for (let start = 0; start < total; start += 50_000) {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        for (let i = start; i < Math.min(total, start + 50_000); i++) {
          const n = this.seeded++;
          const [mode, status, dueAtMs, publishedAtMs] = row(i);
          const payload = JSON.stringify({
            publishMode: mode,
            caption: `Seeded post ${n}: the roast of the day.`,
          });
          const createdAtMs = Math.min(nowMs, (dueAtMs ?? nowMs) - DAY_MS);
          insert.run(
            brand.id,
            collectionId,
            userId,
            mode,
            status,
            payload,
            dueAtMs,
            randomBytes(32).toString('hex'),
            createdAtMs,
            publishedAtMs ?? createdAtMs,
            publishedAtMs,
          );
        }
        this.db.exec('COMMIT');
      } catch (error) {
        this.db.exec('ROLLBACK');
        throw error;
      }
    }
  }

  /** The plan: `queued` posts on the next consecutive queue slots, `scheduled` over the next year. */
  seedPlan(queued: number, scheduled: number): void {
    const { brand, nowMs } = this.target;
    const slots: number[] = [];
    for (const slot of queueSlotsAfter(nowMs, brand.timezone, brand.queueTimes)) {
      if (slots.length === queued) break;
      slots.push(slot);
    }
    this.insertRows(queued, (i) => ['QUEUE', 'queued', slots[i]!, null]);
    // Whole minutes 1 to 365 days ahead; a few land on a queue slot, as real ones do.
    this.insertRows(scheduled, (i) => {
      const minutes = 24 * 60 + ((i * 104_729) % (364 * 24 * 60));
      return ['SCHEDULE', 'scheduled', nowMs - (nowMs % 60_000) + minutes * 60_000, null];
    });
  }

  /** History: published posts over the past five years, three a day or more, oldest first. */
  seedPublished(count: number): void {
    const { nowMs } = this.target;
    const span = 5 * 365 * DAY_MS;
    this.insertRows(count, (i) => {
      const dueAtMs = nowMs - span + Math.floor((i / count) * span) - (nowMs % 60_000);
      return [i % 2 ? 'QUEUE' : 'SCHEDULE', 'published', dueAtMs, dueAtMs + 2_000];
    });
  }

  /** The plan of a statement as SQLite would run it (parameters bound to NULL). */
  plan(sql: string): string {
    const params = (sql.match(/\?/g) ?? []).map(() => null);
    const rows = this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>;
    return rows.map((row) => row.detail).join(' | ');
  }

  close(): void {
    this.db.close();
  }
}

/**
 * A benchmark brand for `importWorkspace`: three channels (Bluesky, Mastodon, LinkedIn) and one
 * collection of all three, "Three".
 */
export function threeChannelBrand(title: string, timezone: string, queueTimes?: string[]) {
  const channels = [
    { name: 'Bench on Bluesky', type: 'Bluesky', status: 'ACTIVE' },
    { name: 'Bench on Mastodon', type: 'Mastodon', status: 'ACTIVE' },
    { name: 'Bench on LinkedIn', type: 'LinkedIn', status: 'ACTIVE' },
  ] as const;
  return {
    title,
    timezone,
    ...(queueTimes ? { queueTimes } : {}),
    channels: channels.map((channel) => ({ ...channel })),
    collections: [{ title: 'Three', channels: channels.map((channel) => channel.name) }],
  };
}
