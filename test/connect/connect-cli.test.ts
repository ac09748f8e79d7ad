import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  cleanup,
  connectStdio,
  requireBuild,
  runMain,
  STACK_FRAME,
  spawnMain,
  tempDir,
} from '../mcp/cli-harness.js';
import {
  type ChannelDetailJson,
  collect,
  collectionId,
  connectMastodon,
  createPost,
  DEMO_BRAND,
  programEnv,
  readDatabase,
  restClient,
  startServe,
  waitForPost,
  waitForStderr,
} from '../support/connected-program.js';
import { type MastodonServer, startMastodonServer } from '../support/mastodon-server.js';
import { CHANNEL, startTelegramServer } from '../support/telegram-server.js';

let mastodon: MastodonServer;

beforeAll(() => {
  requireBuild();
});

beforeEach(async () => {
  mastodon = await startMastodonServer();
});

afterEach(async () => {
  await cleanup();
  await mastodon.close();
});

const ACCOUNT = () => `@publisher@127.0.0.1`;

function parseChannel(stdout: string): ChannelDetailJson {
  return JSON.parse(stdout) as ChannelDetailJson;
}

/** The brand's channels and connections, as the SQLite file holds them. */
function stored(dataDir: string) {
  return readDatabase(dataDir, (db) => ({
    channels: db
      .prepare('SELECT id, name, type, status FROM channels WHERE brand_id = 1 ORDER BY id')
      .all() as {
      id: number;
      name: string;
      type: string;
      status: string;
    }[],
    connections: db.prepare('SELECT channel_id, secret, secret_env FROM channel_connections').all() as {
      channel_id: number;
      secret: Buffer | null;
      secret_env: string | null;
    }[],
  }));
}

function structured<T>(result: CallToolResult): T {
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return (result.structuredContent as { data: T }).data;
}

