/**
 * The crash test extended to connected channels: every status exactly once on the Mastodon server. The
 * built program is SIGKILLed while it is sending to a connected Mastodon channel (the stand-in created
 * the status and never answered, or never answered at all), then started again on the same data
 * directory. Once the killed process's claims have expired (a 2 s lease) the deliveries are taken over,
 * since Mastodon deduplicates by Idempotency-Key, and sent again with the same key: the instance answers
 * with the status it created the first time. Statuses are counted where they are created, at the
 * stand-in, by idempotency key.
 */
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { formatLocalTime } from '../../src/domain/time.js';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import {
  type ChannelDetailJson,
  collectionId,
  connectMastodon,
  createPost,
  type PostJson,
  programEnv,
  readDatabase,
  restClient,
  type Serve,
  sleep,
  startServe,
  waitForPost,
} from '../support/connected-program.js';
import { type MastodonServer, startMastodonServer } from '../support/mastodon-server.js';

const LEASE_SECONDS = 2;

let mastodon: MastodonServer;
const serves: Serve[] = [];

beforeAll(() => {
  requireBuild();
});

beforeEach(async () => {
  mastodon = await startMastodonServer();
});

afterEach(async () => {
  for (const serve of serves.splice(0)) await serve.kill();
  await cleanup();
  await mastodon.close();
});

/**
 * The demo workspace with a Mastodon channel connected into the demo's empty "Newsletter" collection,
 * so that its posts go to that channel alone.
 */
async function setUp(): Promise<{ env: Record<string, string>; dataDir: string; channelId: number }> {
  const dataDir = tempDir('spm-crash-connected-');
  const env = programEnv(dataDir, { SOCIAL_PUBLISHER_CLAIM_LEASE_SECONDS: String(LEASE_SECONDS) });
  const run = await connectMastodon(env, mastodon, { collections: ['Newsletter'] });
  expect(run.code, run.stderr).toBe(0);
  return { env, dataDir, channelId: (JSON.parse(run.stdout) as ChannelDetailJson).id };
}

