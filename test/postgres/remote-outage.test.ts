/**
 * The remote client (remote mode) against a server whose PostgreSQL is shut down: the server's 503 comes
 * back as the same DatabaseUnavailableError local mode throws, naming the database, and a call is sent
 * again while the server says nothing is in doubt, so one made during a short outage succeeds once the
 * database is back, stored once. Before, the server answered a bare 500, and nothing was tried again.
 */
import { afterEach, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../../src/domain/errors.js';
import { RemotePublishingService } from '../../src/remote/remote-service.js';
import { KEY, type OutageInstance, openOutageInstance } from './outage-instance.js';
import { usePostgres } from './postgres-databases.js';

const postgres = usePostgres();

let instance: OutageInstance | undefined;
const clients: RemotePublishingService[] = [];
afterEach(async () => {
  await postgres
    .server()
    .startAgain()
    .catch(() => undefined);
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await instance?.close();
  instance = undefined;
});

it('answers with the same error class, and a call made during a short outage succeeds', async () => {
  const url = await postgres.database();
  const { hostname, port, pathname } = new URL(url);
  const open = await openOutageInstance(url);
  instance = open;
  const baseUrl = `${await open.listen()}/v1`;
  const { brandId, collectionId } = open;
  // Retry-After (5 s) is capped at 100 ms here: 4 attempts in about 0.3 s.
  const once = new RemotePublishingService({ baseUrl, apiKey: KEY, maxRetries: 3, maxDelayMs: 100 });
  clients.push(once);
  expect((await once.listBrands({})).data).toHaveLength(1);

  await postgres.server().shutDown();
  for (const call of [
    once.listBrands({}),
    once.createPost({ brandId, collectionId, publishMode: 'DRAFT', caption: 'Never saved' }),
  ]) {
    const error = await call.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    const unavailable = error as DatabaseUnavailableError;
    expect(unavailable.database).toBe(`${hostname}:${port}${pathname}`);
    expect(unavailable.problem).toBe('it refuses connections');
    expect(unavailable.inDoubt).toBe(false);
  }

  // A create sent while the database is down, tried again until it is back (up to 5 s): stored once.
  const patient = new RemotePublishingService({ baseUrl, apiKey: KEY, maxRetries: 50, maxDelayMs: 100 });
  clients.push(patient);
  const created = patient.createPost({ brandId, collectionId, publishMode: 'DRAFT', caption: 'Saved later' });
  created.catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 150));
  await postgres.server().startAgain();
  expect((await created).id).toBeGreaterThan(0);
  const posts = await once.listPosts({ brandId });
  expect(posts.data.map((post) => post.content.caption)).toEqual(['Saved later']);
});
