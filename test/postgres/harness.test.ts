/**
 * The test server itself (harness.ts): reachable on the loopback address only, run by a user other
 * than root (PostgreSQL refuses root), and gone, with its files, once stopped.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { Client } from 'pg';
import { expect, it } from 'vitest';
import { startPostgres } from './harness.js';
import { usePostgres } from './postgres-databases.js';

const postgres = usePostgres();

it('listens on 127.0.0.1 only, without a Unix socket, and does not run as root', async () => {
  const url = postgres.server().url();
  const [settings] = await postgres.query<Record<string, string>>(
    url,
    `SELECT current_setting('listen_addresses') AS listen, current_setting('unix_socket_directories') AS sockets,
       current_setting('data_directory') AS data, current_setting('server_version_num') AS version`,
  );
  expect(settings).toMatchObject({ listen: '127.0.0.1', sockets: '' });
  // Text sorts as on a typical production server (ICU), where the store must not count on byte order.
  expect(await postgres.query(url, `SELECT 'a' < 'B' AS icu, 'a' < 'B' COLLATE "C" AS bytes`)).toEqual([
    { icu: true, bytes: false },
  ]);
  expect(Number(settings!.version)).toBeGreaterThanOrEqual(150_000);
  if (process.getuid?.() === 0) expect(statSync(settings!.data!).uid).not.toBe(0);
});

it('gives each caller a database of its own', async () => {
  const [one, two] = [await postgres.database({ empty: true }), await postgres.database({ empty: true })];
  expect(one).not.toBe(two);
  await postgres.query(one, 'CREATE TABLE only_here (x int)');
  expect(await postgres.query(two, `SELECT to_regclass('only_here') AS t`)).toEqual([{ t: null }]);
});

it('removes the cluster when stopped, and stops listening', async () => {
  const server = await startPostgres();
  const url = server.url();
  const [{ data }] = (await postgres.query(url, `SELECT current_setting('data_directory') AS data`)) as [
    { data: string },
  ];
  await server.stop();
  await server.stop();
  expect(existsSync(dirname(data))).toBe(false);
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  await expect(client.connect()).rejects.toThrow();
});
