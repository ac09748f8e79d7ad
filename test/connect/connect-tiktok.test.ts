/**
 * `connect tiktok` as a user runs it: the built program against the loopback TikTok stand-in, with the
 * operator's TikTok app in the environment. The program prints the authorization address (`client_key`,
 * the scopes comma separated, a PKCE S256 challenge), the "browser" approves it and lands on the
 * program's redirect, the code is exchanged with `client_key` and the verifier, the creator is read
 * (`/v2/user/info/`, creator_info) and the channel printed as JSON with the privacy level chosen by
 * `--account`. Without `--account` and without a terminal, the creator's levels are listed (exit 2).
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import {
  connectThrough,
  expectNoSecretPrinted,
  printedChannel,
  storedConnections,
} from '../support/connect-sign-in.js';
import { startTikTokServer, TIKTOK_OPEN_ID, type TikTokServer } from '../support/tiktok-server.js';

let tiktok: TikTokServer;

beforeAll(() => requireBuild());
afterEach(cleanup);
beforeEach(async () => {
  tiktok = await startTikTokServer();
  return () => tiktok.close();
});

const connect = connectThrough(() => ({
  kind: 'tiktok',
  appName: 'TIKTOK',
  // TikTok names the app's id its client key.
  app: { ...tiktok.app, clientId: tiktok.app.clientKey },
  url: tiktok.url,
  authorizePath: '/v2/auth/authorize/',
}));

describe('connect tiktok: a sign-in in the browser with the operator’s TikTok app', () => {
  it('signs in with client_key and PKCE, reads the creator, keeps the chosen privacy level', async () => {
    const dataDir = tempDir('spm-tiktok-');
    const run = await connect.signIn(dataDir, ['--account', 'SELF_ONLY']);
    const url = run.address;
    expect(url.searchParams.get('client_key')).toBe(tiktok.app.clientKey);
    expect(url.searchParams.get('client_id')).toBeNull();
    expect(url.searchParams.get('scope')).toBe('user.info.basic,video.publish,video.upload');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(run.code, run.stderr).toBe(0);
    const channel = printedChannel(run);
    expect(channel.type).toBe('TikTok');
    expect(channel.connection).toMatchObject({
      connector: 'tiktok',
      account: '@acme.roasters',
      accountId: TIKTOK_OPEN_ID,
      profileUrl: 'https://www.tiktok.com/@acme.roasters',
      credentials: 'stored',
    });
    expectNoSecretPrinted(run, tiktok.secrets());
    const [exchange] = tiktok.kit.requestsTo('/v2/oauth/token/', 'POST');
    const form = new Map(exchange!.body.fields);
    expect(form.get('client_key')).toBe(tiktok.app.clientKey);
    expect(form.get('grant_type')).toBe('authorization_code');
    expect(form.get('code_verifier')).toMatch(/\S{43,}/);
    const [stored] = storedConnections(dataDir);
    expect(stored!.settings).toEqual({ privacyLevel: 'SELF_ONLY', authRoot: tiktok.url });
    for (const secret of tiktok.secrets()) expect(stored!.secret).not.toContain(secret);
  });

  it('without --account and without a terminal: exit 2, the creator’s privacy levels listed, nothing connected', async () => {
    const dataDir = tempDir('spm-tiktok-');
    const run = await connect.signIn(dataDir);
    expect(run.code).toBe(2);
    for (const level of ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']) {
      expect(run.stderr).toContain(level);
    }
    expect(storedConnections(dataDir)).toEqual([]);
  });

  it('without the app’s credentials: exit 1, naming the TikTok settings and developers.tiktok.com', async () => {
    const run = await connect.withoutApp(tempDir('spm-tiktok-'));
    expect(run.stderr).toContain('https://developers.tiktok.com/apps');
  });
});
