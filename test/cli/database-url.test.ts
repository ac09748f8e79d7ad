/**
 * SOCIAL_PUBLISHER_DATABASE_URL as a user meets it, on the built program: a PostgreSQL database named
 * there is where every mode stores (nothing is written to a SQLite file), two processes on one database
 * see each other's data, and a URL that is wrong or a server that cannot be reached stops the start
 * with a message naming the setting or the server (its password hidden), also to an MCP client.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import {
  brandTitles,
  childEnv,
  cleanup,
  connectStdio,
  PROJECT_ROOT,
  requireBuild,
  runMain,
  tempDir,
} from '../mcp/cli-harness.js';
import { usePostgres } from '../postgres/postgres-databases.js';

const pg = usePostgres();

beforeAll(() => {
  requireBuild();
});

afterEach(async () => {
  await cleanup();
});

describe('SOCIAL_PUBLISHER_DATABASE_URL', () => {
  it('stores in PostgreSQL in every mode: stdio, import and keys share one database', async () => {
    const url = await pg.database();
    const dataDir = tempDir('spm-pg-');
    const env = childEnv({ SOCIAL_PUBLISHER_DATABASE_URL: url, SOCIAL_PUBLISHER_DATA_DIR: dataDir });

    const session = await connectStdio(env);
    expect(brandTitles(await session.call('list_brands'))).toEqual(['Northwind Coffee', 'Kite & Key Studio']);
    await session.close();

    const keys = await runMain(['keys', 'create', '--user', 'Demo User'], env);
    expect(keys.code, keys.stderr).toBe(0);
    const listed = await runMain(['keys', 'list', '--user', 'Demo User'], env);
    expect(JSON.parse(listed.stdout)).toHaveLength(1);

    // Another data directory, the same database: the same workspace and keys.
    const elsewhere = childEnv({
      SOCIAL_PUBLISHER_DATABASE_URL: url,
      SOCIAL_PUBLISHER_DATA_DIR: tempDir('spm-pg-'),
    });
    expect(
      JSON.parse((await runMain(['keys', 'list', '--user', 'Demo User'], elsewhere)).stdout),
    ).toHaveLength(1);

    const imported = await runMain(['import', join(PROJECT_ROOT, 'examples', 'workspace.json')], elsewhere);
    expect(imported.code, imported.stderr).toBe(0);
    const brands = await pg.query<{ title: string }>(url, 'SELECT title FROM brands ORDER BY id');
    expect(brands.length).toBeGreaterThan(2);
    expect(brands.slice(0, 2).map((brand) => brand.title)).toEqual(['Northwind Coffee', 'Kite & Key Studio']);
    expect(existsSync(join(dataDir, DATABASE_FILE))).toBe(false);
  });

  it('refuses a URL that is not PostgreSQL, and a pool size without a URL', async () => {
    const wrong = await runMain(
      ['keys', 'list'],
      childEnv({ SOCIAL_PUBLISHER_DATABASE_URL: 'mysql://db/x' }),
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('SOCIAL_PUBLISHER_DATABASE_URL must be a PostgreSQL URL');
    const pool = await runMain(['keys', 'list'], childEnv({ SOCIAL_PUBLISHER_DATABASE_POOL_SIZE: '5' }));
    expect(pool.code).toBe(1);
    expect(pool.stderr).toContain('SOCIAL_PUBLISHER_DATABASE_POOL_SIZE applies to PostgreSQL');
  });

  it('tells an MCP client why it could not start when the server cannot be reached, hiding the password', async () => {
    const unreachable = 'postgres://spm:hunter2secret@127.0.0.1:1/spm';
    const initialize = `${JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    })}\n`;
    const result = await runMain(
      [],
      childEnv({ SOCIAL_PUBLISHER_DATABASE_URL: unreachable, SOCIAL_PUBLISHER_DATA_DIR: tempDir('spm-pg-') }),
      initialize,
    );
    expect(result.code).toBe(1);
    const answer = JSON.parse(result.stdout.trim()) as {
      id: number;
      error: { code: number; message: string };
    };
    expect(answer.id).toBe(1);
    expect(answer.error.code).toBe(-32000);
    expect(answer.error.message).toContain('postgres://spm:***@127.0.0.1:1/spm');
    expect(result.stdout + result.stderr).not.toContain('hunter2secret');
  });
});
