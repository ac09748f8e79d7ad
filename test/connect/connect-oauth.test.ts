/**
 * `connect <oauth-platform>` as a user runs it: the built program against the loopback LinkedIn stand-in,
 * with the operator's app given in the environment. The program prints the authorization address on a
 * line of its own, listens on the redirect URI, and the test's "browser" follows the address through the
 * stand-in's authorization page back to it; the channel is printed as JSON and the tokens appear in no
 * output. Also: the address pasted (`--paste-code`), several identities without `--account` (exit 2
 * with the list), a page chosen with `--account`, missing app credentials, a refused sign-in.
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
import { type LinkedInServer, MEMBER_URN, startLinkedInServer } from '../support/linkedin-server.js';

let linkedin: LinkedInServer;

beforeAll(() => requireBuild());
afterEach(cleanup);
beforeEach(async () => {
  linkedin = await startLinkedInServer({ pages: [{ id: '2414183', name: 'Acme Corp' }] });
  return () => linkedin.close();
});

function appEnv(dataDir: string, extra: Record<string, string> = {}) {
  return programEnv(dataDir, {
    SOCIAL_PUBLISHER_LINKEDIN_CLIENT_ID: linkedin.clientId,
    SOCIAL_PUBLISHER_LINKEDIN_CLIENT_SECRET: linkedin.clientSecret,
    ...extra,
  });
}

const roots = () => ['--auth-root', linkedin.url, '--api-root', linkedin.url];
/** The authorization address: on a line of its own, indented (product.md). */
const ADDRESS = /\n {2}(http:\/\/127\.0\.0\.1:\d+\/oauth\/v2\/authorization\?\S+)\n/;

