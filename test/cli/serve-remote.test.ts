import { afterEach, expect, it } from 'vitest';
import {
  brandTitles,
  childEnv,
  cleanup,
  connectStdio,
  requireBuild,
  runMain,
  spawnMain,
  startServe,
  tempDir,
} from '../mcp/cli-harness.js';

afterEach(cleanup);

it('serves the REST API with a one-time demo key, and stdio in remote mode acts on it', async () => {
  requireBuild();
  const dataDir = tempDir();
  const serve = await startServe(dataDir);

  const unauthenticated = await fetch(`${serve.url}/v1/me`);
  expect(unauthenticated.status).toBe(401);
  const me = await fetch(`${serve.url}/v1/me`, { headers: { authorization: `Bearer ${serve.key}` } });
  expect(((await me.json()) as { data: { name: string } }).data.name).toBe('Demo User');

  const remote = await connectStdio(
    childEnv({
      SOCIAL_PUBLISHER_API_URL: `${serve.url}/v1`,
      SOCIAL_PUBLISHER_API_KEY: serve.key,
      SOCIAL_PUBLISHER_DATA_DIR: tempDir(),
    }),
  );
  expect(brandTitles(await remote.call('list_brands'))).toEqual(['Northwind Coffee', 'Kite & Key Studio']);
  const created = await remote.call('create_post', {
    brandId: 2,
    collectionId: 5,
    publishMode: 'SCHEDULE',
    scheduledAt: `${new Date().getUTCFullYear() + 1}-03-02 10:00:00`,
    caption: 'From remote mode',
  });
  expect(created.isError).toBeFalsy();
  const id = (created.structuredContent as { data: { id: number } }).data.id;
  const stored = await fetch(`${serve.url}/v1/brands/2/posts/${id}`, {
    headers: { authorization: `Bearer ${serve.key}` },
  });
  expect(((await stored.json()) as { data: { content: { caption: string } } }).data.content.caption).toBe(
    'From remote mode',
  );

  const missing = await remote.call('list_channels', { brandId: 99 });
  expect(missing.structuredContent).toEqual({
    status: 'error',
    message: 'Brand not found.',
    errors: { brand: 'Brand not found.' },
  });
  await remote.close();

  const exited = new Promise<number | null>((resolve) => serve.child.once('exit', (code) => resolve(code)));
  serve.child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(serve.stderr()).toContain('stopping');

  // The key was shown once: a second start prints none, and the old key still works.
  const again = spawnMain(['serve', '--port', '0'], childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir }));
  let stderr = '';
  await new Promise<void>((resolve) => {
    again.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('listening on')) resolve();
    });
  });
  expect(stderr).not.toContain('spk_');
  const url = /listening on (http:\/\/\S+):/.exec(stderr)![1]!;
  expect((await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${serve.key}` } })).status).toBe(
    200,
  );
});

it('refuses remote mode without a key, with a message saying what to set', async () => {
  requireBuild();
  const child = spawnMain(
    [],
    childEnv({ SOCIAL_PUBLISHER_API_URL: 'http://127.0.0.1:9/v1', SOCIAL_PUBLISHER_DATA_DIR: tempDir() }),
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).not.toBe(0);
  expect(stderr).toContain('SOCIAL_PUBLISHER_API_KEY');
});

it('remote mode: a key the server refuses (wrong, or revoked while both run) names the URL and the settings', async () => {
  requireBuild();
  const dataDir = tempDir();
  const serve = await startServe(dataDir);
  const apiUrl = `${serve.url}/v1`;
  const refused = (url: string) =>
    `The server at ${url} refused the API key (401 Unauthenticated). Check SOCIAL_PUBLISHER_API_KEY (the key of your user on that server) and SOCIAL_PUBLISHER_API_URL. Retrying will not help; tell the user.`;
  const specBody = {
    status: 'error',
    message: 'Unauthenticated.',
    errors: { authorization: 'A valid API key is required.' },
  };

  const wrong = await connectStdio(
    childEnv({
      SOCIAL_PUBLISHER_API_URL: apiUrl,
      SOCIAL_PUBLISHER_API_KEY: 'spk_not-a-key-of-this-server',
      SOCIAL_PUBLISHER_DATA_DIR: tempDir(),
    }),
  );
  const result = await wrong.call('list_brands');
  expect(result.isError).toBe(true);
  expect(result.content).toEqual([{ type: 'text', text: refused(apiUrl) }]);
  expect(result.structuredContent).toEqual(specBody);
  // A prompt (a JSON-RPC error, not a tool result) names them too.
  await expect(
    wrong.client.getPrompt({
      name: 'draft_post',
      arguments: { brandId: '1', collectionId: '1', topic: 'x' },
    }),
  ).rejects.toThrow(refused(apiUrl).replace(' Retrying will not help; tell the user.', ''));
  await wrong.close();

  // A second key of the demo user, made while serve runs, works at once; revoked, it is refused at once.
  const created = await runMain(
    ['keys', 'create', '--user', 'Demo User'],
    childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir }),
  );
  expect(created.code, created.stderr).toBe(0);
  const { key, id } = JSON.parse(created.stdout) as { key: string; id: number };
  const session = await connectStdio(
    childEnv({
      SOCIAL_PUBLISHER_API_URL: apiUrl,
      SOCIAL_PUBLISHER_API_KEY: key,
      SOCIAL_PUBLISHER_DATA_DIR: tempDir(),
    }),
  );
  expect(brandTitles(await session.call('list_brands'))).toEqual(['Northwind Coffee', 'Kite & Key Studio']);
  const revoked = await runMain(
    ['keys', 'revoke', '--user', 'Demo User', '--key', String(id)],
    childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir }),
  );
  expect(revoked.code, revoked.stderr).toBe(0);
  const after = await session.call('list_brands');
  expect(after.content).toEqual([{ type: 'text', text: refused(apiUrl) }]);
  expect(after.structuredContent).toEqual(specBody);
  // The REST body of serve is the spec's, unchanged; the first key still works.
  const rest = await fetch(`${apiUrl}/me`, { headers: { authorization: `Bearer ${key}` } });
  expect(rest.status).toBe(401);
  expect(await rest.json()).toEqual(specBody);
  expect((await fetch(`${apiUrl}/me`, { headers: { authorization: `Bearer ${serve.key}` } })).status).toBe(
    200,
  );
  await session.close();
});
