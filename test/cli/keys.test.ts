/**
 * `keys create|list|revoke` on the built program: a new key is printed once and only its hash stored;
 * `list` never shows a key; a revoked key is refused at once by a `serve` already running; a lost demo
 * key is recovered with `keys create`; keys never create users; several users and no key make stdio
 * say exactly what to set; imports and old stores keep their keys.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/service/acting-user.js';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import {
  CHILD_TIMEOUT_MS,
  childEnv,
  cleanup,
  connectStdio,
  requireBuild,
  runMain,
  STACK_FRAME,
  spawnMain,
  startServe,
  tempDir,
} from '../mcp/cli-harness.js';
import { beforeJobTable } from '../support/older-schema.js';

afterEach(cleanup);

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

interface CreatedKey {
  userId: string;
  user: string;
  key: string;
  id: number;
  prefix: string;
  origin: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
type Listed = Array<{
  userId: string;
  user: string;
  keys: Array<Omit<CreatedKey, 'key' | 'userId' | 'user'>>;
}>;

const env = (dataDir: string, extra: Record<string, string> = {}) =>
  childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir, ...extra });

async function keys(dataDir: string, ...args: string[]) {
  return runMain(['keys', ...args], env(dataDir));
}

async function createKey(dataDir: string, user: string): Promise<CreatedKey> {
  const created = await keys(dataDir, 'create', '--user', user);
  expect(created.code, created.stderr).toBe(0);
  return JSON.parse(created.stdout) as CreatedKey;
}

async function list(dataDir: string, ...args: string[]): Promise<{ listed: Listed; stdout: string }> {
  const listed = await keys(dataDir, 'list', ...args);
  expect(listed.code, listed.stderr).toBe(0);
  return { listed: JSON.parse(listed.stdout) as Listed, stdout: listed.stdout };
}

/** `serve` on a store whose users all have (or had) keys: it prints none, so wait for "listening". */
async function startQuietServe(
  dataDir: string,
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawnMain(['serve', '--port', '0'], env(dataDir));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), CHILD_TIMEOUT_MS);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = /listening on (http:\/\/\S+):/.exec(stderr)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
  });
  return { child, url, stderr: () => stderr };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const status = async (url: string, key: string) =>
  (await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${key}` } })).status;

/** Every byte of the store on disk: the database and its WAL. */
function storeBytes(dataDir: string): string {
  return readdirSync(dataDir)
    .filter((name) => name.startsWith(DATABASE_FILE))
    .map((name) => readFileSync(join(dataDir, name)).toString('latin1'))
    .join('');
}

function writeWorkspace(dir: string, users: object[]): string {
  const file = join(dir, 'workspace.json');
  writeFileSync(
    file,
    JSON.stringify({
      brands: [
        {
          title: 'Acme',
          timezone: 'America/New_York',
          channels: [{ name: 'Acme on Bluesky', type: 'Bluesky' }],
          collections: [{ title: 'Everywhere', channels: ['Acme on Bluesky'] }],
        },
      ],
      users,
    }),
  );
  return file;
}

describe('keys create, list and revoke', () => {
  it('recovers a lost demo key: a new key, printed once, hashed, accepted by a running serve; revoked, refused at once', async () => {
    requireBuild();
    const dataDir = tempDir();
    // The first serve prints the demo key once; the next start prints none: that key is "lost".
    const first = await startServe(dataDir);
    const demoKey = first.key;
    expect(await status(first.url, demoKey)).toBe(200);
    await stop(first.child);
    const serve = await startQuietServe(dataDir);
    expect(serve.stderr()).not.toContain('spk_');

    const created = await keys(dataDir, 'create', '--user', 'Demo User');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain('shown this once (only its hash is stored)');
    const key = JSON.parse(created.stdout) as CreatedKey;
    expect(key).toEqual({
      userId: expect.stringMatching(/^usr_/),
      user: 'Demo User',
      key: expect.stringMatching(/^spk_[\w-]{32}$/),
      id: 2,
      prefix: key.key.slice(0, 12),
      origin: 'cli',
      createdAt: expect.stringMatching(TIMESTAMP),
      lastUsedAt: null,
      revokedAt: null,
    });
    // Only the hash is on disk.
    expect(storeBytes(dataDir)).not.toContain(key.key);
    const db = openDatabase(join(dataDir, DATABASE_FILE));
    try {
      const hashes = (
        db.prepare('SELECT key_hash FROM api_keys ORDER BY id').all() as Array<{ key_hash: string }>
      ).map((row) => row.key_hash);
      expect(hashes).toEqual([hashApiKey(demoKey), hashApiKey(key.key)]);
    } finally {
      db.close();
    }

    // The running serve accepts the new key at once (nothing cached), and the old one still.
    expect(await status(serve.url, key.key)).toBe(200);
    expect(await status(serve.url, demoKey)).toBe(200);

    // list: ids, prefixes, origins and times, never a key.
    const { listed, stdout } = await list(dataDir);
    expect(stdout).not.toContain(key.key);
    expect(stdout).not.toContain(demoKey);
    expect(listed).toEqual([
      {
        userId: key.userId,
        user: 'Demo User',
        keys: [
          {
            id: 1,
            prefix: demoKey.slice(0, 12),
            origin: 'serve',
            createdAt: expect.stringMatching(TIMESTAMP),
            lastUsedAt: expect.stringMatching(TIMESTAMP),
            revokedAt: null,
          },
          {
            id: 2,
            prefix: key.prefix,
            origin: 'cli',
            createdAt: key.createdAt,
            lastUsedAt: expect.stringMatching(TIMESTAMP),
            revokedAt: null,
          },
        ],
      },
    ]);

    // Revoked by its prefix: the running serve refuses it on the next request, REST and MCP alike.
    const revoked = await keys(dataDir, 'revoke', '--user', 'Demo User', '--key', key.prefix);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toBe(
      `Revoked API key 2 (${key.prefix}…) of "Demo User": it is refused from now on, by a running serve too.\n`,
    );
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: 2, revokedAt: expect.stringMatching(TIMESTAMP) });
    expect(await status(serve.url, key.key)).toBe(401);
    const mcp = await fetch(`${serve.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(mcp.status).toBe(401);
    expect(await status(serve.url, demoKey)).toBe(200);

    // Revoking again says so; the listing keeps the revoked key; a restart issues no new key.
    const again = await keys(dataDir, 'revoke', '--user', 'Demo User', '--key', '2');
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/^API key 2 of "Demo User" was already revoked on \d{4}-/);
    await stop(serve.child);
    const restarted = await startQuietServe(dataDir);
    expect(restarted.stderr()).not.toContain('spk_');
    expect(await status(restarted.url, key.key)).toBe(401);
    expect((await list(dataDir)).listed[0]!.keys.map((k) => k.revokedAt !== null)).toEqual([false, true]);
  });

  it('revokes by id, prefix or the whole key, only among the named user’s keys', async () => {
    requireBuild();
    const dataDir = tempDir();
    await list(dataDir); // the demo workspace and its user
    const file = writeWorkspace(dataDir, [
      { name: 'Ada', timezone: 'Europe/London', apiKey: 'ada-key-0123456789abcdef', brands: ['Acme'] },
    ]);
    expect((await runMain(['import', file], env(dataDir))).code).toBe(0);
    const demo = await createKey(dataDir, 'Demo User');

    // Another user's key is not the named user's.
    const other = await keys(dataDir, 'revoke', '--user', 'Ada', '--key', String(demo.id));
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`"Ada" has no API key ${demo.id}. Its keys: 1.`);
    const otherWhole = await keys(dataDir, 'revoke', '--user', 'Ada', '--key', demo.key);
    expect(otherWhole.code).toBe(1);
    expect(otherWhole.stderr).not.toContain(demo.key);

    // An imported key has no prefix (it was not made here): revoked by the whole key, or its id.
    const whole = await keys(dataDir, 'revoke', '--user', 'Ada', '--key', 'ada-key-0123456789abcdef');
    expect(whole.code, whole.stderr).toBe(0);
    expect(JSON.parse(whole.stdout)).toMatchObject({ user: 'Ada', id: 1, prefix: null, origin: 'import' });

    // --user takes an id as well as a name.
    const byId = await keys(dataDir, 'revoke', '--user', demo.userId, '--key', demo.key);
    expect(byId.code, byId.stderr).toBe(0);
    expect(JSON.parse(byId.stdout)).toMatchObject({ user: 'Demo User', id: demo.id });
  });

  it('never creates a user: an unknown name lists the users and says how to add one', async () => {
    requireBuild();
    const dataDir = tempDir();
    const { listed } = await list(dataDir);
    const unknown = await keys(dataDir, 'create', '--user', 'Demo user');
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toBe(
      `social-publisher-mcp: No user is named "Demo user". The users: "Demo User" (${listed[0]!.userId}). keys does not create users: add one to a workspace file ("users", see examples/workspace.json) and import it with "social-publisher-mcp import FILE", then run keys again.\n`,
    );
    expect((await list(dataDir)).listed).toEqual(listed);

    for (const [args, message] of [
      [['create'], 'keys create needs --user NAME'],
      [['revoke', '--user', 'Demo User'], 'keys revoke needs --key'],
      [['rotate', '--user', 'Demo User'], 'keys: unknown action "rotate"'],
      [['list', '--key', '1'], 'keys list does not take --key'],
      [[], 'keys needs one action: create, list or revoke'],
    ] as const) {
      const refused = await keys(dataDir, ...args);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr).toContain(message);
      expect(refused.stderr).not.toMatch(STACK_FRAME);
    }
    const remote = await runMain(
      ['keys', 'list'],
      env(dataDir, { SOCIAL_PUBLISHER_API_URL: 'https://social.example/v1' }),
    );
    expect(remote.code).toBe(1);
    expect(remote.stderr).toContain('keys manages the keys of the local store');
    const elsewhere = await runMain(['serve', '--user', 'Ada'], env(dataDir));
    expect(elsewhere.stderr).toContain('--user and --key apply to keys only.');
  });

  it('asks for an id when two users share the name', async () => {
    requireBuild();
    const dataDir = tempDir();
    const file = writeWorkspace(dataDir, [
      { name: 'Sam', timezone: 'UTC', apiKey: 'sam-one-0123456789abcdef', brands: ['Acme'] },
      { name: 'Sam', timezone: 'UTC', apiKey: 'sam-two-0123456789abcdef', brands: ['Acme'] },
    ]);
    expect((await runMain(['import', file], env(dataDir))).code).toBe(0);
    const ambiguous = await keys(dataDir, 'create', '--user', 'Sam');
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(
      /2 users are named "Sam": give --user the id of the one you mean: usr_\S+, usr_\S+\./,
    );
  });
});

