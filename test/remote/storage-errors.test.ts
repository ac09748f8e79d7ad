/**
 * The server's storage faults come back from the remote client as the same typed errors local mode
 * throws, so the MCP tools give the same "do not retry" answer in both modes. A 503 that is not a
 * storage fault (a proxy's, a restarting server's) stays a plain error.
 */
import { afterEach, expect, it } from 'vitest';
import { StorageFullError, StorageReadOnlyError } from '../../src/domain/errors.js';
import { RemotePublishingService } from '../../src/remote/remote-service.js';
import { DISK_FULL_BODY, READ_ONLY_BODY } from '../store/storage-fault-bodies.js';
import { API_KEY, type Reply, type ScriptedServer, startScriptedServer } from './scripted-server.js';

let server: ScriptedServer | undefined;
let client: RemotePublishingService | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
});

async function createPostAnswered(reply: Reply): Promise<unknown> {
  server = await startScriptedServer(() => reply);
  client = new RemotePublishingService({ baseUrl: server.baseUrl, apiKey: API_KEY, baseDelayMs: 1 });
  return client.createPost({ brandId: 1, collectionId: 1, publishMode: 'DRAFT', caption: 'Hi' }).then(
    () => 'no error',
    (error: unknown) => error,
  );
}

it('turns a 507 into StorageFullError, naming the request in its cause', async () => {
  const error = await createPostAnswered({ status: 507, body: JSON.parse(DISK_FULL_BODY) });
  expect(error).toBeInstanceOf(StorageFullError);
  expect(((error as Error).cause as Error).message).toMatch(
    /^POST http:\/\/127\.0\.0\.1:\d+\/v1\/brands\/1\/collections\/1\/posts answered 507$/,
  );
});

it('turns a 503 with the storage body into StorageReadOnlyError', async () => {
  expect(await createPostAnswered({ status: 503, body: JSON.parse(READ_ONLY_BODY) })).toBeInstanceOf(
    StorageReadOnlyError,
  );
});

it('leaves any other 503 a plain error', async () => {
  const error = await createPostAnswered({ status: 503, text: '<html>Service Unavailable</html>' });
  expect(error).not.toBeInstanceOf(StorageReadOnlyError);
  expect((error as Error).message).toMatch(/answered 503/);
});
