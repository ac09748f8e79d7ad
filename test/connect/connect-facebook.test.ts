/**
 * `connect facebook` as a user runs it: the built program against the loopback Graph API stand-in, with
 * the operator's Meta app in the environment. The program prints Facebook Login's dialog address (the
 * scopes comma separated, no PKCE), the "browser" approves it on the stand-in and lands on the program's
 * loopback redirect, the code is exchanged (a GET with the app's secret), then for a long-lived user
 * token (fb_exchange_token), the Pages are listed, and the Page named by --account is stored with its
 * own token, sealed; no token appears in any output.
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
import { type FacebookServer, startFacebookServer } from '../support/facebook-server.js';

let facebook: FacebookServer;

beforeAll(() => requireBuild());
afterEach(cleanup);
beforeEach(async () => {
  facebook = await startFacebookServer();
  return () => facebook.close();
});

const appEnv = (dataDir: string) =>
  programEnv(dataDir, {
    SOCIAL_PUBLISHER_FACEBOOK_CLIENT_ID: facebook.app.clientId,
    SOCIAL_PUBLISHER_FACEBOOK_CLIENT_SECRET: facebook.app.clientSecret,
  });
const roots = () => ['--auth-root', facebook.url, '--api-root', facebook.url];
const ADDRESS = /\n {2}(http:\/\/127\.0\.0\.1:\d+\/v\d+\.\d+\/dialog\/oauth\?\S+)\n/;

describe('connect facebook: Facebook Login in the browser with the operator’s Meta app', () => {
  it('signs in, exchanges for a long-lived token, and stores the chosen Page’s token sealed', async () => {
    const dataDir = tempDir('spm-facebook-');
    const redirect = `http://127.0.0.1:${await freePort()}/callback`;
    facebook.app.redirectUris.push(redirect);
    const page = facebook.portfolio;
    const child = spawnMain(
      [
        'connect',
        'facebook',
        '--brand',
        DEMO_BRAND,
        ...roots(),
        '--redirect-uri',
        redirect,
        '--account',
        page.id,
      ],
      appEnv(dataDir),
    );
    const out = collect(child);
    const [, address] = await waitForStderr(child, ADDRESS, out.stderr);
    const url = new URL(address!);
    expect(url.searchParams.get('scope')).toBe(
      'pages_show_list,pages_manage_posts,pages_read_engagement,pages_manage_engagement,publish_video,business_management',
    );
    expect(url.searchParams.has('code_challenge')).toBe(false);
    const approved = await fetch(address!, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    await fetch(approved.headers.get('location')!);
    expect(await out.exit, out.stderr.text).toBe(0);
    const channel = JSON.parse(out.stdout.text) as { type: string; connection: Record<string, unknown> };
    expect(channel.type).toBe('Facebook');
    expect(channel.connection).toMatchObject({
      connector: 'facebook',
      account: 'Acme Roastery',
      accountId: page.id,
      profileUrl: `https://www.facebook.com/${page.id}`,
      credentials: 'stored',
    });
    for (const secret of facebook.secrets()) {
      expect(out.stdout.text).not.toContain(secret);
      expect(out.stderr.text).not.toContain(secret);
    }
    const row = readDatabase(
      dataDir,
      (db) => db.prepare('SELECT settings, secret FROM channel_connections').get() as Record<string, string>,
    );
    expect(JSON.parse(row.settings!)).toEqual({ authRoot: facebook.url });
    expect(JSON.stringify(row)).not.toContain(page.token);
    const exchanges = facebook.kit.requestsTo('/:version/oauth/access_token');
    expect(exchanges.map((request) => request.query.get('grant_type'))).toEqual([null, 'fb_exchange_token']);
    // The Portfolio's Pages were read for the identities --account matched, and again by verify.
    expect(facebook.kit.requestsTo('/:version/:business/owned_pages')).toHaveLength(2);
  });

  it('several Pages and no --account: exit 2, listing each Page by id and name, nothing stored', async () => {
    const dataDir = tempDir('spm-facebook-');
    const redirect = `http://127.0.0.1:${await freePort()}/callback`;
    facebook.app.redirectUris.push(redirect);
    const child = spawnMain(
      ['connect', 'facebook', '--brand', DEMO_BRAND, ...roots(), '--redirect-uri', redirect],
      appEnv(dataDir),
    );
    const out = collect(child);
    const [, address] = await waitForStderr(child, ADDRESS, out.stderr);
    const approved = await fetch(address!, { redirect: 'manual' });
    await fetch(approved.headers.get('location')!);
    // 2: what the user must say (the program's exit code for a choice to make).
    expect(await out.exit).toBe(2);
    for (const page of facebook.pages) expect(out.stderr.text).toContain(`${page.id}  ${page.name} (page)`);
    expect(out.stderr.text).toContain('--account');
    for (const secret of facebook.secrets()) expect(out.stderr.text).not.toContain(secret);
    const stored = readDatabase(
      dataDir,
      (db) => db.prepare('SELECT count(*) AS n FROM channel_connections').get() as { n: number },
    );
    expect(stored.n).toBe(0);
  });

  it('without the app’s credentials: exit 1, naming the settings and developers.facebook.com', async () => {
    const run = await runMain(
      ['connect', 'facebook', '--brand', DEMO_BRAND, ...roots()],
      programEnv(tempDir('spm-facebook-')),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'SOCIAL_PUBLISHER_FACEBOOK_CLIENT_ID and SOCIAL_PUBLISHER_FACEBOOK_CLIENT_SECRET',
    );
    expect(run.stderr).toContain('https://developers.facebook.com/apps');
  });
});
