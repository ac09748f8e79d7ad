/**
 * `connect youtube` as a user runs it: the built program against the loopback YouTube stand-in, with the
 * operator's GOOGLE app in the environment. The program prints Google's authorization address (offline
 * access, the consent prompt, PKCE S256, the YouTube scope), the "browser" approves it on the stand-in
 * and lands on the program's loopback redirect, the code is exchanged at the stand-in's `/token`, the
 * channel is read with `channels.list mine=true` (`--account` picks one of several by id or title), and
 * the channel is printed as JSON. No token or secret appears in any output; the connection keeps its
 * --auth-root for the refreshes.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import {
  connectThrough,
  expectNoSecretPrinted,
  printedChannel,
  storedConnections,
} from '../support/connect-sign-in.js';
import {
  startYouTubeServer,
  YOUTUBE_SCOPE,
  type YouTubeServer,
  type YouTubeServerOptions,
} from '../support/youtube-server.js';

let youtube: YouTubeServer;

beforeAll(() => requireBuild());
afterEach(async () => {
  await youtube?.close();
  await cleanup();
});

const connect = connectThrough(() => ({
  kind: 'youtube',
  appName: 'GOOGLE',
  app: youtube.signIn.app,
  url: youtube.url,
  authorizePath: '/o/oauth2/v2/auth',
}));

async function start(options: YouTubeServerOptions = {}) {
  youtube = await startYouTubeServer(options);
}

describe('connect youtube: a Google sign-in in the browser with the operator’s app', () => {
  it('asks for offline access with consent and PKCE, reads the channel, keeps the tokens sealed', async () => {
    await start();
    const dataDir = tempDir('spm-youtube-');
    const run = await connect.signIn(dataDir);
    expect(run.code, run.stderr).toBe(0);
    const query = run.address.searchParams;
    expect(query.get('scope')).toBe(YOUTUBE_SCOPE);
    expect(query.get('access_type')).toBe('offline');
    expect(query.get('prompt')).toBe('consent');
    expect(query.get('code_challenge_method')).toBe('S256');
    const channel = printedChannel(run);
    expect(channel.type).toBe('YouTube');
    expect(channel.connection).toMatchObject({
      connector: 'youtube',
      account: 'Northwind TV',
      accountId: 'UCnorthwind0000000000001',
      profileUrl: 'https://www.youtube.com/@northwindtv',
      credentials: 'stored',
    });
    expectNoSecretPrinted(run, youtube.secrets());
    expect(storedConnections(dataDir).map((row) => row.settings)).toEqual([
      { channelId: 'UCnorthwind0000000000001', authRoot: youtube.url },
    ]);
    const exchange = youtube.kit.requestsTo('/token')[0]!;
    const form = new Map(exchange.body.fields);
    expect(form.get('grant_type')).toBe('authorization_code');
    expect(form.get('code_verifier')).toMatch(/^[\w-]{43,128}$/);
    expect(youtube.signIn.issuedRefreshTokens).toHaveLength(1);
  });

  it('--account picks one channel of several, by title; without it the choices are listed (exit 2)', async () => {
    await start({
      channels: [
        { id: 'UCone', title: 'Northwind TV' },
        { id: 'UCtwo', title: 'Northwind Shorts' },
      ],
    });
    const picked = await connect.signIn(tempDir('spm-youtube-'), ['--account', 'Northwind Shorts']);
    expect(picked.code, picked.stderr).toBe(0);
    expect(JSON.parse(picked.stdout).connection).toMatchObject({
      account: 'Northwind Shorts',
      accountId: 'UCtwo',
    });
    const unpicked = await connect.signIn(tempDir('spm-youtube-'));
    expect(unpicked.code).toBe(2);
    expect(unpicked.stderr).toContain('UCone  Northwind TV (channel)');
    expect(unpicked.stderr).toContain('UCtwo  Northwind Shorts (channel)');
  });

  it('without the app’s credentials: exit 1, naming the GOOGLE settings and the Google Cloud console', async () => {
    await start();
    const run = await connect.withoutApp(tempDir('spm-youtube-'));
    expect(run.stderr).toContain('https://console.cloud.google.com/apis/credentials');
  });
});
