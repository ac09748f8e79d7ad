/**
 * `connect threads` as a user runs it: the built program against the loopback Threads stand-in, with
 * the operator's Threads app in the environment. The program prints the authorization address (the
 * scopes the connector needs, no PKCE), the "browser" approves it and lands on the program's redirect,
 * the code is exchanged (form POST) and the short-lived token traded for a 60-day one, the profile is
 * read with `GET /v1.0/me`, and the channel is printed as JSON. The tokens are stored sealed and appear
 * in no output; the connection keeps its --auth-root for the refreshes.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import {
  connectThrough,
  expectNoSecretPrinted,
  printedChannel,
  storedConnections,
} from '../support/connect-sign-in.js';
import { startThreadsServer, THREADS_USER_ID, type ThreadsServer } from '../support/threads-server.js';

let threads: ThreadsServer;

beforeAll(() => requireBuild());
afterEach(cleanup);
beforeEach(async () => {
  threads = await startThreadsServer();
  return () => threads.close();
});

const connect = connectThrough(() => ({
  kind: 'threads',
  appName: 'THREADS',
  app: threads.app,
  url: threads.url,
  authorizePath: '/oauth/authorize',
}));

describe('connect threads: a sign-in in the browser with the operator’s Threads app', () => {
  it('signs in, trades the code for a long-lived token, reads the profile, stores it sealed', async () => {
    const dataDir = tempDir('spm-threads-');
    const run = await connect.signIn(dataDir);
    expect(run.address.searchParams.get('scope')).toBe(
      'threads_basic,threads_content_publish,threads_manage_replies',
    );
    expect(run.address.searchParams.get('code_challenge')).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    const channel = printedChannel(run);
    expect(channel.type).toBe('Threads');
    expect(channel.connection).toMatchObject({
      connector: 'threads',
      account: '@acme',
      accountId: THREADS_USER_ID,
      profileUrl: 'https://www.threads.net/@acme',
      credentials: 'stored',
    });
    expectNoSecretPrinted(run, threads.secrets());
    expect(storedConnections(dataDir).map((row) => row.settings)).toEqual([{ authRoot: threads.url }]);
    expect(threads.kit.requestsTo('/oauth/access_token', 'POST')).toHaveLength(1);
    expect(threads.kit.requestsTo('/access_token')[0]?.query.get('grant_type')).toBe('th_exchange_token');
    const long = [...threads.tokens.values()].filter((token) => token.long);
    expect(long).toHaveLength(1);
  });

  it('without the app’s credentials: exit 1, naming the Threads settings and developers.facebook.com', async () => {
    const run = await connect.withoutApp(tempDir('spm-threads-'));
    expect(run.stderr).toContain('https://developers.facebook.com/apps');
  });
});
