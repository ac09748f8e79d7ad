/**
 * The whole pipeline with a connected channel, through the built program: `connect mastodon` into the
 * demo brand's Conversation collection, `serve`, posts created over REST. Sends are counted where they
 * land, at the Mastodon stand-in. A post goes out as one status (its comment a reply to it) while the
 * collection's other channels stay on the sandbox; the REST API and MCP (`get_post`, `get_channel`, over
 * Streamable HTTP with the SDK's client) show the status's id and URL and the channel's connection. A
 * revoked token fails the delivery with a reason to reconnect and turns the channel INACTIVE (later posts
 * fail there at once, with no request to the instance); a 429 with Retry-After is waited out and sent once.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { cleanup, requireBuild, STACK_FRAME, tempDir } from '../mcp/cli-harness.js';
import {
  type ChannelDetailJson,
  collectionId,
  connectMastodon,
  createPost,
  type DeliveryJson,
  mcpClient,
  type PostJson,
  programEnv,
  readDatabase,
  restClient,
  type Serve,
  startServe,
  waitForPost,
} from '../support/connected-program.js';
import { type MastodonServer, startMastodonServer } from '../support/mastodon-server.js';

let mastodon: MastodonServer;
let serve: Serve | undefined;

beforeAll(() => {
  requireBuild();
});

beforeEach(async () => {
  mastodon = await startMastodonServer();
});

afterEach(async () => {
  await serve?.stop();
  serve = undefined;
  await cleanup();
  await mastodon.close();
});

/** A data directory with the demo workspace and a Mastodon channel connected into Conversation. */
async function connected(): Promise<{ dataDir: string; env: Record<string, string>; channelId: number }> {
  const dataDir = tempDir('spm-publish-');
  const env = programEnv(dataDir);
  const run = await connectMastodon(env, mastodon, { collections: ['Conversation'] });
  expect(run.code, run.stderr).toBe(0);
  return { dataDir, env, channelId: (JSON.parse(run.stdout) as ChannelDetailJson).id };
}

function data<T>(result: CallToolResult): T {
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return (result.structuredContent as { data: T }).data;
}

const statusRequests = () => mastodon.requests.filter((r) => r.path === '/api/v1/statuses');

