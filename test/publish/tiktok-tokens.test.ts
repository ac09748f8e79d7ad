/**
 * TikTok's tokens against the stand-in: the 24-hour access token is renewed ahead of its expiry with the
 * refresh token (a form with `client_key`), the new refresh token TikTok answers replaces the spent one
 * in the stored secret, a token TikTok refuses (401) is renewed once and the call made again, and a
 * refresh TikTok refuses asks for a reconnect saying how.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DeliveryJob, Publisher } from '../../src/ports.js';
import { tokensOf } from '../../src/publish/connectors/oauth-tokens.js';
import { verifyTikTok } from '../../src/publish/connectors/tiktok/tiktok-account.js';
import { openTikTok } from '../../src/publish/connectors/tiktok/tiktok-connector.js';
import { tiktokOAuth } from '../../src/publish/connectors/tiktok/tiktok-oauth.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import { mp4Bytes } from '../support/tiktok-media.js';
import { startTikTokServer, type TikTokServer } from '../support/tiktok-server.js';

let server: TikTokServer;
let publisher: Publisher | undefined;
let stored: string;
const TOKEN = '/v2/oauth/token/';

beforeEach(async () => {
  server = await startTikTokServer();
});
afterEach(async () => {
  await publisher?.close?.();
  publisher = undefined;
  await server.close();
});

async function open(expiresInMs: number) {
  const issued = server.userTokens();
  const tokens = { ...issued, expiresAtMs: Date.now() + expiresInMs };
  const verified = await verifyTikTok({
    endpoint: server.url,
    secret: issued.accessToken,
    tokens,
    userAgent: 't',
    timeoutMs: 5_000,
  });
  stored = verified.secret;
  publisher = openTikTok(
    { ...verified, settings: { ...verified.settings, authRoot: server.url }, channelId: 1 },
    {
      loadMedia: async () => mediaFromBytes(mp4Bytes(10), 'video/mp4', 'clip.mp4'),
      saveSecret: async () => {},
      // As the engine does (refresh-secret.ts), without the store: the stored secret, refreshed once.
      refreshSecret: async ({ stale, refresh }) => {
        if (stale === stored) stored = await refresh(stored);
        return stored;
      },
      oauthClient: () => ({ clientId: server.app.clientKey, clientSecret: server.app.clientSecret }),
      clock: { now: () => Date.now() },
      log: () => undefined,
      timeoutMs: 5_000,
      userAgent: 'test',
    },
  );
  return issued;
}

const job: DeliveryJob = {
  deliveryId: 1,
  postId: 1,
  brandId: 1,
  channel: { id: 1, name: 'Acme on TikTok', type: 'TikTok' },
  content: { platform: 'TikTok', format: 'feed', caption: 'Hi', media: [{ id: 'm', type: 'video/mp4' }] },
  idempotencyKey: 'k',
  dueAtMs: Date.now(),
  attempt: 1,
  state: {},
};

it('renews a token about to expire, keeping the new refresh token TikTok answers', async () => {
  const issued = await open(60_000);
  expect(await publisher!.deliver(job)).toMatchObject({ ok: true });
  const [refresh] = server.kit.requestsTo(TOKEN, 'POST');
  const form = new Map(refresh!.body.fields);
  expect(form.get('grant_type')).toBe('refresh_token');
  expect(form.get('client_key')).toBe(server.app.clientKey);
  expect(form.get('refresh_token')).toBe(issued.refreshToken);
  const renewed = tokensOf(stored);
  expect(renewed.refreshToken).toMatch(/^rft\./);
  expect(renewed.refreshToken).not.toBe(issued.refreshToken);
  expect(renewed.expiresAtMs! - Date.now()).toBeGreaterThan(23 * 3_600_000);
  expect(renewed.scope).toBe('user.info.basic video.publish video.upload');
  // The post went with the renewed token.
  expect(server.kit.requestsTo('/v2/post/publish/video/init/')[0]!.headers.authorization).toBe(
    `Bearer ${renewed.accessToken}`,
  );
});

it('a token TikTok refuses is renewed once and the call made again', async () => {
  const issued = await open(20 * 3_600_000);
  server.kit.revoke(issued.accessToken);
  expect(await publisher!.deliver(job)).toMatchObject({ ok: true });
  expect(server.kit.requestsTo(TOKEN, 'POST')).toHaveLength(1);
  expect(server.kit.requestsTo('/v2/post/publish/creator_info/query/').map((r) => r.status)).toEqual([
    200, 401, 200,
  ]);
});

it('a refresh TikTok refuses asks for a reconnect, saying to run connect tiktok', async () => {
  const issued = await open(60_000);
  // Spent elsewhere (a copy of the store): TikTok refuses it now.
  await tiktokOAuth.refresh!({
    endpoint: server.url,
    refreshToken: issued.refreshToken,
    clientId: server.app.clientKey,
    clientSecret: server.app.clientSecret,
    userAgent: 't',
    timeoutMs: 5_000,
  });
  const outcome = await publisher!.deliver(job);
  expect(outcome).toMatchObject({
    ok: false,
    kind: 'reconnect',
    reason: expect.stringMatching(/TikTok refused to renew the sign-in.*connect/),
  });
  expect(server.published()).toEqual([]);
});
