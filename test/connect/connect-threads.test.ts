/**
 * `connect threads` as a user runs it: the built program against the loopback Threads stand-in, with
 * the operator's Threads app in the environment. The program prints the authorization address (the
 * scopes the connector needs, no PKCE), the "browser" approves it and lands on the program's redirect,
 * the code is exchanged (form POST) and the short-lived token traded for a 60-day one, the profile is
 * read with `GET /v1.0/me`, and the channel is printed as JSON. The tokens are stored sealed and appear
 * in no output; the connection keeps its --auth-root for the refreshes.
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
import { startThreadsServer, THREADS_USER_ID, type ThreadsServer } from '../support/threads-server.js';

let threads: ThreadsServer;

beforeAll(() => requireBuild());
afterEach(cleanup);
beforeEach(async () => {
  threads = await startThreadsServer();
  return () => threads.close();
});

const appEnv = (dataDir: string) =>
  programEnv(dataDir, {
    SOCIAL_PUBLISHER_THREADS_CLIENT_ID: threads.app.clientId,
    SOCIAL_PUBLISHER_THREADS_CLIENT_SECRET: threads.app.clientSecret,
  });
const roots = () => ['--auth-root', threads.url, '--api-root', threads.url];
const ADDRESS = /\n {2}(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)\n/;

describe('connect threads: a sign-in in the browser with the operator’s Threads app', () => {
  it('signs in, trades the code for a long-lived token, reads the profile, stores it sealed', async () => {
    const dataDir = tempDir('spm-threads-');
    const redirect = `http://127.0.0.1:${await freePort()}/callback`;
    threads.app.redirectUris.push(redirect);
    const child = spawnMain(
      ['connect', 'threads', '--brand', DEMO_BRAND, ...roots(), '--redirect-uri', redirect],
      appEnv(dataDir),
    );
    const out = collect(child);
    const [, address] = await waitForStderr(child, ADDRESS, out.stderr);
    const url = new URL(address!);
    expect(url.searchParams.get('scope')).toBe(
      'threads_basic,threads_content_publish,threads_manage_replies',
    );
    expect(url.searchParams.get('code_challenge')).toBeNull();
    const approved = await fetch(address!, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    await fetch(approved.headers.get('location')!);
    expect(await out.exit, out.stderr.text).toBe(0);
    const channel = JSON.parse(out.stdout.text) as { type: string; connection: Record<string, unknown> };
    expect(channel.type).toBe('Threads');
    expect(channel.connection).toMatchObject({
      connector: 'threads',
      account: '@acme',
      accountId: THREADS_USER_ID,
      profileUrl: 'https://www.threads.net/@acme',
      credentials: 'stored',
    });
    for (const secret of threads.secrets()) {
      expect(out.stdout.text).not.toContain(secret);
      expect(out.stderr.text).not.toContain(secret);
    }
    const row = readDatabase(
      dataDir,
      (db) => db.prepare('SELECT settings FROM channel_connections').get() as { settings: string },
    );
    expect(JSON.parse(row.settings)).toEqual({ authRoot: threads.url });
    expect(threads.kit.requestsTo('/oauth/access_token', 'POST')).toHaveLength(1);
    expect(threads.kit.requestsTo('/access_token')[0]?.query.get('grant_type')).toBe('th_exchange_token');
    const long = [...threads.tokens.values()].filter((token) => token.long);
    expect(long).toHaveLength(1);
  });

  it('without the app’s credentials: exit 1, naming the Threads settings and developers.facebook.com', async () => {
    const run = await runMain(
      ['connect', 'threads', '--brand', DEMO_BRAND, ...roots()],
      programEnv(tempDir('spm-threads-')),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'SOCIAL_PUBLISHER_THREADS_CLIENT_ID and SOCIAL_PUBLISHER_THREADS_CLIENT_SECRET',
    );
    expect(run.stderr).toContain('https://developers.facebook.com/apps');
  });
});