it('publishes to the connected channel as one status with its comment as a reply, shows it, then fails and deactivates it once the token is revoked', async () => {
  const { dataDir, env, channelId } = await connected();
  serve = await startServe(env);
  const rest = restClient(serve);
  const conversation = await collectionId(rest, 'Conversation');

  const postId = await createPost(rest, conversation, {
    publishMode: 'IMMEDIATE',
    caption: 'Fresh roast today',
    link: 'https://example.com/roast',
    comment: { comment: 'Tasting notes: cherry, cocoa.', delay: 1 },
  });
  const post = await waitForPost(rest, postId);
  expect(post.status).toBe('published');
  const toMastodon = post.deliveries.find((d) => d.channelId === channelId)!;
  const others = post.deliveries.filter((d) => d.channelId !== channelId);

  // Exactly one status for the delivery, and one reply for its comment: counted at the instance.
  const [status, reply, ...more] = mastodon.statuses;
  expect(more).toEqual([]);
  expect(status).toMatchObject({
    text: 'Fresh roast today\n\nhttps://example.com/roast',
    inReplyToId: null,
    idempotencyKey: expect.stringMatching(new RegExp(`-${toMastodon.id}$`)),
  });
  expect(reply).toMatchObject({
    text: 'Tasting notes: cherry, cocoa.',
    inReplyToId: status!.id,
    idempotencyKey: `${status!.idempotencyKey}-comment`,
  });
  expect(toMastodon).toMatchObject({
    status: 'sent',
    externalId: status!.id,
    url: `${mastodon.url}/@publisher/${status!.id}`,
    attempts: 1,
    reason: null,
    comment: { status: 'sent', reason: null },
  });
  // The collection's other channels (the demo's own Mastodon channel among them) are on the sandbox.
  expect(others.length).toBe(6);
  expect(others.every((d) => d.status === 'sent' && d.comment.status === 'sent')).toBe(true);
  const sandboxed = readDatabase(dataDir, (db) =>
    (
      db.prepare(`SELECT delivery_id FROM sandbox_outbox WHERE kind = 'delivery'`).all() as {
        delivery_id: number;
      }[]
    ).map((row) => row.delivery_id),
  );
  expect(sandboxed.sort()).toEqual(others.map((d) => d.id).sort());

  // The channel shows its last publication, the same over REST and MCP, and never the token.
  const channel = await rest.get<ChannelDetailJson>(`/v1/brands/1/channels/${channelId}`);
  expect(channel).toMatchObject({
    id: channelId,
    status: 'ACTIVE',
    connection: { connector: 'mastodon', credentials: 'stored', lastError: null },
  });
  expect(channel.connection.lastPublishedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  const mcp = await mcpClient(serve);
  try {
    const viaMcp = await mcp.call('get_channel', { brandId: 1, channelId });
    expect(data<ChannelDetailJson>(viaMcp)).toEqual(channel);
    expect(JSON.stringify(viaMcp)).not.toContain(mastodon.token);
    const sandboxChannel = others.find((d) => d.channelType === 'Mastodon')!;
    expect(
      data<ChannelDetailJson>(
        await mcp.call('get_channel', { brandId: 1, channelId: sandboxChannel.channelId }),
      ).connection.connector,
    ).toBe('sandbox');
    const postViaMcp = data<PostJson>(await mcp.call('get_post', { brandId: 1, postId }));
    expect(postViaMcp.deliveries.find((d) => d.channelId === channelId)).toMatchObject({
      status: 'sent',
      externalId: status!.id,
      url: toMastodon.url,
    });
  } finally {
    await mcp.close();
  }

  // The token is revoked on the instance: the next post's delivery there fails, asking to reconnect.
  mastodon.revoke(mastodon.token);
  const revokedId = await createPost(rest, conversation, {
    publishMode: 'IMMEDIATE',
    caption: 'After revoke',
  });
  const revoked = await waitForPost(rest, revokedId);
  const refused = revoked.deliveries.find((d) => d.channelId === channelId)!;
  expect(refused).toMatchObject({ status: 'failed', attempts: 1, externalId: null, url: null });
  expect(refused.reason).toContain('Mastodon refused the access token');
  expect(refused.reason).toContain('social-publisher-mcp connect mastodon');
  expect(refused.reason).toContain('reconnect');
  expect(revoked.deliveries.filter((d) => d.channelId !== channelId).every((d) => d.status === 'sent')).toBe(
    true,
  );
  expect(revoked.status).toBe('partially_published');
  expect(mastodon.statuses).toHaveLength(2);
  const inactive = await rest.get<ChannelDetailJson>(`/v1/brands/1/channels/${channelId}`);
  expect(inactive.status).toBe('INACTIVE');
  expect(inactive.statusReason).toBe(refused.reason);
  expect(inactive.connection.lastError).toBe(refused.reason);
  expect(inactive.connection.lastPublishedAt).toBe(channel.connection.lastPublishedAt);

  // A later post fails there at once: the channel is INACTIVE, and no request reaches the instance.
  const requestsBefore = mastodon.requests.length;
  const laterId = await createPost(rest, conversation, { publishMode: 'IMMEDIATE', caption: 'Later still' });
  const later = await waitForPost(rest, laterId);
  const skipped = later.deliveries.find((d) => d.channelId === channelId)!;
  expect(skipped).toMatchObject({ status: 'failed', attempts: 0 });
  expect(skipped.reason).toContain('is INACTIVE');
  expect(later.deliveries.filter((d) => d.channelId !== channelId).every((d) => d.status === 'sent')).toBe(
    true,
  );
  expect(mastodon.requests.length).toBe(requestsBefore);

  // Connected again with a new token while the server runs: the same channel, ACTIVE, and the running
  // server publishes with the new token (the old one is revoked, so a status proves it).
  const reconnect = await connectMastodon(env, mastodon, { token: mastodon.issueToken() });
  expect(reconnect.code, reconnect.stderr).toBe(0);
  expect(JSON.parse(reconnect.stdout) as ChannelDetailJson).toMatchObject({
    id: channelId,
    status: 'ACTIVE',
  });
  const backId = await createPost(rest, conversation, { publishMode: 'IMMEDIATE', caption: 'Back again' });
  const back = await waitForPost(rest, backId);
  expect(back.status).toBe('published');
  expect(mastodon.statuses).toHaveLength(3);
  expect(back.deliveries.find((d) => d.channelId === channelId)).toMatchObject({
    status: 'sent',
    externalId: mastodon.statuses[2]!.id,
  });
  expect(serve.stderr()).not.toMatch(STACK_FRAME);
}, 30_000);

it('waits out a 429 with Retry-After: 1 and sends the status once', async () => {
  const { env, channelId } = await connected();
  serve = await startServe(env);
  const rest = restClient(serve);
  mastodon.rateLimitNext('/api/v1/statuses', 1, { retryAfterSeconds: 1 });
  const createdAt = Date.now();
  const postId = await createPost(rest, await collectionId(rest, 'Conversation'), {
    publishMode: 'IMMEDIATE',
    caption: 'Slow down',
  });
  const mine = (post: PostJson) => post.deliveries.find((d) => d.channelId === channelId)!;

  // Back to pending, with the instance's wait as its retry time.
  const waiting = mine(
    await waitForPost(
      rest,
      postId,
      (post) =>
        ['sent', 'failed'].includes(mine(post).status) ||
        (mine(post).status === 'pending' && mine(post).retryAt !== null),
    ),
  );
  expect(waiting.status).toBe('pending');
  expect(waiting.reason).toContain('rate limiting');
  const retryAt = Date.parse(waiting.retryAt!);
  expect(retryAt - createdAt).toBeGreaterThanOrEqual(990);
  expect(retryAt - createdAt).toBeLessThan(5_000);

  const post = await waitForPost(rest, postId);
  const delivery: DeliveryJson = mine(post);
  expect(delivery).toMatchObject({ status: 'sent', attempts: 2 });
  expect(Date.parse(delivery.sentAt!)).toBeGreaterThanOrEqual(retryAt);
  // Sent once: two requests with one key, one status.
  const [status, ...more] = mastodon.statuses;
  expect(more).toEqual([]);
  expect(delivery.externalId).toBe(status!.id);
  const requests = statusRequests();
  expect(requests).toHaveLength(2);
  expect(requests[0]!.idempotencyKey).toBe(status!.idempotencyKey);
  expect(requests[1]!.idempotencyKey).toBe(status!.idempotencyKey);
  // A rate limit is not the account's fault: the channel stays ACTIVE.
  expect((await rest.get<ChannelDetailJson>(`/v1/brands/1/channels/${channelId}`)).status).toBe('ACTIVE');
}, 30_000);
