/**
 * `connect instagram` as a user runs it, both ways: the built program against the loopback Instagram
 * stand-in. With Facebook Login (the default; the FACEBOOK app) the program prints Facebook's dialog,
 * trades the code for a long-lived user token, lists the Instagram accounts linked to the Pages and
 * stores the chosen one's Page token; with `--login instagram` (the INSTAGRAM app) it prints Instagram's
 * authorization page, trades the code (a form POST) and the short token for a 60-day one, and reads the
 * account with /me. Tokens are stored sealed and appear in no output.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, requireBuild, runMain, tempDir } from '../mcp/cli-harness.js';
import {
  connectThrough,
  expectNoSecretPrinted,
  printedChannel,
  storedConnections,
} from '../support/connect-sign-in.js';
import { DEMO_BRAND, programEnv } from '../support/connected-program.js';
import { ACME_INSTAGRAM, type InstagramServer, startInstagramServer } from '../support/instagram-server.js';

const TEA = {
  id: '17841400000000202',
  username: 'acme.tea',
  pageId: '100000000000002',
  pageName: 'Acme Tea',
};
let instagram: InstagramServer;

beforeAll(() => requireBuild());
afterEach(cleanup);
beforeEach(async () => {
  instagram = await startInstagramServer({ accounts: [ACME_INSTAGRAM, TEA] });
  return () => instagram.close();
});

/** `connect instagram` with one of its sign-ins (`--login`), each with its own app. */
const through = (login: 'facebook' | 'instagram') =>
  connectThrough(() => ({
    kind: 'instagram',
    appName: login.toUpperCase(),
    app: instagram.apps[login],
    url: instagram.url,
    authorizePath: login === 'facebook' ? String.raw`/v\d+\.\d+/dialog/oauth` : '/oauth/authorize',
  }));

/** Runs connect, approves in the "browser", and answers the channel and the stored settings. */
async function connect(login: 'facebook' | 'instagram', extra: string[]) {
  const dataDir = tempDir('spm-instagram-');
  const run = await through(login).signIn(dataDir, extra);
  expect(run.code, run.stderr).toBe(0);
  expectNoSecretPrinted(run, instagram.secrets());
  const [stored] = storedConnections(dataDir);
  return { url: run.address, channel: printedChannel(run), settings: stored!.settings };
}

describe('connect instagram', () => {
  it('with Facebook Login: the account linked to a Page, picked by username, with the Page’s token', async () => {
    const { url, channel, settings } = await connect('facebook', ['--account', '@acme.tea']);
    expect(url.searchParams.get('client_id')).toBe(instagram.apps.facebook.clientId);
    expect(url.searchParams.get('scope')).toBe(
      'instagram_basic,instagram_content_publish,instagram_manage_comments,pages_show_list,pages_read_engagement,business_management',
    );
    expect(channel.type).toBe('Instagram');
    expect(channel.connection).toMatchObject({
      connector: 'instagram',
      account: '@acme.tea',
      accountId: TEA.id,
      profileUrl: 'https://www.instagram.com/acme.tea/',
      credentials: 'stored',
    });
    expect(settings).toEqual({ login: 'facebook', pageId: TEA.pageId, authRoot: instagram.url });
    expect(instagram.kit.requestsTo('/:version/oauth/access_token')).toHaveLength(2);
    expect(instagram.kit.requestsTo('/:version/me/accounts').length).toBeGreaterThan(0);
  });

  it('with --login instagram: Instagram’s page, the code posted, a 60-day token, the account from /me', async () => {
    const { url, channel, settings } = await connect('instagram', ['--login', 'instagram']);
    expect(url.searchParams.get('client_id')).toBe(instagram.apps.instagram.clientId);
    expect(url.searchParams.get('scope')).toBe(
      'instagram_business_basic,instagram_business_content_publish,instagram_business_manage_comments',
    );
    expect(channel.connection).toMatchObject({
      connector: 'instagram',
      account: `@${ACME_INSTAGRAM.username}`,
      accountId: ACME_INSTAGRAM.id,
      credentials: 'stored',
    });
    expect(settings).toEqual({ login: 'instagram', authRoot: instagram.url });
    expect(instagram.kit.requestsTo('/oauth/access_token', 'POST')).toHaveLength(1);
    expect(instagram.kit.requestsTo('/access_token')[0]?.query.get('grant_type')).toBe('ig_exchange_token');
    expect(instagram.kit.requestsTo('/:version/me/accounts')).toHaveLength(0);
    const long = [...instagram.tokens.values()].filter((grant) => grant.kind === 'ig-long');
    expect(long).toHaveLength(1);
  });

  it('an unknown --login, and a missing INSTAGRAM app, exit 1 saying what to do', async () => {
    const wrong = await runMain(
      ['connect', 'instagram', '--brand', DEMO_BRAND, '--login', 'tiktok'],
      programEnv(tempDir('spm-instagram-')),
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(
      '--login of connect instagram is one of facebook, instagram, not "tiktok".',
    );
    await through('instagram').withoutApp(tempDir('spm-instagram-'), ['--login', 'instagram']);
    const other = await runMain(
      ['connect', 'facebook', '--brand', DEMO_BRAND, '--login', 'instagram'],
      programEnv(tempDir('spm-instagram-')),
    );
    expect(other.stderr).toContain('connect facebook does not take --login.');
  });
});
