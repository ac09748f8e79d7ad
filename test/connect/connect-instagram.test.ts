/**
 * `connect instagram` as a user runs it, both ways: the built program against the loopback Instagram
 * stand-in. With Facebook Login (the default; the FACEBOOK app) the program prints Facebook's dialog,
 * trades the code for a long-lived user token, lists the Instagram accounts linked to the Pages and
 * stores the chosen one's Page token; with `--login instagram` (the INSTAGRAM app) it prints Instagram's
 * authorization page, trades the code (a form POST) and the short token for a 60-day one, and reads the
 * account with /me. Tokens are stored sealed and appear in no output.
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

const appEnv = (dataDir: string) =>
  programEnv(dataDir, {
    SOCIAL_PUBLISHER_FACEBOOK_CLIENT_ID: instagram.apps.facebook.clientId,
    SOCIAL_PUBLISHER_FACEBOOK_CLIENT_SECRET: instagram.apps.facebook.clientSecret,
    SOCIAL_PUBLISHER_INSTAGRAM_CLIENT_ID: instagram.apps.instagram.clientId,
    SOCIAL_PUBLISHER_INSTAGRAM_CLIENT_SECRET: instagram.apps.instagram.clientSecret,
  });
const roots = () => ['--auth-root', instagram.url, '--api-root', instagram.url];
const address = (path: string) => new RegExp(`\\n {2}(http:\\/\\/127\\.0\\.0\\.1:\\d+${path}\\?\\S+)\\n`);

/** Runs connect, approves in the "browser", and answers the channel and the stored settings. */
async function connect(login: 'facebook' | 'instagram', extra: string[]) {
  const dataDir = tempDir('spm-instagram-');
  const redirect = `http://127.0.0.1:${await freePort()}/callback`;
  instagram.apps[login].redirectUris.push(redirect);
  const child = spawnMain(
    ['connect', 'instagram', '--brand', DEMO_BRAND, ...roots(), '--redirect-uri', redirect, ...extra],
    appEnv(dataDir),
  );
  const out = collect(child);
  const path = login === 'facebook' ? '\\/v\\d+\\.\\d+\\/dialog\\/oauth' : '\\/oauth\\/authorize';
  const [, shown] = await waitForStderr(child, address(path), out.stderr);
  const url = new URL(shown!);
  const approved = await fetch(shown!, { redirect: 'manual' });
  expect(approved.status).toBe(302);
  await fetch(approved.headers.get('location')!);
  expect(await out.exit, out.stderr.text).toBe(0);
  for (const secret of instagram.secrets()) {
    expect(out.stdout.text).not.toContain(secret);
    expect(out.stderr.text).not.toContain(secret);
  }
  const channel = JSON.parse(out.stdout.text) as { type: string; connection: Record<string, unknown> };
  const row = readDatabase(
    dataDir,
    (db) => db.prepare('SELECT settings FROM channel_connections').get() as { settings: string },
  );
  return { url, channel, settings: JSON.parse(row.settings) as Record<string, unknown> };
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
    const missing = await runMain(
      ['connect', 'instagram', '--brand', DEMO_BRAND, '--login', 'instagram', ...roots()],
      programEnv(tempDir('spm-instagram-')),
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'SOCIAL_PUBLISHER_INSTAGRAM_CLIENT_ID and SOCIAL_PUBLISHER_INSTAGRAM_CLIENT_SECRET',
    );
    const other = await runMain(
      ['connect', 'facebook', '--brand', DEMO_BRAND, '--login', 'instagram'],
      programEnv(tempDir('spm-instagram-')),
    );
    expect(other.stderr).toContain('connect facebook does not take --login.');
  });
});
