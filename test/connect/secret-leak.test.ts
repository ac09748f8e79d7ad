/**
 * A connected channel's secret appears in no log line, response, error or file but the encrypted store.
 * A Mastodon channel is connected with a token of its own; the built program publishes with it (a
 * success, a comment included) and then with it revoked (a failure, the channel turned INACTIVE). Every
 * stderr and stdout of every process, every REST response body, every MCP tool result and log message,
 * and every file of the data directory (bytes; the SQLite file and its -wal included, read while the
 * server runs and after) are searched for the token: raw, and in base64, base64url and hex. The token
 * reached the instance (the stand-in created statuses with it, and it was the only token the instance
 * still took), so a program that never used it would fail here too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { cleanup, connectStdio, requireBuild, runMain, tempDir } from '../mcp/cli-harness.js';
import {
  type ChannelDetailJson,
  collectionId,
  connectMastodon,
  createPost,
  DEMO_BRAND,
  mcpClient,
  programEnv,
  readDatabase,
  restClient,
  type Serve,
  startServe,
  waitForPost,
} from '../support/connected-program.js';
import { type MastodonServer, startMastodonServer } from '../support/mastodon-server.js';

let mastodon: MastodonServer;
const serves: Serve[] = [];

beforeAll(() => {
  requireBuild();
});

beforeEach(async () => {
  mastodon = await startMastodonServer();
});

afterEach(async () => {
  for (const serve of serves.splice(0)) await serve.stop();
  await cleanup();
  await mastodon.close();
});

/** Every file under `dir`, with its bytes. */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, bytes: readFileSync(path) }];
  });
}