describe('connect linkedin: a sign-in in the browser with the operator’s app', () => {
  it('prints the address, completes on the loopback redirect, and prints the channel (no token anywhere)', async () => {
    const dataDir = tempDir('spm-oauth-');
    const redirect = `http://127.0.0.1:${await freePort()}/callback`;
    const child = spawnMain(
      [
        'connect',
        'linkedin',
        '--brand',
        DEMO_BRAND,
        '--account',
        MEMBER_URN,
        ...roots(),
        '--redirect-uri',
        redirect,
      ],
      appEnv(dataDir),
    );
    const out = collect(child);
    const [, address] = await waitForStderr(child, ADDRESS, out.stderr);
    const url = new URL(address!);
    expect(url.searchParams.get('redirect_uri')).toBe(redirect);
    expect(url.searchParams.get('state')).toMatch(/^[0-9a-f]{32}$/);
    // The browser approves; the page sends it to the redirect URI, where the program listens.
    const approved = await linkedin.approve(address!);
    const landed = await fetch(approved.redirectedTo);
    expect(await landed.text()).toContain('Authorized');
    expect(await out.exit, out.stderr.text).toBe(0);
    const channel = JSON.parse(out.stdout.text) as { connection: Record<string, unknown>; type: string };
    expect(channel.type).toBe('LinkedIn');
    expect(channel.connection).toMatchObject({ connector: 'linkedin', credentials: 'stored' });
    // The stored secret is sealed; no token or code reached any output.
    for (const text of [out.stdout.text, out.stderr.text]) {
      expect(text).not.toContain(approved.code);
      expect(text).not.toMatch(/AQ[A-Za-z0-9_-]{20,}/);
    }
    const row = readDatabase(
      dataDir,
      (db) =>
        db.prepare('SELECT account_id, settings FROM channel_connections').get() as Record<string, string>,
    );
    expect(row.account_id).toBe(MEMBER_URN);
    // Made with --auth-root: the connection keeps it, for its token refreshes.
    expect(JSON.parse(row.settings!).authRoot).toBe(linkedin.url);
  });

  it('--paste-code: the address the browser ended on, read as one line of stdin', async () => {
    const dataDir = tempDir('spm-oauth-');
    const child = spawnMain(
      ['connect', 'linkedin', '--brand', DEMO_BRAND, '--account', 'Acme Corp', ...roots(), '--paste-code'],
      appEnv(dataDir),
    );
    const out = collect(child);
    const [, address] = await waitForStderr(child, ADDRESS, out.stderr);
    await waitForStderr(child, /Address the browser ended on: /, out.stderr);
    const approved = await linkedin.approve(address!);
    child.stdin!.end(`${approved.redirectedTo}\n`);
    expect(await out.exit, out.stderr.text).toBe(0);
    const channel = JSON.parse(out.stdout.text) as { connection: { account: string } };
    expect(channel.connection.account).toBe('Acme Corp');
  });

  it('an --account that matches no identity, stdin not a terminal: exit 2 with the list, nothing stored', async () => {
    const dataDir = tempDir('spm-oauth-');
    const child = spawnMain(
      ['connect', 'linkedin', '--brand', DEMO_BRAND, '--account', 'Acme', ...roots(), '--paste-code'],
      appEnv(dataDir),
    );
    const out = collect(child);
    const [, address] = await waitForStderr(child, ADDRESS, out.stderr);
    await waitForStderr(child, /Address the browser ended on: /, out.stderr);
    child.stdin!.end(`${(await linkedin.approve(address!)).redirectedTo}\n`);
    expect(await out.exit).toBe(2);
    expect(out.stderr.text).toContain('No identity matches "Acme": choose one with --account');
    expect(out.stderr.text).toContain(MEMBER_URN);
    expect(out.stderr.text).toContain('urn:li:organization:2414183  Acme Corp (organization)');
    expect(out.stdout.text).toBe('');
    const stored = readDatabase(dataDir, (db) =>
      db.prepare('SELECT COUNT(*) AS n FROM channel_connections').get(),
    );
    expect(stored).toEqual({ n: 0 });
  });

  it('without --account: the member’s scopes only, and the member connected', async () => {
    const dataDir = tempDir('spm-oauth-');
    const child = spawnMain(
      ['connect', 'linkedin', '--brand', DEMO_BRAND, ...roots(), '--paste-code'],
      appEnv(dataDir),
    );
    const out = collect(child);
    const [, address] = await waitForStderr(child, ADDRESS, out.stderr);
    expect(new URL(address!).searchParams.get('scope')).toBe('openid profile w_member_social');
    await waitForStderr(child, /Address the browser ended on: /, out.stderr);
    child.stdin!.end(`${(await linkedin.approve(address!)).redirectedTo}\n`);
    expect(await out.exit, out.stderr.text).toBe(0);
    expect((JSON.parse(out.stdout.text) as { connection: { accountId: string } }).connection.accountId).toBe(
      MEMBER_URN,
    );
  });

  it('an address of another sign-in (wrong state) is refused: exit 1, nothing stored', async () => {
    const dataDir = tempDir('spm-oauth-');
    const child = spawnMain(
      ['connect', 'linkedin', '--brand', DEMO_BRAND, ...roots(), '--paste-code'],
      appEnv(dataDir),
    );
    const out = collect(child);
    const [, address] = await waitForStderr(child, ADDRESS, out.stderr);
    await waitForStderr(child, /Address the browser ended on: /, out.stderr);
    const approved = new URL((await linkedin.approve(address!)).redirectedTo);
    approved.searchParams.set('state', 'f'.repeat(32));
    child.stdin!.end(`${approved.href}\n`);
    expect(await out.exit).toBe(1);
    expect(out.stderr.text).toContain('belongs to another sign-in');
  });

  it('without the app’s credentials: exit 1 naming both settings, the file and where to register', async () => {
    const run = await runMain(
      ['connect', 'linkedin', '--brand', DEMO_BRAND, ...roots()],
      programEnv(tempDir('spm-oauth-')),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'SOCIAL_PUBLISHER_LINKEDIN_CLIENT_ID and SOCIAL_PUBLISHER_LINKEDIN_CLIENT_SECRET',
    );
    expect(run.stderr).toContain('apps.json');
    expect(run.stderr).toContain('https://www.linkedin.com/developers/apps');
    expect(run.stderr).not.toContain('Open this address');
  });

  it('refuses a flag an OAuth platform does not take, and --account on a platform without identities', async () => {
    const env = appEnv(tempDir('spm-oauth-'));
    const run = await runMain(['connect', 'linkedin', '--brand', DEMO_BRAND, '--token-env', 'X'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('connect linkedin does not take --token-env');
    const mastodon = await runMain(
      ['connect', 'mastodon', '--brand', DEMO_BRAND, '--instance', 'https://m.example', '--account', 'x'],
      env,
    );
    expect(mastodon.stderr).toContain('connect mastodon does not take --account');
  });
});