describe('connect mastodon --token-env', () => {
  it('verifies the token, connects a new ACTIVE channel into the collection and prints it without the token', async () => {
    const dataDir = tempDir('spm-connect-');
    const env = programEnv(dataDir);
    const run = await connectMastodon(env, mastodon, { collections: ['Conversation'] });
    expect(run.code, run.stderr).toBe(0);
    const channel = parseChannel(run.stdout);
    expect(channel).toMatchObject({
      type: 'Mastodon',
      status: 'ACTIVE',
      statusReason: null,
      connection: {
        connector: 'mastodon',
        account: ACCOUNT(),
        accountId: '109000000000000001',
        instance: mastodon.url,
        profileUrl: `${mastodon.url}/@publisher`,
        credentials: 'stored',
        lastError: null,
        lastPublishedAt: null,
        limits: { textLimit: 500, textUnit: 'graphemes', maxMedia: 4 },
      },
    });
    expect(channel.connection.connectedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    // The default name is the account; the demo's sandbox channel "Northwind Coffee on Mastodon" is another one.
    expect(channel.name).toBe(ACCOUNT());
    expect(run.stderr).toContain(`Connected ${ACCOUNT()}`);
    expect(run.stderr).not.toMatch(STACK_FRAME);
    // The token went to the instance, and nowhere into the output.
    expect(mastodon.requests.map((r) => r.path)).toContain('/api/v1/accounts/verify_credentials');
    expect(run.stdout).not.toContain(mastodon.token);
    expect(run.stderr).not.toContain(mastodon.token);

    // Sealed in the store, not in clear.
    const { connections } = stored(dataDir);
    expect(connections).toHaveLength(1);
    expect(connections[0]!.channel_id).toBe(channel.id);
    expect(connections[0]!.secret).toBeInstanceOf(Buffer);
    expect(connections[0]!.secret!.includes(Buffer.from(mastodon.token))).toBe(false);

    // An MCP client sees it in the collection, and its connection with get_channel.
    const session = await connectStdio(env);
    const collections = structured<Array<{ title: string; channels: Array<{ id: number }> }>>(
      await session.call('list_collections', { brandId: 1 }),
    );
    const conversation = collections.find((c) => c.title === 'Conversation')!;
    expect(conversation.channels.map((c) => c.id)).toContain(channel.id);
    for (const other of collections.filter((c) => c.title !== 'Conversation')) {
      expect(other.channels.map((c) => c.id)).not.toContain(channel.id);
    }
    const shown = structured<ChannelDetailJson>(
      await session.call('get_channel', { brandId: 1, channelId: channel.id }),
    );
    expect(shown).toEqual(channel);
  });

  it('reconnects the same channel when run again: same id, no second channel, not listed twice', async () => {
    const dataDir = tempDir('spm-connect-');
    const env = programEnv(dataDir);
    const first = await connectMastodon(env, mastodon, { collections: ['Conversation'] });
    expect(first.code, first.stderr).toBe(0);
    const before = stored(dataDir);

    // A new token of the same account (e.g. after the old one was revoked), and the collection again.
    const token = mastodon.issueToken();
    const second = await connectMastodon(env, mastodon, { collections: ['Conversation'], token });
    expect(second.code, second.stderr).toBe(0);
    expect(parseChannel(second.stdout).id).toBe(parseChannel(first.stdout).id);
    expect(parseChannel(second.stdout).name).toBe(ACCOUNT());
    const after = stored(dataDir);
    expect(after.channels).toEqual(before.channels);
    expect(after.connections).toHaveLength(1);
    // Sealed anew (the new token).
    expect(after.connections[0]!.secret!.equals(before.connections[0]!.secret!)).toBe(false);

    const session = await connectStdio(env);
    const collections = structured<Array<{ title: string; channels: Array<{ id: number }> }>>(
      await session.call('list_collections', { brandId: 1 }),
    );
    const ids = collections.find((c) => c.title === 'Conversation')!.channels.map((c) => c.id);
    expect(ids.filter((id) => id === parseChannel(first.stdout).id)).toHaveLength(1);
  });

  it('finds a channel again by its account: connected under a --name, reconnected without it, the name kept', async () => {
    const dataDir = tempDir('spm-connect-');
    const env = programEnv(dataDir);
    const first = await connectMastodon(env, mastodon, { name: 'Northwind on the Fediverse' });
    expect(first.code, first.stderr).toBe(0);
    const before = stored(dataDir);
    const again = await connectMastodon(env, mastodon, { token: mastodon.issueToken() });
    expect(again.code, again.stderr).toBe(0);
    expect(parseChannel(again.stdout)).toMatchObject({
      id: parseChannel(first.stdout).id,
      name: 'Northwind on the Fediverse',
      status: 'ACTIVE',
    });
    expect(stored(dataDir).channels).toEqual(before.channels);
    expect(stored(dataDir).channels.map((c) => c.name)).not.toContain(ACCOUNT());
  });

  it('connects an existing channel given by --name (the demo Mastodon channel) instead of creating one', async () => {
    const dataDir = tempDir('spm-connect-');
    const env = programEnv(dataDir);
    const run = await connectMastodon(env, mastodon, { name: 'Northwind Coffee on Mastodon' });
    expect(run.code, run.stderr).toBe(0);
    const channel = parseChannel(run.stdout);
    const { channels } = stored(dataDir);
    expect(channels.filter((c) => c.type === 'Mastodon')).toEqual([
      { id: channel.id, name: 'Northwind Coffee on Mastodon', type: 'Mastodon', status: 'ACTIVE' },
    ]);
    expect(channel.connection.connector).toBe('mastodon');

    // A name that belongs to a channel of another platform is refused, before the instance is asked.
    const requests = mastodon.requests.length;
    const clash = await connectMastodon(env, mastodon, { name: 'Northwind Coffee on Bluesky' });
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain('is a Bluesky channel, not Mastodon: choose another --name');
    expect(mastodon.requests.length).toBe(requests);
  });

  it('refuses a revoked or unknown token with a message naming the fix, without the token, storing nothing', async () => {
    const dataDir = tempDir('spm-connect-');
    const env = programEnv(dataDir);
    const revoked = mastodon.issueToken();
    mastodon.revoke(revoked);
    for (const token of [revoked, 'made-up-token-QWxhZGRpbjpvcGVuIHNlc2FtZQ']) {
      const run = await connectMastodon(env, mastodon, { token, collections: ['Conversation'] });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^social-publisher-mcp: Not connected: Mastodon refused the access token/);
      expect(run.stderr).toContain(token === revoked ? 'was revoked' : 'is invalid');
      // What to do about it: make a token with the right scopes, or use the sign-in flow.
      expect(run.stderr).toContain('write:statuses');
      expect(run.stderr).toContain('without --token-env');
      expect(run.stderr).not.toContain(token);
      expect(run.stderr).not.toMatch(STACK_FRAME);
    }
    const { channels, connections } = stored(dataDir);
    expect(connections).toEqual([]);
    expect(channels.filter((c) => c.type === 'Mastodon').map((c) => c.name)).toEqual([
      'Northwind Coffee on Mastodon',
    ]);
  });

  it('refuses an instance that does not answer like Mastodon, and one that cannot be reached', async () => {
    const dataDir = tempDir('spm-connect-');
    const env = programEnv(dataDir);
    mastodon.failNext('/api/v1/accounts/verify_credentials', 1, 503);
    const down = await connectMastodon(env, mastodon);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('did not answer like a Mastodon instance');
    expect(down.stderr).not.toContain(mastodon.token);

    const unreachable = await connectMastodon(env, { url: 'http://127.0.0.1:9', token: mastodon.token });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('Could not reach http://127.0.0.1:9');
    expect(unreachable.stderr).not.toContain(mastodon.token);
    expect(stored(dataDir).connections).toEqual([]);
  });

  it('refuses an unknown brand or collection with a clear message, before asking the instance', async () => {
    const dataDir = tempDir('spm-connect-');
    const env = programEnv(dataDir);
    const brand = await connectMastodon(env, mastodon, { brand: 'Southwind Tea' });
    expect(brand.code).toBe(1);
    expect(brand.stderr).toContain('No brand "Southwind Tea" in this store');
    expect(brand.stderr).toContain('list_brands');

    const collection = await connectMastodon(env, mastodon, { collections: ['Conversation', 'Podcasts'] });
    expect(collection.code).toBe(1);
    expect(collection.stderr).toContain('has no collection "Podcasts"');
    // It names the collections there are.
    expect(collection.stderr).toContain('"Conversation"');

    // By id works too; an unknown id is refused the same way.
    const byId = await connectMastodon(env, mastodon, { brand: '1', collections: ['99'] });
    expect(byId.code).toBe(1);
    expect(byId.stderr).toContain('has no collection "99"');

    for (const run of [brand, collection, byId]) {
      expect(run.stdout).toBe('');
      expect(run.stderr).not.toMatch(STACK_FRAME);
      expect(run.stderr).not.toContain(mastodon.token);
    }
    expect(mastodon.requests).toEqual([]);
    expect(stored(dataDir).connections).toEqual([]);
  });

  it('names a --token-env variable that is not set', async () => {
    const dataDir = tempDir('spm-connect-');
    const run = await runMain(
      [
        'connect',
        'mastodon',
        '--brand',
        DEMO_BRAND,
        '--instance',
        mastodon.url,
        '--token-env',
        'SPM_NOT_SET',
      ],
      programEnv(dataDir),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--token-env names SPM_NOT_SET, which is not set or is empty');
    expect(mastodon.requests).toEqual([]);
  });
});

describe('disconnect', () => {
  it('makes the channel INACTIVE, says so, and erases its sealed secret from the database', async () => {
    const dataDir = tempDir('spm-connect-');
    const env = programEnv(dataDir);
    const connected = await connectMastodon(env, mastodon, { collections: ['Conversation'] });
    expect(connected.code, connected.stderr).toBe(0);
    const id = parseChannel(connected.stdout).id;
    expect(stored(dataDir).connections[0]!.secret).not.toBeNull();

    const run = await runMain(['disconnect', '--brand', DEMO_BRAND, '--channel', ACCOUNT()], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('it is INACTIVE and its secrets are erased');
    const channel = parseChannel(run.stdout);
    expect(channel).toMatchObject({
      id,
      status: 'INACTIVE',
      statusReason: expect.stringContaining('social-publisher-mcp connect'),
      connection: { connector: 'mastodon', account: ACCOUNT(), credentials: 'erased' },
    });

    const after = readDatabase(dataDir, (db) => ({
      withSecret: db
        .prepare('SELECT COUNT(*) AS n FROM channel_connections WHERE secret IS NOT NULL')
        .get() as {
        n: number;
      },
      row: db.prepare('SELECT secret FROM channel_connections WHERE channel_id = ?').get(id) as {
        secret: Buffer | null;
      },
      status: db.prepare('SELECT status FROM channels WHERE id = ?').get(id) as { status: string },
    }));
    expect(after.row.secret).toBeNull();
    expect(after.withSecret.n).toBe(0);
    expect(after.status.status).toBe('INACTIVE');

    // By id as well; an unknown channel is named with the brand's channels.
    const again = await runMain(['disconnect', '--brand', '1', '--channel', String(id)], env);
    expect(again.code, again.stderr).toBe(0);
    const unknown = await runMain(['disconnect', '--brand', DEMO_BRAND, '--channel', 'Nope'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('has no channel "Nope"');
    expect(unknown.stderr).toContain(`"${ACCOUNT()}"`);

    // Connecting again brings the same channel back, ACTIVE with a secret.
    const reconnected = await connectMastodon(env, mastodon);
    expect(reconnected.code, reconnected.stderr).toBe(0);
    expect(parseChannel(reconnected.stdout)).toMatchObject({
      id,
      status: 'ACTIVE',
      statusReason: null,
      connection: { credentials: 'stored' },
    });
  });
});

describe('connect without --token-env: the secret from a sign-in or from stdin', () => {
  it('mastodon --paste-code: the authorization code piped on stdin (not a terminal) is read as one line', async () => {
    const dataDir = tempDir('spm-connect-');
    const child = spawnMain(
      ['connect', 'mastodon', '--brand', DEMO_BRAND, '--instance', mastodon.url, '--paste-code'],
      programEnv(dataDir),
    );
    const out = collect(child);
    const [, authorize] = await waitForStderr(
      child,
      /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\S+)/,
      out.stderr,
    );
    await waitForStderr(child, /Paste the authorization code: /, out.stderr);
    // The user signs in and copies the code the instance shows.
    const page = await (await fetch(authorize!)).text();
    const code = /class="oauth-code"[^>]*value="([^"]+)"/.exec(page)?.[1];
    expect(code, page).toBeDefined();
    child.stdin!.end(`${code}\n`);
    expect(await out.exit, out.stderr.text).toBe(0);
    const channel = parseChannel(out.stdout.text);
    expect(channel.connection).toMatchObject({
      connector: 'mastodon',
      credentials: 'stored',
      account: ACCOUNT(),
    });
    expect(out.stderr.text).not.toContain(code!);
    expect(out.stdout.text).not.toContain(code!);
    // The token issued for the code is the one that was verified, and it is in no output.
    const verify = mastodon.requests.filter((r) => r.path === '/api/v1/accounts/verify_credentials');
    expect(verify).toHaveLength(1);
  });

  it('mastodon --paste-code with stdin ended before a line: exit 1, nothing stored', async () => {
    const dataDir = tempDir('spm-connect-');
    const run = await runMain(
      ['connect', 'mastodon', '--brand', DEMO_BRAND, '--instance', mastodon.url, '--paste-code'],
      programEnv(dataDir),
      '',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No answer: stdin ended before a line was read');
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(stored(dataDir).connections).toEqual([]);
  });

  it('mastodon sign-in through the browser redirect to a listener on this machine', async () => {
    const dataDir = tempDir('spm-connect-');
    const child = spawnMain(
      ['connect', 'mastodon', '--brand', DEMO_BRAND, '--instance', mastodon.url],
      programEnv(dataDir),
    );
    const out = collect(child);
    const [, authorize] = await waitForStderr(
      child,
      /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\S+)/,
      out.stderr,
    );
    // The browser: the instance redirects to the program's loopback listener with the code.
    const redirect = await fetch(authorize!, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const callback = redirect.headers.get('location')!;
    expect(callback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/);
    const landed = await fetch(callback);
    expect(await landed.text()).toContain('Authorized');
    expect(await out.exit, out.stderr.text).toBe(0);
    expect(parseChannel(out.stdout.text).connection).toMatchObject({
      connector: 'mastodon',
      credentials: 'stored',
    });
  });

  it('telegram: the bot token piped on stdin is read as one line and never echoed', async () => {
    const telegram = await startTelegramServer();
    try {
      const dataDir = tempDir('spm-connect-');
      const run = await runMain(
        [
          'connect',
          'telegram',
          '--brand',
          DEMO_BRAND,
          '--chat',
          `@${CHANNEL.username}`,
          '--api-root',
          telegram.url,
        ],
        programEnv(dataDir),
        `${telegram.token}\n`,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(parseChannel(run.stdout)).toMatchObject({
        type: 'Telegram',
        status: 'ACTIVE',
        connection: { connector: 'telegram', account: `@${CHANNEL.username}`, credentials: 'stored' },
      });
      expect(run.stderr).toContain('Bot token from @BotFather: ');
      expect(run.stdout).not.toContain(telegram.token);
      expect(run.stderr).not.toContain(telegram.token);
    } finally {
      await telegram.close();
    }
  });
});

describe('the key that seals the secrets', () => {
  it('is created as secret.key with mode 0600 in the data directory', async () => {
    const dataDir = tempDir('spm-connect-');
    expect(existsSync(join(dataDir, 'secret.key'))).toBe(false);
    const run = await connectMastodon(programEnv(dataDir), mastodon);
    expect(run.code, run.stderr).toBe(0);
    const key = statSync(join(dataDir, 'secret.key'));
    expect(key.mode & 0o777).toBe(0o600);
    expect(key.size).toBeGreaterThanOrEqual(44);
  });

  it('comes from SOCIAL_PUBLISHER_SECRET_KEY when set (no key file); a server with another key fails the delivery with the reason and keeps running', async () => {
    const dataDir = tempDir('spm-connect-');
    const keyA = 'a'.repeat(64);
    const run = await connectMastodon(programEnv(dataDir, { SOCIAL_PUBLISHER_SECRET_KEY: keyA }), mastodon, {
      collections: ['Conversation'],
    });
    expect(run.code, run.stderr).toBe(0);
    const channelId = parseChannel(run.stdout).id;
    expect(readdirSync(dataDir)).not.toContain('secret.key');

    const serve = await startServe(
      programEnv(dataDir, {
        SOCIAL_PUBLISHER_SECRET_KEY: 'another passphrase, not the key it was sealed with',
      }),
    );
    const rest = restClient(serve);
    const postId = await createPost(rest, await collectionId(rest, 'Conversation'), {
      publishMode: 'IMMEDIATE',
      caption: 'Sealed with another key',
    });
    const post = await waitForPost(rest, postId);
    const delivery = post.deliveries.find((d) => d.channelId === channelId)!;
    expect(delivery.status).toBe('failed');
    expect(delivery.reason).toContain("The channel's secret was sealed with another key");
    expect(delivery.reason).toContain('SOCIAL_PUBLISHER_SECRET_KEY');
    // The other channels of the collection went out; the server is still up and answering.
    expect(post.deliveries.filter((d) => d.channelId !== channelId).every((d) => d.status === 'sent')).toBe(
      true,
    );
    expect(post.status).toBe('partially_published');
    const channel = await rest.get<ChannelDetailJson>(`/v1/brands/1/channels/${channelId}`);
    expect(channel.status).toBe('INACTIVE');
    expect(channel.statusReason).toContain('sealed with another key');
    expect(serve.child.exitCode).toBeNull();
    expect(serve.stderr()).not.toMatch(STACK_FRAME);
    // Nothing reached the instance's statuses, and no key file was made.
    expect(mastodon.statuses).toEqual([]);
    expect(readdirSync(dataDir)).not.toContain('secret.key');
    await serve.stop();
  });
});