describe('several users over stdio', () => {
  it('without a key, stdio says exactly what to set; a key made by keys create selects the user', async () => {
    requireBuild();
    const dataDir = tempDir();
    await list(dataDir); // the demo workspace and its user
    const file = writeWorkspace(dataDir, [
      { name: 'Ada', timezone: 'Europe/London', apiKey: 'ada-key-0123456789abcdef', brands: ['Acme'] },
    ]);
    expect((await runMain(['import', file], env(dataDir))).code).toBe(0);

    const noKey = await runMain([], env(dataDir));
    expect(noKey.code).toBe(1);
    expect(noKey.stdout).not.toContain('error');
    expect(noKey.stderr).toBe(
      'social-publisher-mcp: The store has 2 users ("Demo User" and "Ada"), so SOCIAL_PUBLISHER_API_KEY must say which one acts: set it, in this server\'s environment (the "env" of its entry in your MCP client\'s configuration), to an API key of the user who should act. To make a key: social-publisher-mcp keys create --user NAME, with the same SOCIAL_PUBLISHER_DATA_DIR (it prints the new key once).\n',
    );

    const ada = await createKey(dataDir, 'Ada');
    const session = await connectStdio(env(dataDir, { SOCIAL_PUBLISHER_API_KEY: ada.key }));
    expect((await session.call('get_profile')).structuredContent).toMatchObject({ data: { name: 'Ada' } });
    await session.close();

    // Importing the file again keeps Ada and both her keys (she is known by the file's key).
    expect((await runMain(['import', file], env(dataDir))).code).toBe(0);
    expect(
      (await list(dataDir)).listed.map((user) => [user.user, user.keys.map((key) => key.origin)]),
    ).toEqual([
      ['Demo User', []],
      ['Ada', ['import', 'cli']],
    ]);

    expect((await keys(dataDir, 'revoke', '--user', 'Ada', '--key', ada.key)).code).toBe(0);
    const revoked = await runMain([], env(dataDir, { SOCIAL_PUBLISHER_API_KEY: ada.key }));
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toMatch(
      /^social-publisher-mcp: SOCIAL_PUBLISHER_API_KEY is a key of "Ada" that was revoked on \d{4}-\d{2}-\d{2}T[\d:.]+Z: set it to an active key of the user who should act\. To make one: social-publisher-mcp keys create --user "Ada" \(it prints the new key once\)\.\n$/,
    );
    expect(revoked.stderr).not.toContain(ada.key);

    const wrong = await runMain([], env(dataDir, { SOCIAL_PUBLISHER_API_KEY: 'spk_made-up-0123456789' }));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(
      'SOCIAL_PUBLISHER_API_KEY matches no user of this store (its users: "Demo User" and "Ada"): set it to a key of the user who should act',
    );
  });

  it('a revoked imported key stays revoked when the file is imported again', async () => {
    requireBuild();
    const dataDir = tempDir();
    const adaKey = 'ada-key-0123456789abcdef';
    const file = writeWorkspace(dataDir, [
      { name: 'Ada', timezone: 'Europe/London', apiKey: adaKey, brands: ['Acme'] },
    ]);
    expect((await runMain(['import', file], env(dataDir))).code).toBe(0);
    expect((await keys(dataDir, 'revoke', '--user', 'Ada', '--key', adaKey)).code).toBe(0);
    expect((await runMain(['import', file], env(dataDir))).code).toBe(0);
    const { listed } = await list(dataDir, '--user', 'Ada');
    expect(listed).toHaveLength(1);
    expect(listed[0]!.keys).toEqual([
      expect.objectContaining({ origin: 'import', revokedAt: expect.stringMatching(TIMESTAMP) }),
    ]);
    const session = await runMain([], env(dataDir, { SOCIAL_PUBLISHER_API_KEY: adaKey }));
    expect(session.code).toBe(1);
    expect(session.stderr).toContain('SOCIAL_PUBLISHER_API_KEY is a key of "Ada" that was revoked');
  });
});

