/**
 * A data directory made by the release before the job table (schema 9, commit 6986321), with work under
 * way when its process died: a delivery sent with its comment and poll close pending, one waiting for a
 * retry, one whose comment was being posted, one being sent (in doubt), eight not begun, and a post
 * scheduled for later. test/fixtures/store-before-jobs/ holds the file as that release wrote it (made
 * with its own service and store: a demo workspace, then its claim methods as a process that died).
 * Opened by this version, it is migrated in place and everything it had pending is published, each
 * delivery and comment once, counted where they happen: at the sandbox, which counts every send.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { type LocalRuntime, openLocalRuntime } from '../../src/local-runtime.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { DELIVERY_SELECT } from '../../src/store/row-records.js';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { makeTempDir } from '../support/local.js';

/** The release's clock when it died: 2026-11-20 09:00 UTC. */
const DIED = Date.UTC(2026, 10, 20, 9, 0, 0);
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'store-before-jobs', 'social-publisher.sqlite');

let runtime: LocalRuntime | undefined;
let scheduler: Scheduler | undefined;
afterEach(async () => {
  await scheduler?.stop();
  await runtime?.close();
});

it('migrates a store made by the release before the job table and publishes what it had pending, once each', async () => {
  const dataDir = makeTempDir();
  mkdirSync(dataDir, { recursive: true });
  copyFileSync(FIXTURE, join(dataDir, 'social-publisher.sqlite'));
  const clock = new FakeClock(DIED + 2 * 60_000);
  runtime = await openLocalRuntime({ dataDir, demo: false }, { clock });
  const { sql } = runtime.store as SqliteStore;

  // What was under way is a job now, as it was: owners, leases, attempts, due times.
  const jobs = sql.all(
    'SELECT delivery_id, kind, status, step, due_at_ms, owner, attempts FROM jobs ORDER BY delivery_id, kind',
  );
  expect(jobs.filter((job) => job.delivery_id === 1)).toEqual([
    {
      delivery_id: 1,
      kind: 'close_poll',
      status: 'waiting',
      step: 'run',
      due_at_ms: DIED + 120_000,
      owner: null,
      attempts: 0,
    },
    {
      delivery_id: 1,
      kind: 'comment',
      status: 'waiting',
      step: 'run',
      due_at_ms: DIED + 60_000,
      owner: null,
      attempts: 0,
    },
    {
      delivery_id: 1,
      kind: 'send',
      status: 'done',
      step: 'commit',
      due_at_ms: DIED,
      owner: 'old-host:4242:dead',
      attempts: 1,
    },
  ]);
  expect(jobs.find((job) => job.delivery_id === 2)).toMatchObject({
    kind: 'send',
    status: 'waiting',
    due_at_ms: DIED + 45_000,
    attempts: 1,
  });
  expect(jobs.filter((job) => job.delivery_id === 3).map((job) => [job.kind, job.status])).toEqual([
    ['comment', 'active'],
    ['send', 'done'],
  ]);
  expect(jobs.find((job) => job.delivery_id === 4)).toMatchObject({
    kind: 'send',
    status: 'active',
    owner: 'old-host:4242:dead',
  });
  expect(jobs.filter((job) => job.delivery_id === 8)).toEqual([]); // failed when planned: nothing to do
  const before = sql.all(`${DELIVERY_SELECT} WHERE d.post_id = 1 ORDER BY d.id`);
  expect(before.map((d) => [d.id, d.status, d.attempts, d.comment_status])).toEqual([
    [1, 'sent', 1, 'pending'],
    [2, 'pending', 1, 'none'],
    [3, 'sent', 1, 'sending'],
    [4, 'sending', 1, 'none'],
    ...[5, 6, 7].map((id) => [id, 'pending', 0, 'none']),
    [8, 'failed', 0, 'none'],
    ...[9, 10, 11, 12].map((id) => [id, 'pending', 0, 'none']),
  ]);
  expect(before[1]!.retry_at_ms).toBe(DIED + 45_000);

  const events: string[] = [];
  scheduler = new Scheduler({
    store: runtime.store,
    clock,
    publisher: new SandboxPublisher(runtime.store.sandbox, clock),
    events: (event) => events.push(event.message),
  });
  // Two minutes after the release died: its leases (30 s) are over, the retry and the comments due.
  await scheduler.runOnce();
  await scheduler.runOnce();
  const outbox = () =>
    sql.all('SELECT kind, delivery_id, sends FROM sandbox_outbox ORDER BY kind, delivery_id') as Array<{
      kind: string;
      delivery_id: number;
      sends: number;
    }>;
  // Delivery 1 and 3 were sent by the release (to a platform that was not this sandbox): not again.
  expect(outbox().filter((row) => row.kind === 'delivery')).toEqual(
    [2, 4, 5, 6, 7, 9, 10, 11, 12].map((id) => ({ kind: 'delivery', delivery_id: id, sends: 1 })),
  );
  expect(outbox().filter((row) => row.kind === 'comment')).toEqual(
    [1, 3].map((id) => ({ kind: 'comment', delivery_id: id, sends: 1 })),
  );
  const after = sql.all(`${DELIVERY_SELECT} WHERE d.post_id = 1 ORDER BY d.id`);
  expect(after.map((d) => d.status)).toEqual([...Array(7).fill('sent'), 'failed', ...Array(4).fill('sent')]);
  expect(sql.get('SELECT status FROM posts WHERE id = 1')).toEqual({ status: 'partially_published' });
  expect(events.filter((message) => message === 'post 1: partially published')).toHaveLength(1);
  // The deliveries sent now have their comments due a minute later: each posted once then.
  expect(sql.get("SELECT COUNT(*) AS n FROM jobs WHERE status = 'waiting' AND kind = 'comment'")).toEqual({
    n: 9,
  });
  clock.advance(61_000);
  await scheduler.runOnce();
  expect(outbox().filter((row) => row.kind === 'comment')).toEqual(
    [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12].map((id) => ({ kind: 'comment', delivery_id: id, sends: 1 })),
  );
  expect(sql.get("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('waiting', 'active')")).toEqual({ n: 0 });

  // The post the release had scheduled goes out at its time, once.
  const due = Number(sql.get('SELECT due_at_ms FROM posts WHERE id = 2')!.due_at_ms);
  clock.set(due);
  await scheduler.runOnce();
  expect(sql.get('SELECT status FROM posts WHERE id = 2')).toEqual({ status: 'partially_published' });
  const second = sql.all(`SELECT o.sends FROM sandbox_outbox o JOIN deliveries d ON d.id = o.delivery_id
    WHERE d.post_id = 2 AND o.kind = 'delivery'`);
  expect(second.map((row) => row.sends)).toEqual(Array(11).fill(1));
});