it("a connected channel's secret appears in no log line, response, error or file but the encrypted store", async () => {
  // Only this token opens the account: statuses created prove the program sent it.
  mastodon.revoke(mastodon.token);
  const token = mastodon.issueToken('read write');
  const forms = {
    raw: Buffer.from(token),
    base64: Buffer.from(Buffer.from(token).toString('base64')),
    base64url: Buffer.from(Buffer.from(token).toString('base64url')),
    hex: Buffer.from(Buffer.from(token).toString('hex')),
  };
  /** Everything the program showed or wrote, by where it came from. */
  const seen: { where: string; bytes: Buffer }[] = [];
  const keep = (where: string, text: string | Buffer) =>
    seen.push({ where, bytes: Buffer.isBuffer(text) ? text : Buffer.from(text) });
  const snapshotFiles = (when: string) => {
    for (const file of filesUnder(dataDir)) keep(`${when}: ${file.path}`, file.bytes);
  };

  const dataDir = tempDir('spm-leak-');
  const env = programEnv(dataDir);

  // connect, a failed one first (the instance is down), then the real one.
  mastodon.failNext('/api/v1/accounts/verify_credentials', 1, 500);
  const down = await connectMastodon(env, mastodon, { token, collections: ['Conversation'] });
  expect(down.code).toBe(1);
  const run = await connectMastodon(env, mastodon, { token, collections: ['Conversation'] });
  expect(run.code, run.stderr).toBe(0);
  for (const [i, r] of [down, run].entries()) {
    keep(`connect ${i} stdout`, r.stdout);
    keep(`connect ${i} stderr`, r.stderr);
  }
  const channelId = (JSON.parse(run.stdout) as ChannelDetailJson).id;
  // The encrypted store holds it, sealed.
  const sealed = readDatabase(dataDir, (db) =>
    db.prepare('SELECT secret FROM channel_connections WHERE channel_id = ?').get(channelId),
  ) as { secret: Buffer };
  expect(sealed.secret.length).toBeGreaterThan(forms.raw.length);

  const bodies: string[] = [];
  const mcpLogs: string[] = [];
  const toolResults: { where: string; result: CallToolResult }[] = [];

  /** Reads everything there is to read about the channel and the post, over REST and MCP. */
  const readAll = async (serve: Serve, postId: number, label: string) => {
    const rest = restClient(serve, bodies);
    for (const path of [
      '/v1/me',
      '/v1/brands',
      '/v1/brands/1/channels',
      `/v1/brands/1/channels/${channelId}`,
      '/v1/brands/1/collections',
      '/v1/brands/1/posts',
      `/v1/brands/1/posts/${postId}`,
      '/v1/brands/1/queue',
    ]) {
      await rest.get(path);
    }
    await rest.raw('/v1/openapi.json');
    // An error response about the channel's brand.
    await rest.get(`/v1/brands/1/channels/99999`).catch(() => undefined);
    const mcp = await mcpClient(serve);
    try {
      for (const [name, args] of [
        ['get_channel', { brandId: 1, channelId }],
        ['get_post', { brandId: 1, postId }],
        ['list_channels', { brandId: 1 }],
        ['list_posts', { brandId: 1 }],
        ['list_collections', { brandId: 1 }],
      ] as const) {
        toolResults.push({ where: `${label} ${name}`, result: await mcp.call(name, args) });
      }
    } finally {
      await mcp.close();
    }
  };

  // A server publishes with the token: a status and its reply.
  const first = await startServe(env);
  serves.push(first);
  const listening = await mcpClient(first, mcpLogs);
  const rest = restClient(first, bodies);
  const conversation = await collectionId(rest, 'Conversation');
  const okId = await createPost(rest, conversation, {
    publishMode: 'IMMEDIATE',
    caption: 'Leak check',
    comment: { comment: 'And a reply', delay: 1 },
  });
  const ok = await waitForPost(rest, okId);
  expect(ok.deliveries.find((d) => d.channelId === channelId)).toMatchObject({
    status: 'sent',
    comment: { status: 'sent' },
  });
  expect(mastodon.statuses).toHaveLength(2);
  await readAll(first, okId, 'first');
  snapshotFiles('while the first server runs');
  await listening.close();
  await first.stop();
  keep('first serve stderr', first.stderr());

  // The token is revoked: a second server fails the delivery and deactivates the channel.
  mastodon.revoke(token);
  const second = await startServe(env, first.key);
  serves.push(second);
  const listening2 = await mcpClient(second, mcpLogs);
  const rest2 = restClient(second, bodies);
  const failId = await createPost(rest2, conversation, { publishMode: 'IMMEDIATE', caption: 'Revoked' });
  const failed = await waitForPost(rest2, failId);
  const refused = failed.deliveries.find((d) => d.channelId === channelId)!;
  expect(refused.status).toBe('failed');
  // "was revoked": the instance knew the token it was sent, so it was this one.
  expect(refused.reason).toContain('The access token was revoked');
  await readAll(second, failId, 'second');
  await readAll(second, okId, 'second (the sent post)');
  snapshotFiles('while the second server runs');
  // The publishing events told to the MCP session include the failure.
  const deadline = Date.now() + 5_000;
  while (!mcpLogs.some((line) => line.includes('INACTIVE')) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(mcpLogs.some((line) => line.includes('refused the access token'))).toBe(true);
  await listening2.close();
  await second.stop();
  keep('second serve stderr', second.stderr());

  // A stdio server (as an MCP host starts it) shows the channel and the posts.
  const stdio = await connectStdio(env);
  for (const [name, args] of [
    ['get_channel', { brandId: 1, channelId }],
    ['get_post', { brandId: 1, postId: failId }],
    ['get_post', { brandId: 1, postId: okId }],
    ['list_channels', { brandId: 1 }],
  ] as const) {
    toolResults.push({ where: `stdio ${name}`, result: await stdio.call(name, args) });
  }
  await stdio.close();
  keep('stdio stderr', stdio.stderr());

  // Connecting again with the revoked token is refused; disconnect erases the sealed secret.
  const again = await connectMastodon(env, mastodon, { token });
  expect(again.code).toBe(1);
  const disconnect = await runMain(
    ['disconnect', '--brand', DEMO_BRAND, '--channel', String(channelId)],
    env,
  );
  expect(disconnect.code, disconnect.stderr).toBe(0);
  for (const [where, r] of [
    ['connect again', again],
    ['disconnect', disconnect],
  ] as const) {
    keep(`${where} stdout`, r.stdout);
    keep(`${where} stderr`, r.stderr);
  }
  snapshotFiles('at the end');

  for (const [i, body] of bodies.entries()) keep(`REST response ${i}`, body);
  for (const { where, result } of toolResults) {
    expect(result.isError, `${where}: ${JSON.stringify(result.content)}`).toBeFalsy();
    keep(`MCP ${where}`, JSON.stringify(result));
  }
  for (const [i, line] of mcpLogs.entries()) keep(`MCP log message ${i}`, line);

  // What was collected is the real thing: the status ids, the reason, the files.
  const all = Buffer.concat(seen.map((s) => s.bytes)).toString('latin1');
  expect(all).toContain(mastodon.statuses[0]!.id);
  expect(all).toContain('The access token was revoked');
  expect(seen.some((s) => s.where.endsWith('social-publisher.sqlite-wal'))).toBe(true);
  expect(seen.some((s) => s.where.endsWith('social-publisher.sqlite'))).toBe(true);
  expect(bodies.length).toBeGreaterThan(20);

  const leaks = seen.flatMap(({ where, bytes }) =>
    Object.entries(forms)
      .filter(([, form]) => bytes.includes(form))
      .map(([name]) => `${where} (${name})`),
  );
  expect(leaks).toEqual([]);
}, 30_000);
