/**
 * A post scheduled for a time that was still to come when its request arrived is accepted when the
 * database answers after that time: "future" is judged against the request's arrival (REST: before its
 * API key is looked up), not against the moment the database answered. Shown with a PostgreSQL server
 * frozen (SIGSTOP, harness.ts `pause`) for longer than the post was ahead. Before, posts scheduled a few
 * seconds ahead came back "must be a future date" once a frozen database answered.
 */
import { afterEach, expect, it } from 'vitest';
import { FakeClock } from '../support/fake-clock.js';
import { TEST_NOW } from '../support/local.js';
import { type OutageInstance, openOutageInstance, timed, utcText } from './outage-instance.js';
import { usePostgres } from './postgres-databases.js';

const postgres = usePostgres();

/** How long a test waits for an answer before it calls the request hung. */
const HUNG_MS = 8000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let instance: OutageInstance | undefined;
afterEach(async () => {
  postgres.server().resume();
  await instance?.close();
  instance = undefined;
});

it('a post scheduled a few seconds ahead is accepted when a frozen database answers after that time', async () => {
  const open = await openOutageInstance(await postgres.database());
  instance = open;
  const posts = `/v1/brands/${open.brandId}/collections/${open.collectionId}/posts`;
  expect((await open.request('GET', '/v1/me')).status).toBe(200);
  const draft = await open.request('POST', posts, { publishMode: 'DRAFT', caption: 'Scheduled later' });
  expect(draft.status).toBe(201);

  postgres.server().pause();
  // Both due in 2 to 3 s from now (whole seconds); the database answers in 4 s, after that time.
  const soon = utcText(Math.ceil((Date.now() + 2000) / 1000) * 1000);
  const created = timed(
    open.request('POST', posts, { publishMode: 'SCHEDULE', caption: 'Due soon', scheduledAt: soon }),
    HUNG_MS,
  );
  const changed = timed(
    open.request('PATCH', `/v1/brands/${open.brandId}/posts/${draft.body.data.id}`, {
      publishMode: 'SCHEDULE',
      scheduledAt: soon,
    }),
    HUNG_MS,
  );
  await sleep(4000);
  postgres.server().resume();
  for (const { value } of [await created, await changed]) {
    expect(value!.status, JSON.stringify(value!.body)).toBeLessThan(300);
  }
  const listed = await open.request('GET', `/v1/brands/${open.brandId}/posts`);
  expect(listed.body.data.map((post: { status: string }) => post.status)).toEqual(['scheduled', 'scheduled']);
});

it('the service judges "future" at the start of the call, on its clock, whenever the database answers', async () => {
  const clock = new FakeClock(TEST_NOW);
  const open = await openOutageInstance(await postgres.database(), { clock });
  instance = open;
  const { brandId, collectionId, service } = open;
  const draft = await service.createPost({ brandId, collectionId, publishMode: 'DRAFT', caption: 'Later' });

  postgres.server().pause();
  const scheduledAt = utcText(TEST_NOW + 5000);
  const created = service.createPost({
    brandId,
    collectionId,
    publishMode: 'SCHEDULE',
    caption: 'Due in 5 s',
    scheduledAt,
  });
  const changed = service.updatePost({ brandId, postId: draft.id, publishMode: 'SCHEDULE', scheduledAt });
  created.catch(() => undefined);
  changed.catch(() => undefined);
  // The calls are waiting for the database; a minute passes on their clock before it answers.
  await sleep(300);
  clock.advance(60_000);
  postgres.server().resume();
  expect((await created).id).toBeGreaterThan(0);
  expect((await changed).status).toBe('scheduled');
});
