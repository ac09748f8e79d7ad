/**
 * The server's database unavailable (a 503 whose body names `database`, domain/errors.ts) comes back
 * from the remote client as the same DatabaseUnavailableError local mode throws. A call that changes
 * something is sent again only while the server says no change is in doubt; one whose change may have
 * been saved (`errors.saved`) is not, and its error says so. (test/postgres/database-outage.test.ts shows
 * the same against a real server whose PostgreSQL is shut down.)
 */
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { DatabaseUnavailableError, storageFaultBody } from '../../src/domain/errors.js';
import { RemotePublishingService } from '../../src/remote/remote-service.js';
import { API_KEY, ok, type Reply, type ScriptedServer, startScriptedServer } from './scripted-server.js';

let server: ScriptedServer | undefined;
let client: RemotePublishingService | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

const unavailable = (inDoubt: boolean): Reply => ({
  status: 503,
  headers: { 'retry-after': '5' },
  body: storageFaultBody(
    new DatabaseUnavailableError('db.internal:5432/social', 'it refuses connections', inDoubt),
  ),
});

async function remote(reply: (index: number) => Reply) {
  server = await startScriptedServer((_request, index) => reply(index));
  // Retry-After (5 s) capped at 10 ms.
  client = new RemotePublishingService({ baseUrl: server.baseUrl, apiKey: API_KEY, maxDelayMs: 10 });
  return { client, requests: server.requests };
}

const outcome = (call: Promise<unknown>) =>
  call.then(
    (value) => value,
    (error: unknown) => error,
  );

it('turns the 503 back into DatabaseUnavailableError, with the database and the problem', async () => {
  const { client, requests } = await remote(() => unavailable(false));
  const error = await outcome(client.listBrands({}));
  expect(error).toBeInstanceOf(DatabaseUnavailableError);
  expect(error).toMatchObject({
    database: 'db.internal:5432/social',
    problem: 'it refuses connections',
    inDoubt: false,
    retryAfterSeconds: 5,
  });
  expect(((error as Error).cause as Error).message).toMatch(
    /^GET http:\/\/127\.0\.0\.1:\d+\/v1\/brands answered 503$/,
  );
  expect(requests).toHaveLength(4);
});

it('sends a POST, a PATCH or a DELETE again while nothing is in doubt, and returns the later answer', async () => {
  const { client, requests } = await remote((index) =>
    index % 2 === 0 ? unavailable(false) : ok({ id: 7, message: 'Done.' }, 201),
  );
  expect(
    await client.createPost({ brandId: 1, collectionId: 1, publishMode: 'DRAFT', caption: 'x' }),
  ).toEqual({
    id: 7,
    message: 'Done.',
  });
  await outcome(client.deletePost({ brandId: 1, postId: 7 }));
  expect(requests.map((request) => request.method)).toEqual(['POST', 'POST', 'DELETE', 'DELETE']);
  // The same body both times.
  expect(requests[1]!.json).toEqual(requests[0]!.json);
});

it('does not send a change again when it may have been saved, and says so', async () => {
  const { client, requests } = await remote(() => unavailable(true));
  const error = await outcome(
    client.createPost({ brandId: 1, collectionId: 1, publishMode: 'DRAFT', caption: 'x' }),
  );
  expect(error).toBeInstanceOf(DatabaseUnavailableError);
  expect((error as DatabaseUnavailableError).inDoubt).toBe(true);
  expect(requests).toHaveLength(1);
});

it('does not send an upload again (its body is not kept)', async () => {
  const { client, requests } = await remote(() => unavailable(false));
  const error = await outcome(client.uploadMedia({ brandId: 1, path: fileURLToPath(import.meta.url) }));
  expect(error).toBeInstanceOf(DatabaseUnavailableError);
  expect(requests).toHaveLength(1);
});
