/**
 * A data directory made by the release before the job table (schema 9, commit 6986321), with work under
 * way when its process died: a delivery sent with its comment and poll close pending, one waiting for a
 * retry, one whose comment was being posted, one being sent (in doubt), eight not begun, and a post
 * scheduled for later. test/fixtures/store-before-jobs/ holds the file as that release wrote it (made
 * with its own service and store: a demo workspace, then its claim methods as a process that died).
 * Opened by this version, it is migrated in place and everything it had pending is published once.
 * test/postgres/release-store.test.ts does the same on PostgreSQL.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, it } from 'vitest';
import { type LocalRuntime, openLocalRuntime } from '../../src/local-runtime.js';
import type { Scheduler } from '../../src/publish/scheduler.js';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { makeTempDir } from '../support/local.js';
import { DIED, publishesWhatTheReleaseLeft, RELEASE_STORE } from '../support/release-store.js';

let runtime: LocalRuntime | undefined;
let scheduler: Scheduler | undefined;
afterEach(async () => {
  await scheduler?.stop();
  await runtime?.close();
});

it('migrates a store made by the release before the job table and publishes what it had pending, once each', async () => {
  const dataDir = makeTempDir();
  copyFileSync(RELEASE_STORE, join(dataDir, 'social-publisher.sqlite'));
  const clock = new FakeClock(DIED + 2 * 60_000);
  runtime = await openLocalRuntime({ dataDir, demo: false }, { clock });
  const { sql } = runtime.store as SqliteStore;
  scheduler = await publishesWhatTheReleaseLeft(runtime, clock, async (text) => sql.all(text));
});
