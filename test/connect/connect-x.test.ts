/**
 * `connect x` as a user runs it: the built program against the loopback X stand-in, with the operator's
 * app in the environment. The program prints X's authorization address (PKCE S256, the scopes the
 * connector needs), the "browser" approves it on the stand-in and lands on the program's loopback
 * redirect, the code is exchanged at the stand-in's token endpoint (a confidential client), the account
 * is read with `GET /2/users/me`, and the channel is printed as JSON. The tokens are stored sealed and
 * appear in no output; the connection keeps its --auth-root for the refreshes.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import {
  connectThrough,
  expectNoSecretPrinted,
  printedChannel,
  storedConnections,
} from '../support/connect-sign-in.js';
import { startXServer, X_USER_ID, type XServer } from '../support/x-server.js';

let x: XServer;

beforeAll(() => requireBuild());
afterEach(cleanup);
beforeEach(async () => {
  x = await startXServer();
  return () => x.close();
});

const connect = connectThrough(() => ({
  kind: 'x',
  appName: 'X',
  app: x.signIn.app,
  url: x.url,
  authorizePath: '/i/oauth2/authorize',
}));

describe('connect x: a sign-in in the browser with the operator’s app', () => {
  it('signs in with PKCE, reads the account, and stores the tokens sealed with the auth root', async () => {
    const dataDir = tempDir('spm-x-');
    const run = await connect.signIn(dataDir);
    expect(run.address.searchParams.get('scope')).toBe(
      'tweet.read tweet.write users.read media.write offline.access',
    );
    expect(run.address.searchParams.get('code_challenge_method')).toBe('S256');
    expect(run.code, run.stderr).toBe(0);
    const channel = printedChannel(run);
    expect(channel.type).toBe('X/Twitter');
    expect(channel.connection).toMatchObject({
      connector: 'x',
      account: '@acme',
      accountId: X_USER_ID,
      profileUrl: 'https://x.com/acme',
      credentials: 'stored',
    });
    expectNoSecretPrinted(run, x.secrets());
    expect(storedConnections(dataDir).map((row) => row.settings)).toEqual([
      { username: 'acme', authRoot: x.url },
    ]);
    const exchange = x.kit.requestsTo('/2/oauth2/token')[0]!;
    expect(new Map(exchange.body.fields).get('code_verifier')).toMatch(/^[\w-]{43,128}$/);
  });

  it('without the app’s credentials: exit 1, naming X’s settings and developer.x.com', async () => {
    const run = await connect.withoutApp(tempDir('spm-x-'));
    expect(run.stderr).toContain('https://developer.x.com/en/portal/dashboard');
  });
});
