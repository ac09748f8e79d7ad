/**
 * A stdio server starts its publishing engine after the client's first requests, not before them
 * (main.ts): a second after connecting, or at once when a post is planned. Shown on the built program:
 * a post that falls due while no server runs is published by the next server, although its client
 * only connects and asks nothing.
 */
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { StdioProcess } from '../crash/stdio-process.js';
import { childEnv, cleanup, connectStdio, requireBuild, tempDir } from '../mcp/cli-harness.js';

beforeAll(() => {
  requireBuild();
});

afterEach(async () => {
  await cleanup();
});

interface Row {
  status: string;
  /** Deliveries sent, and deliveries not yet finished (pending or being sent). */
  sent: number;
  open: number;
}

function postRow(dataDir: string, postId: number): Row {
  const db = openDatabase(join(dataDir, DATABASE_FILE));
  try {
    return db
      .prepare(
        `SELECT p.status AS status,
                (SELECT count(*) FROM deliveries d WHERE d.post_id = p.id AND d.status = 'sent') AS sent,
                (SELECT count(*) FROM deliveries d WHERE d.post_id = p.id
                   AND d.status IN ('pending', 'sending')) AS open
         FROM posts p WHERE p.id = ?`,
      )
      .get(postId) as unknown as Row;
  } finally {
    db.close();
  }
}

it('publishes a post that fell due while no server ran, with a client that asks nothing', async () => {
  const dataDir = tempDir('spm-deferred-engine-');
  const first = await connectStdio(childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir }));
  const brand = (
    (await first.call('list_brands')).structuredContent as {
      data: { id: number; timezone: string }[];
    }
  ).data[0]!;
  const collection = (
    (await first.call('list_collections', { brandId: brand.id })).structuredContent as {
      data: { id: number }[];
    }
  ).data[0]!;
  const due = DateTime.now().setZone(brand.timezone).plus({ seconds: 3 });
  const created = await first.call('create_post', {
    brandId: brand.id,
    collectionId: collection.id,
    publishMode: 'SCHEDULE',
    scheduledAt: due.toFormat('yyyy-MM-dd HH:mm:ss'),
    caption: 'Falls due while no server runs.',
  });
  expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
  const postId = (created.structuredContent as { data: { id: number } }).data.id;
  await first.close();
  expect(postRow(dataDir, postId).status).toBe('scheduled');

  // Past its time, a server starts; its client initializes and then says nothing more.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, due.toMillis() - Date.now()) + 500));
  const second = new StdioProcess(dataDir);
  await second.initialize();
  const deadline = Date.now() + 15_000;
  let row = postRow(dataDir, postId);
  const finished = (r: Row) => ['published', 'partially_published'].includes(r.status) && r.open === 0;
  while (!finished(row) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    row = postRow(dataDir, postId);
  }
  // The demo collection also has channels that refuse this post: partially published is finished too.
  expect(row.status).toMatch(/^(partially_)?published$/);
  expect(row.open).toBe(0);
  expect(row.sent).toBeGreaterThan(0);
  // Only initialize was sent: no request of the client started the engine.
  expect(second.messages.filter((message) => message.method === undefined)).toHaveLength(1);
  await second.kill();
});
