/**
 * The queue-slot lookup and the scheduler's lookups are index range reads, never a scan: their cost must
 * not grow with the number of posts and deliveries stored. The store's queries name their index
 * (INDEXED BY), so SQLite refuses to run them at all without it; these plans show the index is used
 * for a range, and every test that runs the store runs those queries.
 */
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src/local-runtime.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

let rt: TestRuntime;
afterEach(() => rt.close());

function plan(sql: string, ...params: Array<string | number>): string {
  const db = openDatabase(join(rt.dataDir, DATABASE_FILE));
  try {
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>;
    return rows.map((row) => row.detail).join(' | ');
  } finally {
    db.close();
  }
}

it('finds planned due times of a brand through the partial index, not a scan', () => {
  rt = openTestRuntime();
  const detail = plan(
    `SELECT DISTINCT due_at_ms FROM posts INDEXED BY posts_planned_by_brand
     WHERE brand_id = ? AND due_at_ms >= ? AND status IN ('queued', 'scheduled') ORDER BY due_at_ms LIMIT ?`,
    1,
    0,
    256,
  );
  expect(detail).toMatch(
    /SEARCH posts USING (COVERING )?INDEX posts_planned_by_brand \(brand_id=\? AND due_at_ms>\?\)/,
  );
  expect(detail).not.toMatch(/SCAN posts(?! USING)/);
});

it('finds due posts through the due index, not a scan', () => {
  rt = openTestRuntime();
  const detail = plan(
    `SELECT id FROM posts INDEXED BY posts_due WHERE due_at_ms <= ? AND status IN ('queued', 'scheduled')
     ORDER BY due_at_ms LIMIT ?`,
    0,
    200,
  );
  expect(detail).toMatch(/SEARCH posts USING (COVERING )?INDEX posts_due \(due_at_ms<\?\)/);
  expect(detail).not.toMatch(/SCAN posts(?! USING)/);
});

it('finds open deliveries through their partial index', () => {
  rt = openTestRuntime();
  const detail = plan(
    `SELECT id FROM deliveries INDEXED BY deliveries_pending WHERE status = 'pending' ORDER BY id LIMIT ?`,
    200,
  );
  expect(detail).toMatch(/SCAN deliveries USING (COVERING )?INDEX deliveries_pending/);
  expect(() =>
    plan(`SELECT id FROM deliveries INDEXED BY deliveries_pending WHERE status = 'sent' LIMIT 1`),
  ).toThrow(/no query solution/);
});
