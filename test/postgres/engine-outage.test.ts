/**
 * The publishing engine through a PostgreSQL outage: it keeps trying, says so once (not once per tick or
 * per sleep it plans), and publishes what is due as soon as the database answers again, without a restart.
 */
import { afterEach, expect, it } from 'vitest';
import { systemClock } from '../../src/ports.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { usePostgres } from './postgres-databases.js';
import { newPost, seedWorkspace } from './store-fixture.js';

const postgres = usePostgres();

afterEach(async () => {
  await postgres
    .server()
    .startAgain()
    .catch(() => undefined);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('logs an outage once while its ticks fail, and publishes what is due once the database is back', async () => {
  const store = await postgres.open(undefined, { poolSize: 4, timeoutMs: 1_000 });
  const ws = await seedWorkspace(store);
  const logged: string[] = [];
  const scheduler = new Scheduler({
    store,
    clock: systemClock,
    publisher: new SandboxPublisher(store.sandbox, systemClock),
    maxSleepMs: 100,
    log: (message) => logged.push(message.split('\n')[0]!),
  });
  scheduler.start();
  try {
    await sleep(300);
    await postgres.server().shutDown();
    // Ten of its longest sleeps, and more.
    await sleep(2_500);
    const duringOutage = [...logged];
    await postgres.server().startAgain();
    const postId = await store.posts.insert(
      newPost(ws, { payload: { publishMode: 'SCHEDULE', caption: 'After the outage' }, dueAtMs: Date.now() }),
    );
    const started = Date.now();
    while ((await store.posts.get(postId))?.status !== 'published') {
      if (Date.now() - started > 15_000) throw new Error(`not published; log: ${logged.join('\n')}`);
      await sleep(50);
    }
    // A failed tick and a failed plan of the next sleep, each said once per reason (a server shutting
    // down first drops connections, then refuses them), whatever the number of tries (20 lines before).
    expect(duringOutage.length, duringOutage.join('\n')).toBeGreaterThan(0);
    expect(duringOutage.length, duringOutage.join('\n')).toBeLessThanOrEqual(4);
  } finally {
    await scheduler.stop();
  }
});
