/**
 * The queue-slot lookup and the scheduler's lookups are index reads, never a scan of posts or
 * deliveries: their cost must not grow with the posts and deliveries stored. Rather than on copies of
 * the store's SQL, the plans are taken of exactly the statements the store ran (observed through
 * `Sql.observe`, with the parameters they ran with) while it did the real work: creating QUEUE posts,
 * and the scheduler's ticks (due posts, claims, sends, comments). So a changed query is checked as it
 * now is. The checks name tables and indexes, not SQL text: a delivery query may change its text and
 * its index, but not start scanning.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import type { SqlValue } from '../../src/store/sqlite/driver.js';
import { openTestRuntime, TEST_NOW, type TestRuntime } from '../support/local.js';

const NORTHWIND = 1;
const EVERYWHERE = 1;
const MINUTE = 60_000;

let rt: TestRuntime;
let scheduler: Scheduler | undefined;
afterEach(async () => {
  await scheduler?.stop();
  scheduler = undefined;
  await rt.close();
});

interface Plan {
  sql: string;
  /** SQLite's plan lines (EXPLAIN QUERY PLAN `detail`). */
  lines: string[];
}

/** Observes the statements the store runs from now on; `plans()` explains each distinct one touching posts or deliveries. */
function observeStore() {
  const { sql } = rt;
  const seen = new Map<string, SqlValue[]>();
  sql.observe((text, params) => {
    if (!seen.has(text)) seen.set(text, [...params]);
  });
  return {
    plans(): Plan[] {
      sql.observe(undefined);
      return [...seen]
        .filter(([text]) => /\b(FROM|UPDATE|INTO|JOIN)\s+(posts|deliveries|jobs)\b/i.test(text))
        .map(([text, params]) => ({
          sql: text,
          lines: (
            sql.db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as Array<{ detail: string }>
          ).map((row) => row.detail),
        }));
    },
  };
}

/** Partial indexes: a scan of one reads only the rows its condition admits (open work), not the history. */
function partialIndexes(table: string): Set<string> {
  const rows = rt.sql.all(`PRAGMA index_list(${table})`);
  return new Set(rows.filter((row) => Number(row.partial) === 1).map((row) => String(row.name)));
}

/** Plan lines that read all of posts, deliveries or jobs: a SCAN of the table, or of an index that is not partial. */
function scans(plans: Plan[]): Array<{ sql: string; line: string }> {
  const partial = new Set([
    ...partialIndexes('posts'),
    ...partialIndexes('deliveries'),
    ...partialIndexes('jobs'),
  ]);
  return plans.flatMap(({ sql, lines }) =>
    lines
      .filter((line) => {
        const scan = /^SCAN (?:TABLE )?(posts|deliveries|jobs)\b(?: USING (?:COVERING )?INDEX (\w+))?/.exec(
          line,
        );
        return scan !== null && !(scan[2] !== undefined && partial.has(scan[2]));
      })
      .map((line) => ({ sql, line })),
  );
}

const readsThrough = (plans: Plan[], pattern: RegExp) =>
  plans.some(({ lines }) => lines.some((line) => pattern.test(line)));

it('tells a scan from an index read (the check itself)', async () => {
  rt = await openTestRuntime();
  const observer = observeStore();
  rt.sql.all('SELECT id FROM posts WHERE payload = ?', 'x');
  rt.sql.all('SELECT id FROM posts WHERE brand_id = ? ORDER BY id', 1);
  rt.sql.all("SELECT id FROM deliveries WHERE status = 'sent'");
  expect(scans(observer.plans()).map(({ line }) => line)).toEqual(['SCAN posts', 'SCAN deliveries']);
});

describe('statements the store runs', () => {
  it('creating QUEUE posts: the free slot is found through the planned-times index; no post is scanned', async () => {
    rt = await openTestRuntime();
    const observer = observeStore();
    for (let i = 0; i < 5; i++) {
      await rt.service.createPost({
        brandId: NORTHWIND,
        collectionId: EVERYWHERE,
        publishMode: 'QUEUE',
        caption: `Queued ${i}`,
      });
    }
    await rt.runtime.store.posts.plannedTimesFrom(NORTHWIND, TEST_NOW, 256);
    const plans = observer.plans();
    expect(
      readsThrough(
        plans,
        /^SEARCH posts USING (COVERING )?INDEX posts_planned_by_brand \(brand_id=\? AND due_at_ms>\?\)/,
      ),
    ).toBe(true);
    expect(scans(plans)).toEqual([]);
  });

  it("the scheduler's ticks: due posts, claims, sends and comments read through indexes; nothing is scanned", async () => {
    rt = await openTestRuntime();
    const { store } = rt.runtime;
    scheduler = new Scheduler({
      store,
      clock: rt.clock,
      publisher: new SandboxPublisher(store.sandbox, rt.clock),
    });
    // Due in a minute (New York is UTC-5 in November), with a comment two minutes after each delivery.
    await rt.service.createPost({
      brandId: NORTHWIND,
      collectionId: EVERYWHERE,
      publishMode: 'SCHEDULE',
      caption: 'Scheduled',
      scheduledAt: '2026-11-21 07:01:00',
      comment: { comment: 'First comment', delay: 120 },
    });
    await rt.service.createPost({
      brandId: NORTHWIND,
      collectionId: EVERYWHERE,
      publishMode: 'QUEUE',
      caption: 'Queued',
    });
    const observer = observeStore();
    await store.posts.due(TEST_NOW, 200);
    await store.posts.nextDueAtMs();
    await store.jobs.hasDue(TEST_NOW);
    await store.jobs.nextWakeAtMs();
    rt.clock.set(TEST_NOW + MINUTE);
    expect(await scheduler.runOnce()).toMatchObject({ started: 1 });
    rt.clock.set(TEST_NOW + 4 * MINUTE);
    expect((await scheduler.runOnce()).comments).toBeGreaterThan(0);
    const plans = observer.plans();

    expect(readsThrough(plans, /^SEARCH posts USING (COVERING )?INDEX posts_due \(due_at_ms<\?\)/)).toBe(
      true,
    );
    // The claims and the wake-up reads: jobs read through an index (whichever the store now uses).
    const jobReads = plans.filter(({ sql }) => /\bFROM\s+jobs\b/i.test(sql));
    expect(jobReads.length).toBeGreaterThanOrEqual(3);
    expect(readsThrough(jobReads, /^(SEARCH|SCAN) jobs USING (COVERING )?INDEX \w+/)).toBe(true);
    expect(scans(plans)).toEqual([]);
  });
});
