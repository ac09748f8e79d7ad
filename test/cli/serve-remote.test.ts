import { afterEach, expect, it } from 'vitest';
import {
  brandTitles,
  childEnv,
  cleanup,
  connectStdio,
  requireBuild,
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