async function waitUntil(what: string, done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The store's prefix of idempotency keys: `<store id>-<delivery id>`. */
function storeId(dataDir: string): string {
  return readDatabase(dataDir, (db) => {
    const row = db.prepare(`SELECT value FROM store_meta WHERE key = 'store_id'`).get() as { value: string };
    return row.value;
  });
}

const statusesWithKey = (key: string) => mastodon.statuses.filter((status) => status.idempotencyKey === key);
const requestsWithKey = (key: string) =>
  mastodon.requests.filter(
    (request) => request.path === '/api/v1/statuses' && request.idempotencyKey === key,
  );

it('a status created by a process killed before the answer came exists once after the restart, the delivery sent on its second attempt', async () => {
  const { env, dataDir, channelId } = await setUp();
  // The instance creates the status, and the answer never comes: the process is mid-send.
  mastodon.hangAfterCreatingNext(1);
  const first = await startServe(env);
  serves.push(first);
  const rest = restClient(first);
  const postId = await createPost(rest, await collectionId(rest, 'Newsletter'), {
    publishMode: 'IMMEDIATE',
    caption: 'Killed mid-send',
  });
  await waitUntil('the status to be created', () => mastodon.statuses.length === 1);
  const inFlight = (await rest.get<PostJson>(`/v1/brands/1/posts/${postId}`)).deliveries;
  expect(inFlight).toHaveLength(1);
  expect(inFlight[0]).toMatchObject({ channelId, status: 'sending', attempts: 1 });
  await first.kill();

  const second = await startServe(env, first.key);
  serves.push(second);
  const rest2 = restClient(second);
  const startedAt = Date.now();
  const post = await waitForPost(rest2, postId);
  const [delivery] = post.deliveries;
  const key = `${storeId(dataDir)}-${delivery!.id}`;
  expect(post.status).toBe('published');
  expect(delivery).toMatchObject({ status: 'sent', attempts: 2, reason: null });
  // Exactly one status, although the instance was asked twice, with one key.
  expect(mastodon.statuses).toHaveLength(1);
  expect(statusesWithKey(key)).toHaveLength(1);
  expect(requestsWithKey(key)).toHaveLength(2);
  expect(delivery!.externalId).toBe(mastodon.statuses[0]!.id);
  expect(delivery!.url).toBe(`${mastodon.url}/@publisher/${mastodon.statuses[0]!.id}`);
  // Taken over only once the killed process's lease ended, not at once.
  expect(Date.now() - startedAt).toBeLessThan(LEASE_SECONDS * 1000 + 8_000);
  const channel = await rest2.get<ChannelDetailJson>(`/v1/brands/1/channels/${channelId}`);
  expect(channel.status).toBe('ACTIVE');
  expect(channel.connection.lastPublishedAt).not.toBeNull();
}, 30_000);

it('10 scheduled posts, the process killed with sends in flight (some created, some not) and restarted: every post a status exactly once, every comment a reply once', async () => {
  const { env, dataDir, channelId } = await setUp();
  const POSTS = 10;
  // The first three requests never get an answer and create nothing; of the statuses created, the first
  // three never get an answer either. The rest are answered at once.
  mastodon.hangNext('/api/v1/statuses', 3);
  mastodon.hangAfterCreatingNext(3);
  const first = await startServe(env);
  serves.push(first);
  const rest = restClient(first);
  const newsletter = await collectionId(rest, 'Newsletter');
  // All due at one moment, so that one pass of the scheduler starts them all.
  const scheduledAt = formatLocalTime(Date.now() + 3_500, 'America/New_York');
  const postIds: number[] = [];
  for (let i = 0; i < POSTS; i++) {
    postIds.push(
      await createPost(rest, newsletter, {
        publishMode: 'SCHEDULE',
        scheduledAt,
        caption: `Crash post ${i}`,
        ...(i % 2 === 0 ? { comment: { comment: `Reply to ${i}`, delay: 1 } } : {}),
      }),
    );
  }
  // Mid-way: six sends hang (three of them created), the four others were sent and recorded.
  const states = async () =>
    (await Promise.all(postIds.map((id) => rest.get<PostJson>(`/v1/brands/1/posts/${id}`)))).map(
      (post) => post.deliveries[0]?.status,
    );
  const deadline = Date.now() + 15_000;
  let atKill = await states();
  while (
    !(atKill.filter((s) => s === 'sending').length === 6 && atKill.filter((s) => s === 'sent').length === 4)
  ) {
    if (Date.now() > deadline) throw new Error(`the sends did not get under way: ${atKill.join(', ')}`);
    await sleep(50);
    atKill = await states();
  }
  expect(mastodon.statuses).toHaveLength(POSTS - 3);
  await first.kill();

  const second = await startServe(env, first.key);
  serves.push(second);
  const rest2 = restClient(second);
  const posts: PostJson[] = [];
  for (const id of postIds) posts.push(await waitForPost(rest2, id, undefined, 20_000));

  const prefix = storeId(dataDir);
  for (const [i, post] of posts.entries()) {
    const [delivery] = post.deliveries;
    expect(delivery, `post ${i}`).toMatchObject({ channelId, status: 'sent' });
    const key = `${prefix}-${delivery!.id}`;
    const statuses = statusesWithKey(key);
    expect(statuses, `statuses of post ${i}`).toHaveLength(1);
    expect(statuses[0]!.text).toBe(`Crash post ${i}`);
    expect(delivery!.externalId).toBe(statuses[0]!.id);
    // Resent only when the first send was left in doubt.
    expect(delivery!.attempts).toBe(requestsWithKey(key).length);
    if (i % 2 === 0) {
      expect(delivery!.comment.status, `comment of post ${i}`).toBe('sent');
      const replies = statusesWithKey(`${key}-comment`);
      expect(replies, `replies of post ${i}`).toHaveLength(1);
      expect(replies[0]!.inReplyToId).toBe(statuses[0]!.id);
    }
  }
  // Every status is one of these: POSTS posts and POSTS / 2 replies, no duplicate of any.
  expect(mastodon.statuses).toHaveLength(POSTS + POSTS / 2);
  expect(new Set(mastodon.statuses.map((status) => status.idempotencyKey)).size).toBe(
    mastodon.statuses.length,
  );
  // The six left in flight were sent again, with the same key; the four recorded ones were not.
  expect(posts.map((post) => post.deliveries[0]!.attempts)).toEqual(
    atKill.map((state) => (state === 'sending' ? 2 : 1)),
  );
}, 30_000);
