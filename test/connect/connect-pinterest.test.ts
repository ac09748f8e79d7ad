/**
 * `connect pinterest` as a user runs it: the built program against the loopback Pinterest stand-in,
 * with the operator's Pinterest app in the environment. The program prints the authorization address
 * (the scopes the connector needs, comma separated, no PKCE), the "browser" approves it and lands on the
 * program's redirect, the code is exchanged with the app's credentials as HTTP Basic, the account's
 * boards are read as the identities and `--account` picks one, and the channel is printed as JSON: one
 * board, its id the account id. The tokens are stored sealed and appear in no output.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, requireBuild, runMain, spawnMain, tempDir } from '../mcp/cli-harness.js';
import {
  collect,
  DEMO_BRAND,
  freePort,
  programEnv,
  readDatabase,
  waitForStderr,
} from '../support/connected-program.js';
import { type PinterestServer, startPinterestServer } from '../support/pinterest-server.js';

let pinterest: PinterestServer;

beforeAll(() => requireBuild());
afterEach(cleanup);
beforeEach(async () => {
  pinterest = await startPinterestServer({
    boards: [
      { id: '549755885175', name: 'Recipes' },
      { id: '549755885176', name: 'Kitchen tools' },
    ],
  });
  return () => pinterest.close();
});

const appEnv = (dataDir: string) =>
  programEnv(dataDir, {
    SOCIAL_PUBLISHER_PINTEREST_CLIENT_ID: pinterest.app.clientId,
    SOCIAL_PUBLISHER_PINTEREST_CLIENT_SECRET: pinterest.app.clientSecret,
  });
const roots = () => ['--auth-root', pinterest.url, '--api-root', pinterest.url];
const ADDRESS = /\n {2}(http:\/\/127\.0\.0\.1:\d+\/oauth\/\?\S+)\n/;

/** Runs `connect pinterest` with `args`, approving in the "browser": the process and its output. */
async function signIn(dataDir: string, args: string[]) {
  const redirect = `http://127.0.0.1:${await freePort()}/callback`;
  pinterest.app.redirectUris.push(redirect);
  const child = spawnMain(
    ['connect', 'pinterest', '--brand', DEMO_BRAND, ...roots(), '--redirect-uri', redirect, ...args],
    appEnv(dataDir),
  );
  const out = collect(child);
  const [, address] = await waitForStderr(child, ADDRESS, out.stderr);
  const approved = await fetch(address!, { redirect: 'manual' });
  expect(approved.status).toBe(302);
  await fetch(approved.headers.get('location')!);
  return { out, address: new URL(address!) };
}

describe('connect pinterest: a sign-in in the browser with the operator’s Pinterest app', () => {
  it('signs in, picks the board --account names, stores the tokens sealed', async () => {
    const dataDir = tempDir('spm-pinterest-');
    const { out, address } = await signIn(dataDir, ['--account', 'Kitchen tools']);
    expect(address.searchParams.get('scope')).toBe(
      'boards:read,boards:write,pins:read,pins:write,user_accounts:read',
    );
    expect(address.searchParams.get('code_challenge')).toBeNull();
    expect(await out.exit, out.stderr.text).toBe(0);
    const channel = JSON.parse(out.stdout.text) as { type: string; connection: Record<string, unknown> };
    expect(channel.type).toBe('Pinterest');
    expect(channel.connection).toMatchObject({
      connector: 'pinterest',
      account: 'Kitchen tools',
      accountId: '549755885176',
      profileUrl: 'https://www.pinterest.com/acmekitchen/',
      credentials: 'stored',
      limits: expect.objectContaining({ textLimit: 800, titleLimit: 100, comments: false }),
    });
    for (const secret of pinterest.secrets()) {
      expect(out.stdout.text).not.toContain(secret);
      expect(out.stderr.text).not.toContain(secret);
    }
    const row = readDatabase(
      dataDir,
      (db) =>
        db.prepare('SELECT settings, secret FROM channel_connections').get() as {
          settings: string;
          secret: string;
        },
    );
    expect(JSON.parse(row.settings)).toEqual({
      boardId: '549755885176',
      username: 'acmekitchen',
      authRoot: pinterest.url,
    });
    for (const secret of pinterest.secrets()) expect(String(row.secret)).not.toContain(secret);
    const [exchange] = pinterest.kit.requestsTo('/v5/oauth/token', 'POST');
    expect(String(exchange!.headers.authorization)).toMatch(/^Basic /);
    expect(new Map(exchange!.body.fields).get('grant_type')).toBe('authorization_code');
  });

  it('several boards and no --account: exit 2 with the boards to choose from, nothing connected', async () => {
    const dataDir = tempDir('spm-pinterest-');
    const { out } = await signIn(dataDir, []);
    expect(await out.exit).toBe(2);
    expect(out.stderr.text).toContain('Recipes');
    expect(out.stderr.text).toContain('549755885176');
    expect(out.stdout.text).toBe('');
  });

  it('without the app’s credentials: exit 1, naming the Pinterest settings and where to register', async () => {
    const run = await runMain(
      ['connect', 'pinterest', '--brand', DEMO_BRAND, ...roots()],
      programEnv(tempDir('spm-pinterest-')),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'SOCIAL_PUBLISHER_PINTEREST_CLIENT_ID and SOCIAL_PUBLISHER_PINTEREST_CLIENT_SECRET',
    );
    expect(run.stderr).toContain('https://developers.pinterest.com/apps/');
  });
});
