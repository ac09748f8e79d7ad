/**
 * `connect facebook` as a user runs it: the built program against the loopback Graph API stand-in, with
 * the operator's Meta app in the environment. The program prints Facebook Login's dialog address (the
 * scopes comma separated, no PKCE), the "browser" approves it on the stand-in and lands on the program's
 * loopback redirect, the code is exchanged (a GET with the app's secret), then for a long-lived user
 * token (fb_exchange_token), the Pages are listed, and the Page named by --account is stored with its
 * own token, sealed; no token appears in any output.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import {
  connectThrough,
  expectNoSecretPrinted,
  printedChannel,
  storedConnections,
} from '../support/connect-sign-in.js';
import { type FacebookServer, startFacebookServer } from '../support/facebook-server.js';

let facebook: FacebookServer;

beforeAll(() => requireBuild());
afterEach(cleanup);
beforeEach(async () => {
  facebook = await startFacebookServer();
  return () => facebook.close();
});

const connect = connectThrough(() => ({
  kind: 'facebook',
  appName: 'FACEBOOK',
  app: facebook.app,
  url: facebook.url,
  authorizePath: String.raw`/v\d+\.\d+/dialog/oauth`,
}));

describe('connect facebook: Facebook Login in the browser with the operator’s Meta app', () => {
  it('signs in, exchanges for a long-lived token, and stores the chosen Page’s token sealed', async () => {
    const dataDir = tempDir('spm-facebook-');
    const page = facebook.portfolio;
    const run = await connect.signIn(dataDir, ['--account', page.id]);
    expect(run.address.searchParams.get('scope')).toBe(
      'pages_show_list,pages_manage_posts,pages_read_engagement,pages_manage_engagement,publish_video,business_management',
    );
    expect(run.address.searchParams.has('code_challenge')).toBe(false);
    expect(run.code, run.stderr).toBe(0);
    const channel = printedChannel(run);
    expect(channel.type).toBe('Facebook');
    expect(channel.connection).toMatchObject({
      connector: 'facebook',
      account: 'Acme Roastery',
      accountId: page.id,
      profileUrl: `https://www.facebook.com/${page.id}`,
      credentials: 'stored',
    });
    expectNoSecretPrinted(run, facebook.secrets());
    const [stored] = storedConnections(dataDir);
    expect(stored!.settings).toEqual({ authRoot: facebook.url });
    expect(stored!.secret).not.toContain(page.token);
    const exchanges = facebook.kit.requestsTo('/:version/oauth/access_token');
    expect(exchanges.map((request) => request.query.get('grant_type'))).toEqual([null, 'fb_exchange_token']);
    // The Portfolio's Pages were read for the identities --account matched, and again by verify.
    expect(facebook.kit.requestsTo('/:version/:business/owned_pages')).toHaveLength(2);
  });

  it('several Pages and no --account: exit 2, listing each Page by id and name, nothing stored', async () => {
    const dataDir = tempDir('spm-facebook-');
    const run = await connect.signIn(dataDir);
    // 2: what the user must say (the program's exit code for a choice to make).
    expect(run.code).toBe(2);
    for (const page of facebook.pages) expect(run.stderr).toContain(`${page.id}  ${page.name} (page)`);
    expect(run.stderr).toContain('--account');
    expectNoSecretPrinted(run, facebook.secrets());
    expect(storedConnections(dataDir)).toEqual([]);
  });

  it('without the app’s credentials: exit 1, naming the settings and developers.facebook.com', async () => {
    const run = await connect.withoutApp(tempDir('spm-facebook-'));
    expect(run.stderr).toContain('https://developers.facebook.com/apps');
  });
});
