/**
 * create_post issues its pre-flight reads (each channel's connection, the media, why a channel is
 * INACTIVE) beside its transaction rather than before it: on PostgreSQL they run on other connections
 * while the transaction takes its lock and its slot. A failed read still stores nothing, as when the
 * reads came first. Runs on both stores (vitest's projects).
 */

import { afterEach, expect, it } from 'vitest';
import { openTestRuntime, runSqlElsewhere, type TestRuntime } from '../support/local.js';

const NORTHWIND = 1;
const EVERYWHERE = 1;

let rt: TestRuntime;
afterEach(async () => {
  await rt.close();
});

const runSql = (text: string) => runSqlElsewhere(rt, text);

const queued = (caption: string) =>
  rt.service.createPost({ brandId: NORTHWIND, collectionId: EVERYWHERE, publishMode: 'QUEUE', caption });

it('stores nothing when a pre-flight read fails, though the reads run beside the transaction', async () => {
  rt = await openTestRuntime();
  // The connections' table gone: the pre-flight's first read fails; the transaction's statements do not.
  await runSql('ALTER TABLE channel_connections RENAME TO connections_away');
  await expect(queued('Read fails')).rejects.toThrow(/connections/);
  await runSql('ALTER TABLE connections_away RENAME TO channel_connections');
  const queue = await rt.service.getQueue({ brandId: NORTHWIND, count: 1 });
  expect(queue.queued).toEqual([]);
  // With the table back, the same call stores its post: the only one in the queue.
  const created = await queued('Read works');
  const after = await rt.service.getQueue({ brandId: NORTHWIND, count: 1 });
  expect(after.queued.map((post) => post.id)).toEqual([created.id]);
});
