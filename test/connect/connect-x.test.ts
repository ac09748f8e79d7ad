/**
 * `connect x` as a user runs it: the built program against the loopback X stand-in, with the operator's
 * app in the environment. The program prints X's authorization address (PKCE S256, the scopes the
 * connector needs), the "browser" approves it on the stand-in and lands on the program's loopback
 * redirect, the code is exchanged at the stand-in's token endpoint (a confidential client), the account
 * is read with `GET /2/users/me`, and the channel is printed as JSON. The tokens are stored sealed and
 * appear in no output; the connection keeps its --auth-root for the refreshes.
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
import { startXServer, X_USER_ID, type XServer } from '../support/x-server.js';
import { approve } from '../support/x-sign-in.js';

let x: XServer;

beforeAll(() => requireBuild());
afterEach(cleanup);
beforeEach(async () => {
  x = await startXServer();
  return () => x.close();
});

const appEnv = (dataDir: string) =>
  programEnv(dataDir, {
    SOCIAL_PUBLISHER_X_CLIENT_ID: x.signIn.app.clientId,
    SOCIAL_PUBLISHER_X_CLIENT_SECRET: x.signIn.app.clientSecret,
  });
const roots = () => ['--auth-root', x.url, '--api-root', x.url];
const ADDRESS = /\n {2}(http:\/\/127\.0\.0\.1:\d+\/i\/oauth2\/authorize\?\S+)\n/;

describe('connect x: a sign-in in the browser with the operator’s app', () => {
  it('signs in with PKCE, reads the account, and stores the tokens sealed with the auth root', async () => {
    const dataDir = tempDir('spm-x-');
    const redirect = `http://127.0.0.1:${await freePort()}/callback`;
    x.signIn.app.redirectUris.push(redirect);
    const child = spawnMain(
      ['connect', 'x', '--brand', DEMO_BRAND, ...roots(), '--redirect-uri', redirect],
      appEnv(dataDir),
    );
    const out = collect(child);
    const [, address] = await waitForStderr(child, ADDRESS, out.stderr);
    const url = new URL(address!);
    expect(url.searchParams.get('scope')).toBe(
      'tweet.read tweet.write users.read media.write offline.access',
    );
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const approved = await approve(address!);
    await fetch(approved.redirectedTo);
    expect(await out.exit, out.stderr.text).toBe(0);
    const channel = JSON.parse(out.stdout.text) as { type: string; connection: Record<string, unknown> };
    expect(channel.type).toBe('X/Twitter');
    expect(channel.connection).toMatchObject({
      connector: 'x',
      account: '@acme',
      accountId: X_USER_ID,
      profileUrl: 'https://x.com/acme',
      credentials: 'stored',
    });
    for (const secret of x.secrets()) {
      expect(out.stdout.text).not.toContain(secret);
      expect(out.stderr.text).not.toContain(secret);
    }
    const row = readDatabase(
      dataDir,
      (db) => db.prepare('SELECT settings FROM channel_connections').get() as { settings: string },
    );
    expect(JSON.parse(row.settings)).toEqual({ username: 'acme', authRoot: x.url });
    const exchange = x.kit.requestsTo('/2/oauth2/token')[0]!;
    expect(new Map(exchange.body.fields).get('code_verifier')).toMatch(/^[\w-]{43,128}$/);
  });

  it('without the app’s credentials: exit 1, naming X’s settings and developer.x.com', async () => {
    const run = await runMain(
      ['connect', 'x', '--brand', DEMO_BRAND, ...roots()],
      programEnv(tempDir('spm-x-')),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('SOCIAL_PUBLISHER_X_CLIENT_ID and SOCIAL_PUBLISHER_X_CLIENT_SECRET');
    expect(run.stderr).toContain('https://developer.x.com/en/portal/dashboard');
  });
});
