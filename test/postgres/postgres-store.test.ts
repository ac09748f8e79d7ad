/**
 * What the PostgreSQL store does that the port's contract cannot see: the sandbox outbox's rows, no
 * remembered queue runs, storage faults as the service's typed errors, and a pool that outlives the
 * server dropping its connections.
 */
import { expect, it } from 'vitest';
import { StorageReadOnlyError } from '../../src/domain/errors.js';
import { usePostgres } from './postgres-databases.js';
import { HOUR, NOW, newPost, seedWorkspace } from './store-fixture.js';

const postgres = usePostgres();

/** Ends every other connection to the database at `url`, as a server restart or a network cut would. */
async function dropConnections(url: string): Promise<void> {
  await postgres.query(
    postgres.server().url(),
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [new URL(url).pathname.slice(1)],
  );
}

it('records a sandbox body once per delivery or comment, and counts every send', async () => {
  const url = await postgres.database();
  const store = await postgres.open(url);
  await store.sandbox.record('delivery', 7, 'Mastodon', { status: 'Hello', media: [] }, NOW);
  await store.sandbox.record('delivery', 7, 'Mastodon', { status: 'Changed' }, NOW + 1);
  await store.sandbox.record('comment', 7, 'Mastodon', { status: 'First!' }, NOW + 2);
  const rows = await postgres.query(
    url,
    'SELECT kind, delivery_id, platform, body, recorded_at_ms, sends FROM sandbox_outbox ORDER BY id',
  );
  expect(rows).toEqual([
    {
      kind: 'delivery',
      delivery_id: '7',
      platform: 'Mastodon',
      body: { status: 'Hello', media: [] },
      recorded_at_ms: String(NOW),
      sends: 2,
    },
    {
      kind: 'comment',
      delivery_id: '7',
      platform: 'Mastodon',
      body: { status: 'First!' },
      recorded_at_ms: String(NOW + 2),
      sends: 1,
    },
  ]);
});

it('remembers no queue run: another instance may free a slot at any time, unseen', async () => {
  const store = await postgres.open();
  await store.posts.rememberHeldQueueRun(1, { schedule: 's', afterMs: NOW, untilMs: NOW + HOUR });
  expect(await store.posts.heldQueueRun(1, 's')).toBeUndefined();
});

it('keeps working after the server dropped its connections', async () => {
  const url = await postgres.database();
  const store = await postgres.open(url, { poolSize: 2 });
  const ws = await seedWorkspace(store);
  await dropConnections(url);
  // An idle connection that died is replaced; at worst the first statement meets it and fails.
  await store.countUsers().catch(() => undefined);
  expect(await store.countUsers()).toBe(1);
  expect(await store.posts.insert(newPost(ws))).toBeGreaterThan(0);
});

it('fails a transaction whose connection the server dropped mid-way, and goes on with a new one', async () => {
  const url = await postgres.database();
  const store = await postgres.open(url);
  const outcome = store.transaction(async (tx) => {
    await tx.countUsers();
    await dropConnections(url);
    // The connection is lent out and idle: its loss arrives as an event, not as a failed statement.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await tx.countUsers();
  });
  await expect(outcome).rejects.toThrow();
  expect(await store.countUsers()).toBe(0);
});

it('turns a server that stopped taking writes into StorageReadOnlyError; reads go on', async () => {
  // A database of its own: the file's database must stay writable for the other tests.
  const url = await postgres.database({ empty: true });
  const store = await postgres.open(url, { poolSize: 2 });
  const ws = await seedWorkspace(store);
  const database = new URL(url).pathname.slice(1);
  await postgres.query(
    postgres.server().url(),
    `ALTER DATABASE ${database} SET default_transaction_read_only = on`,
  );
  await dropConnections(url);
  await store.countUsers().catch(() => undefined);

  await expect(store.posts.insert(newPost(ws))).rejects.toBeInstanceOf(StorageReadOnlyError);
  await expect(store.transaction((tx) => tx.posts.insert(newPost(ws)))).rejects.toBeInstanceOf(
    StorageReadOnlyError,
  );
  expect(await store.countUsers()).toBe(1);
  const error = await store.posts.insert(newPost(ws)).catch((e: Error) => e);
  expect((error as Error).cause).toMatchObject({ code: '25006' });
});