it('a store made before the key registry keeps its keys (migration 7)', async () => {
  requireBuild();
  const dataDir = tempDir();
  await list(dataDir);
  const oldKey = 'spk_from-an-older-version-0123';
  // Back to schema 6: the key in users.api_key_hash, no api_keys table (and no later migration's column).
  const db = openDatabase(join(dataDir, DATABASE_FILE));
  try {
    db.exec(
      `DROP TABLE api_keys; ${beforeJobTable('sqlite', false)}
       UPDATE users SET api_key_hash = '${hashApiKey(oldKey)}'; PRAGMA user_version = 6;`,
    );
  } finally {
    db.close();
  }
  const { listed } = await list(dataDir);
  expect(listed[0]!.keys).toEqual([
    {
      id: 1,
      prefix: null,
      origin: 'migrated',
      createdAt: expect.stringMatching(TIMESTAMP),
      lastUsedAt: null,
      revokedAt: null,
    },
  ]);
  const serve = await startQuietServe(dataDir);
  expect(await status(serve.url, oldKey)).toBe(200);
  const migrated = openDatabase(join(dataDir, DATABASE_FILE));
  try {
    expect(migrated.prepare('SELECT COUNT(*) AS n FROM users WHERE api_key_hash IS NOT NULL').get()).toEqual({
      n: 0,
    });
  } finally {
    migrated.close();
  }
});
