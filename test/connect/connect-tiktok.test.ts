/**
 * `connect tiktok` as a user runs it: the built program against the loopback TikTok stand-in, with the
 * operator's TikTok app in the environment. The program prints the authorization address (`client_key`,
 * the scopes comma separated, a PKCE S256 challenge), the "browser" approves it and lands on the
 * program's redirect, the code is exchanged with `client_key` and the verifier, the creator is read
 * (`/v2/user/info/`, creator_info) and the channel printed as JSON with the privacy level chosen by
 * `--account`. Without `--account` and without a terminal, the creator's levels are listed (exit 2).
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
import { startTikTokServer, TIKTOK_OPEN_ID, type TikTokServer } from '../support/tiktok-server.js';

let tiktok: TikTokServer;

beforeAll(() => requireBuild());
afterEach(cleanup);
beforeEach(async () => {
  tiktok = await startTikTokServer();
  return () => tiktok.close();
});

const appEnv = (dataDir: string) =>
  programEnv(dataDir, {
    SOCIAL_PUBLISHER_TIKTOK_CLIENT_ID: tiktok.app.clientKey,
    SOCIAL_PUBLISHER_TIKTOK_CLIENT_SECRET: tiktok.app.clientSecret,
  });
const roots = () => ['--auth-root', tiktok.url, '--api-root', tiktok.url];
const ADDRESS = /\n {2}(http:\/\/127\.0\.0\.1:\d+\/v2\/auth\/authorize\/\?\S+)\n/;

/** Starts `connect tiktok` with `flags`, approves the sign-in in the "browser"; the program's output. */
async function signIn(dataDir: string, flags: string[]) {
  const redirect = `http://127.0.0.1:${await freePort()}/callback`;
  tiktok.app.redirectUris.push(redirect);
  const child = spawnMain(
    ['connect', 'tiktok', '--brand', DEMO_BRAND, ...roots(), '--redirect-uri', redirect, ...flags],
    appEnv(dataDir),
  );
  const out = collect(child);
  const [, address] = await waitForStderr(child, ADDRESS, out.stderr);
  const url = new URL(address!);
  const approved = await fetch(address!, { redirect: 'manual' });
  expect(approved.status).toBe(302);
  await fetch(approved.headers.get('location')!);
  return { url, out, code: await out.exit };
}

describe('connect tiktok: a sign-in in the browser with the operator’s TikTok app', () => {
  it('signs in with client_key and PKCE, reads the creator, keeps the chosen privacy level', async () => {
    const dataDir = tempDir('spm-tiktok-');
    const { url, out, code } = await signIn(dataDir, ['--account', 'SELF_ONLY']);
    expect(url.searchParams.get('client_key')).toBe(tiktok.app.clientKey);
    expect(url.searchParams.get('client_id')).toBeNull();
    expect(url.searchParams.get('scope')).toBe('user.info.basic,video.publish,video.upload');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(code, out.stderr.text).toBe(0);
    const channel = JSON.parse(out.stdout.text) as { type: string; connection: Record<string, unknown> };
    expect(channel.type).toBe('TikTok');
    expect(channel.connection).toMatchObject({
      connector: 'tiktok',
      account: '@acme.roasters',
      accountId: TIKTOK_OPEN_ID,
      profileUrl: 'https://www.tiktok.com/@acme.roasters',
      credentials: 'stored',
    });
    for (const secret of tiktok.secrets()) {
      expect(out.stdout.text).not.toContain(secret);
      expect(out.stderr.text).not.toContain(secret);
    }
    const [exchange] = tiktok.kit.requestsTo('/v2/oauth/token/', 'POST');
    const form = new Map(exchange!.body.fields);
    expect(form.get('client_key')).toBe(tiktok.app.clientKey);
    expect(form.get('grant_type')).toBe('authorization_code');
    expect(form.get('code_verifier')).toMatch(/\S{43,}/);
    const row = readDatabase(
      dataDir,
      (db) =>
        db.prepare('SELECT settings, secret FROM channel_connections').get() as {
          settings: string;
          secret: Uint8Array;
        },
    );
    expect(JSON.parse(row.settings)).toEqual({ privacyLevel: 'SELF_ONLY', authRoot: tiktok.url });
    for (const secret of tiktok.secrets())
      expect(Buffer.from(row.secret).toString('latin1')).not.toContain(secret);
  });

  it('without --account and without a terminal: exit 2, the creator’s privacy levels listed, nothing connected', async () => {
    const dataDir = tempDir('spm-tiktok-');
    const { out, code } = await signIn(dataDir, []);
    expect(code).toBe(2);
    for (const level of ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']) {
      expect(out.stderr.text).toContain(level);
    }
    const count = readDatabase(
      dataDir,
      (db) => db.prepare('SELECT COUNT(*) AS n FROM channel_connections').get() as { n: number },
    );
    expect(count.n).toBe(0);
  });

  it('without the app’s credentials: exit 1, naming the TikTok settings and developers.tiktok.com', async () => {
    const run = await runMain(
      ['connect', 'tiktok', '--brand', DEMO_BRAND, ...roots()],
      programEnv(tempDir('spm-tiktok-')),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'SOCIAL_PUBLISHER_TIKTOK_CLIENT_ID and SOCIAL_PUBLISHER_TIKTOK_CLIENT_SECRET',
    );
    expect(run.stderr).toContain('https://developers.tiktok.com/apps');
  });
});
