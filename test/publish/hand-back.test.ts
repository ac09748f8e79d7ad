/**
 * A server stopping hands back what it claimed but has not begun to send. A worker claims its next
 * delivery in the transaction that records the one before, so a stop can land between that claim and
 * the send: the delivery goes back to pending, its attempt not counted and no owner named, and another
 * scheduler sends it at once rather than after the lease (30 s by default) has run out. The send under
 * way when the stop came is finished and recorded; nothing is sent twice.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Publisher, PublishOutcome } from '../../src/ports.js';
import type { ConnectorRouter } from '../../src/publish/publishing-pass.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

const CONVERSATION = 3; // Northwind Coffee's 6 channels with polls, all ACTIVE

let rt: TestRuntime;

beforeEach(async () => {
  rt = await openTestRuntime();
});

afterEach(async () => {
  await rt.close();
});

/** A publisher that counts every send, and a router that can hold a worker between claim and send. */
function countingConnectors() {
  const sends = new Map<number, number>();
  const publisher: Publisher = {
    name: 'counting',
    idempotent: false,
    async deliver(job): Promise<PublishOutcome> {
      sends.set(job.deliveryId, (sends.get(job.deliveryId) ?? 0) + 1);
      return { ok: true, externalId: `ext-${job.deliveryId}` };
    },
    async comment(): Promise<PublishOutcome> {
      return { ok: true, externalId: null };
    },
  };
  let routed = 0;
  let holdAt = Number.POSITIVE_INFINITY;
  let release: () => void = () => undefined;
  let reached: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const router: ConnectorRouter = {
    async forChannel() {
      routed++;
      if (routed === holdAt) {
        reached();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      }
      return publisher;
    },
    async idempotent() {
      return false;
    },
  };
  return {
    sends,
    publisher,
    router,
    /** The `n`th delivery routed waits there (claimed, not sent) until `release()`. */
    holdAt(n: number) {
      holdAt = n;
    },
    held,
    release: () => release(),
  };
}

it('hands back a delivery claimed but not begun when it stops; another scheduler sends it at once', async () => {
  const created = await rt.service.createPost({
    brandId: 1,
    collectionId: CONVERSATION,
    publishMode: 'IMMEDIATE',
    caption: 'Fresh roast',
  });
  const postId = created.id!;
  const first = countingConnectors();
  const logged: string[] = [];
  const stopping = new Scheduler({
    store: rt.runtime.store,
    clock: rt.clock,
    publisher: first.publisher,
    connectors: first.router,
    concurrency: 1,
    log: (line) => logged.push(line),
  });
  // The second delivery is claimed with the first one's outcome, then held before it is sent.
  first.holdAt(2);
  stopping.start();
  await first.held;
  const stopped = stopping.stop();
  first.release();
  await stopped;

  const rows = () =>
    rt.sql.all(
      `SELECT d.id, d.status, s.attempts, s.owner AS claim_owner, s.lease_until_ms
       FROM deliveries d JOIN jobs s ON s.delivery_id = d.id AND s.kind = 'send' WHERE d.post_id = ? ORDER BY d.id`,
      postId,
    ) as { id: number; status: string; attempts: number; claim_owner: string | null }[];
  const [sent, handedBack, ...untouched] = rows();
  expect([...first.sends.entries()]).toEqual([[sent!.id, 1]]);
  expect(sent).toMatchObject({ status: 'sent', attempts: 1 });
  // Pending again as if never claimed: no owner, no lease, its attempt not counted.
  expect(handedBack).toEqual({
    id: handedBack!.id,
    status: 'pending',
    attempts: 0,
    claim_owner: null,
    lease_until_ms: null,
  });
  expect(untouched.map((row) => row.status)).toEqual(['pending', 'pending', 'pending', 'pending']);
  expect(logged).toContain(
    `stopping: delivery ${handedBack!.id} handed back unsent, for another process to send now`,
  );

  // Another process's scheduler, at the same instant (no lease has run out), sends the rest once.
  const second = countingConnectors();
  const other = new Scheduler({
    store: rt.runtime.store,
    clock: rt.clock,
    publisher: second.publisher,
    connectors: second.router,
  });
  await other.runOnce();
  await other.stop();
  expect([...second.sends.keys()].sort((a, b) => a - b)).toEqual([
    handedBack!.id,
    ...untouched.map((row) => row.id),
  ]);
  expect([...second.sends.values()].every((n) => n === 1)).toBe(true);
  expect(rows().map((row) => row.status)).toEqual(rows().map(() => 'sent'));
  expect((await rt.service.getPost({ brandId: 1, postId })).status).toBe('published');
});
