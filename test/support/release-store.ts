/**
 * What a store made by the release before the job table (test/fixtures/store-before-jobs/) must come to
 * once this version opens it, on either store: the work it had under way as jobs, as it was (owners,
 * leases, attempts, due times), then everything pending published once, counted at the sandbox, which
 * counts every send.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import type { LocalRuntime } from '../../src/local-runtime.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { DELIVERY_SELECT } from '../../src/store/row-records.js';
import type { FakeClock } from './fake-clock.js';

/** The release's clock when it died: 2026-11-20 09:00 UTC. */
export const DIED = Date.UTC(2026, 10, 20, 9, 0, 0);
export const RELEASE_STORE = join(
  import.meta.dirname,
  '..',
  'fixtures',
  'store-before-jobs',
  'social-publisher.sqlite',
);

type Row = Record<string, unknown>;
/** Rows with integers as numbers (PostgreSQL's bigint arrives as text through a plain client). */
export type Query = (text: string) => Promise<Row[]>;

export async function publishesWhatTheReleaseLeft(
  runtime: LocalRuntime,
  clock: FakeClock,
  read: Query,
): Promise<Scheduler> {
  const query = async (text: string) =>
    (await read(text)).map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]),
      ),
    );
  const one = async (text: string) => (await query(text))[0];
  const jobs = await query(
    'SELECT delivery_id, kind, status, step, due_at_ms, owner, attempts FROM jobs ORDER BY delivery_id, kind',
  );
  const job = (deliveryId: number, kind: string) =>
    jobs.find((j) => j.delivery_id === deliveryId && j.kind === kind);
  expect(job(1, 'send')).toEqual({
    delivery_id: 1,
    kind: 'send',
    status: 'done',
    step: 'commit',
    due_at_ms: DIED,
    owner: 'old-host:4242:dead',
    attempts: 1,
  });
  expect(job(1, 'comment')).toEqual({
    delivery_id: 1,
    kind: 'comment',
    status: 'waiting',
    step: 'run',
    due_at_ms: DIED + 60_000,
    owner: null,
    attempts: 0,
  });
  expect(job(1, 'close_poll')).toMatchObject({ status: 'waiting', due_at_ms: DIED + 120_000 });
  expect(job(2, 'send')).toMatchObject({ status: 'waiting', due_at_ms: DIED + 45_000, attempts: 1 });
  expect(job(3, 'comment')).toMatchObject({ status: 'active', owner: 'old-host:4242:dead' });
  expect(job(4, 'send')).toMatchObject({ status: 'active', owner: 'old-host:4242:dead' });
  expect(jobs.filter((j) => j.delivery_id === 8)).toEqual([]); // failed when planned: nothing to do
  const before = await query(`${DELIVERY_SELECT} WHERE d.post_id = 1 ORDER BY d.id`);
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
  const scheduler = new Scheduler({
    store: runtime.store,
    clock,
    publisher: new SandboxPublisher(runtime.store.sandbox, clock),
    events: (event) => events.push(event.message),
  });
  // Two minutes after the release died: its leases (30 s) are over, the retry and the comments due.
  await scheduler.runOnce();
  await scheduler.runOnce();
  const outbox = (kind: string) =>
    query(`SELECT delivery_id, sends FROM sandbox_outbox WHERE kind = '${kind}' ORDER BY delivery_id`);
  // Deliveries 1 and 3 were sent by the release (to a platform that was not this sandbox): not again.
  expect(await outbox('delivery')).toEqual(
    [2, 4, 5, 6, 7, 9, 10, 11, 12].map((id) => ({ delivery_id: id, sends: 1 })),
  );
  expect(await outbox('comment')).toEqual([1, 3].map((id) => ({ delivery_id: id, sends: 1 })));
  const after = await query(`${DELIVERY_SELECT} WHERE d.post_id = 1 ORDER BY d.id`);
  expect(after.map((d) => d.status)).toEqual([...Array(7).fill('sent'), 'failed', ...Array(4).fill('sent')]);
  expect(await one('SELECT status FROM posts WHERE id = 1')).toEqual({ status: 'partially_published' });
  expect(events.filter((message) => message === 'post 1: partially published')).toHaveLength(1);
  // The deliveries sent now have their comments due a minute later: each posted once then.
  expect(await one("SELECT COUNT(*) AS n FROM jobs WHERE status = 'waiting' AND kind = 'comment'")).toEqual({
    n: 9,
  });
  clock.advance(61_000);
  await scheduler.runOnce();
  expect(await outbox('comment')).toEqual(
    [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12].map((id) => ({ delivery_id: id, sends: 1 })),
  );
  expect(await one("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('waiting', 'active')")).toEqual({ n: 0 });

  // The post the release had scheduled goes out at its time, once.
  clock.set(Number((await one('SELECT due_at_ms FROM posts WHERE id = 2'))!.due_at_ms));
  await scheduler.runOnce();
  expect(await one('SELECT status FROM posts WHERE id = 2')).toEqual({ status: 'partially_published' });
  const second = await query(`SELECT o.sends FROM sandbox_outbox o JOIN deliveries d ON d.id = o.delivery_id
    WHERE d.post_id = 2 AND o.kind = 'delivery'`);
  expect(second.map((row) => row.sends)).toEqual(Array(11).fill(1));
  return scheduler;
}
