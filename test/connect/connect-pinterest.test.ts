/**
 * `connect pinterest` as a user runs it: the built program against the loopback Pinterest stand-in,
 * with the operator's Pinterest app in the environment. The program prints the authorization address
 * (the scopes the connector needs, comma separated, no PKCE), the "browser" approves it and lands on the
 * program's redirect, the code is exchanged with the app's credentials as HTTP Basic, the account's
 * boards are read as the identities and `--account` picks one, and the channel is printed as JSON: one
 * board, its id the account id. The tokens are stored sealed and appear in no output.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import {
  connectThrough,
  expectNoSecretPrinted,
  printedChannel,
  storedConnections,
} from '../support/connect-sign-in.js';
import { type PinterestServer, startPinterestServer } from '../support/pinterest-server.js';

let pinterest: PinterestServer;

beforeAll(() => requireBuild());
afterEach(cleanup);
beforeEach(async () => {
  pinterest = await startPinterestServer({
    boards: [
      { id: '549755885175', name: 'Recipes' },
      { id: '549755885176', name: 'Kitchen tools' },
    ],
  });
  return () => pinterest.close();
});

const connect = connectThrough(() => ({
  kind: 'pinterest',
  appName: 'PINTEREST',
  app: pinterest.app,
  url: pinterest.url,
  authorizePath: '/oauth/',
}));

describe('connect pinterest: a sign-in in the browser with the operator’s Pinterest app', () => {
  it('signs in, picks the board --account names, stores the tokens sealed', async () => {
    const dataDir = tempDir('spm-pinterest-');
    const run = await connect.signIn(dataDir, ['--account', 'Kitchen tools']);
    expect(run.address.searchParams.get('scope')).toBe(
      'boards:read,boards:write,pins:read,pins:write,user_accounts:read',
    );
    expect(run.address.searchParams.get('code_challenge')).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    const channel = printedChannel(run);
    expect(channel.type).toBe('Pinterest');
    expect(channel.connection).toMatchObject({
      connector: 'pinterest',
      account: 'Kitchen tools',
      accountId: '549755885176',
      profileUrl: 'https://www.pinterest.com/acmekitchen/',
      credentials: 'stored',
      limits: expect.objectContaining({ textLimit: 800, titleLimit: 100, comments: false }),
    });
    expectNoSecretPrinted(run, pinterest.secrets());
    const [stored] = storedConnections(dataDir);
    expect(stored!.settings).toEqual({
      boardId: '549755885176',
      username: 'acmekitchen',
      authRoot: pinterest.url,
    });
    for (const secret of pinterest.secrets()) expect(stored!.secret).not.toContain(secret);
    const [exchange] = pinterest.kit.requestsTo('/v5/oauth/token', 'POST');
    expect(String(exchange!.headers.authorization)).toMatch(/^Basic /);
    expect(new Map(exchange!.body.fields).get('grant_type')).toBe('authorization_code');
  });

  it('several boards and no --account: exit 2 with the boards to choose from, nothing connected', async () => {
    const dataDir = tempDir('spm-pinterest-');
    const run = await connect.signIn(dataDir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Recipes');
    expect(run.stderr).toContain('549755885176');
    expect(run.stdout).toBe('');
  });

  it('without the app’s credentials: exit 1, naming the Pinterest settings and where to register', async () => {
    const run = await connect.withoutApp(tempDir('spm-pinterest-'));
    expect(run.stderr).toContain('https://developers.pinterest.com/apps/');
  });
});
