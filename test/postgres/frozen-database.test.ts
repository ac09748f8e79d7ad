/**
 * A PostgreSQL server that is frozen (SIGSTOP, harness.ts `pause`): the kernel still accepts its
 * connections and statements, and nothing answers. A request gives up at the database deadline
 * (SOCIAL_PUBLISHER_DATABASE_TIMEOUT_SECONDS; 1 s here) with the outage's 503, instead of waiting for
 * as long as the freeze lasts, as each did before. A transaction cut off by the deadline leaves nothing
 * behind, unless its COMMIT had gone out: then its error says it may have been saved (and it was).
 */
import { afterEach, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../../src/domain/errors.js';
import { TEST_NOW } from '../support/local.js';
import { type OutageInstance, openOutageInstance, timed } from './outage-instance.js';
import { usePostgres } from './postgres-databases.js';

const postgres = usePostgres();

const DEADLINE_MS = 1000;
/** What a request may take beyond the deadline: the event loop, the answer's shaping, a loaded machine. */
const MARGIN_MS = 1000;
/** How long a test waits for an answer before it calls the request hung (and thaws the server). */
const HUNG_MS = 8000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let instance: OutageInstance | undefined;
afterEach(async () => {
  postgres.server().resume();
  await instance?.close();
  instance = undefined;
});

it('a frozen database: each request answers 503 at the deadline, and all work again once it thaws', async () => {
  const url = await postgres.database();
  const { hostname, port, pathname } = new URL(url);
  const open = await openOutageInstance(url, { timeoutMs: DEADLINE_MS });
  instance = open;
  const posts = `/v1/brands/${open.brandId}/collections/${open.collectionId}/posts`;
  let drafts = 0;
  const calls = () => [
    open.request('GET', '/v1/brands'),
    open.request('GET', `/v1/brands/${open.brandId}/posts`),
    open.request('POST', posts, { publishMode: 'DRAFT', caption: `Draft ${++drafts}` }),
  ];
  expect((await Promise.all(calls())).map((answer) => answer.status)).toEqual([200, 200, 201]);

  postgres.server().pause();
  // One at a time (each on a pooled connection, then on new ones), then more at once than the pool
  // holds (4): those wait for a connection, and give up at the same deadline.
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push(await timed(calls()[i % 3]!, HUNG_MS));
  answers.push(...(await Promise.all([...calls(), ...calls()].map((call) => timed(call, HUNG_MS)))));
  postgres.server().resume();
  const figures = answers.map((answer) => answer.ms);
  for (const answer of answers) {
    expect(answer.value, `hung for ${HUNG_MS} ms`).toBeDefined();
    expect(answer.value!.status, JSON.stringify(answer.value!.body)).toBe(503);
    expect(answer.value!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(answer.value!.body.errors.database).toContain(`${hostname}:${port}${pathname}`);
    expect(answer.value!.body.errors.database).toContain('1 s');
  }
  expect(Math.max(...figures), `ms per request: ${figures.join(', ')}`).toBeLessThan(DEADLINE_MS + MARGIN_MS);
  expect(Math.min(...figures)).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
  expect(open.stderr.filter((line) => line.includes('unavailable'))).toHaveLength(1);

  // Thawed: the same instance answers again, on connections of its pool made anew.
  expect((await Promise.all(calls())).map((answer) => answer.status)).toEqual([200, 200, 201]);
}, 60_000);

it('a transaction cut off by the deadline: nothing saved before its COMMIT; at its COMMIT, in doubt', async () => {
  const url = await postgres.database();
  const store = await postgres.open(url, { timeoutMs: DEADLINE_MS });
  const brand = (title: string) => ({ title, description: null, timezone: 'UTC', queueTimes: [] });
  const titles = async () =>
    (await postgres.query<{ title: string }>(url, 'SELECT title FROM brands ORDER BY title')).map(
      (row) => row.title,
    );

  // Frozen after its first write: the second gets no answer, and the transaction is given up.
  const cutOff = await store
    .transaction(async (tx) => {
      await tx.upsertBrand(brand('Written, then cut off'), TEST_NOW);
      postgres.server().pause();
      await tx.upsertBrand(brand('Never answered'), TEST_NOW);
    })
    .catch((error: unknown) => error);
  postgres.server().resume();
  expect(cutOff).toBeInstanceOf(DatabaseUnavailableError);
  expect((cutOff as DatabaseUnavailableError).inDoubt).toBe(false);

  // Frozen as its work ends: the COMMIT goes out and gets no answer.
  const atCommit = await store
    .transaction(async (tx) => {
      await tx.upsertBrand(brand('Committed, unanswered'), TEST_NOW);
      postgres.server().pause();
    })
    .catch((error: unknown) => error);
  postgres.server().resume();
  expect(atCommit).toBeInstanceOf(DatabaseUnavailableError);
  expect((atCommit as DatabaseUnavailableError).inDoubt).toBe(true);

  // Thawed, the server ran what it had received: the first transaction's connection went before its
  // COMMIT (rolled back); the second's COMMIT was there. The store goes on, on new connections.
  const started = performance.now();
  while (!(await titles()).includes('Committed, unanswered') && performance.now() - started < 5000) {
    await sleep(50);
  }
  expect(await titles()).toEqual(['Committed, unanswered']);
  await store.upsertBrand(brand('After the thaw'), TEST_NOW);
  expect(await titles()).toEqual(['After the thaw', 'Committed, unanswered']);
});
