/**
 * A pass that began with little to send takes on work planned while it runs at full concurrency. Its
 * workers that found nothing have ended; when the loop is woken mid-pass (a post planned here, or in
 * another instance), one worker starts again, and each that finds a delivery starts another, up to the
 * concurrency. Without that, the new deliveries would go out only as fast as the workers the pass kept.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Publisher, PublishOutcome } from '../../src/ports.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

const CONVERSATION = 3; // Northwind Coffee's 6 channels with polls, all ACTIVE
const SEND_MS = 150;

let rt: TestRuntime;
let scheduler: Scheduler | undefined;

beforeEach(async () => {
  rt = await openTestRuntime();
});

afterEach(async () => {
  await scheduler?.stop();
  await rt.close();
});

it('sends deliveries planned mid-pass with all its workers, not only those the pass kept', async () => {
  let sending = 0;
  let mostAtOnce = 0;
  let sent = 0;
  const publisher: Publisher = {
    name: 'slow',
    idempotent: true,
    async deliver(): Promise<PublishOutcome> {
      sending++;
      mostAtOnce = Math.max(mostAtOnce, sending);
      await new Promise((resolve) => setTimeout(resolve, SEND_MS));
      sending--;
      sent++;
      return { ok: true, externalId: null };
    },
    async comment(): Promise<PublishOutcome> {
      return { ok: true, externalId: null };
    },
  };
  const create = () =>
    rt.service.createPost({
      brandId: 1,
      collectionId: CONVERSATION,
      publishMode: 'IMMEDIATE',
      caption: `Roast ${Math.random()}`,
    });
  // One post of 6 deliveries: the pass starts 8 workers, 2 find nothing and end.
  await create();
  scheduler = new Scheduler({ store: rt.runtime.store, clock: rt.clock, publisher, concurrency: 8 });
  scheduler.start();
  while (sending < 6) await new Promise((resolve) => setTimeout(resolve, 5));
  // Planned mid-pass: 12 more, and a wake, as the service (or another instance's signal) gives.
  await create();
  await create();
  scheduler.wake();
  while (sent < 18) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(mostAtOnce).toBe(8);
});
