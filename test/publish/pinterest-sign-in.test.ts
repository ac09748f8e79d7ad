/**
 * Pinterest's sign-in against its stand-in: the authorization address, the code and refresh exchanges
 * with the app's credentials as HTTP Basic, the refresh token renewed by each refresh (the new one
 * kept, the spent one never sent again), the boards as identities page by page, verify's choice of a
 * board and its messages, and the connector's token renewed ahead of its expiry and after a 401.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tokensOf, tokensSecret } from '../../src/publish/connectors/oauth-tokens.js';
import { pinterestOAuth } from '../../src/publish/connectors/pinterest/pinterest-oauth.js';
import { type PinterestWorld, pinJob, startPinterestWorld } from '../support/pinterest-world.js';

let world: PinterestWorld;
const http = { userAgent: 'pinterest-test', timeoutMs: 5_000 };

beforeEach(async () => {
  world = await startPinterestWorld({
    boards: [
      { id: '111', name: 'Recipes' },
      { id: '222', name: 'Kitchen tools' },
    ],
  });
});

afterEach(async () => {
  await world.close();
});

const client = () => ({ clientId: world.server.app.clientId, clientSecret: world.server.app.clientSecret });

/** A code as the authorization page gives it, for `redirectUri`. */
async function code(redirectUri = 'http://127.0.0.1:8788/callback'): Promise<string> {
  world.server.app.redirectUris.push(redirectUri);
  const address = pinterestOAuth.authorizationUrl({
    endpoint: world.server.url,
    clientId: world.server.app.clientId,
    redirectUri,
    state: 'st4te',
    scopes: pinterestOAuth.scopes,
  });
  const answer = await fetch(address, { redirect: 'manual' });
  return new URL(answer.headers.get('location') ?? '').searchParams.get('code') ?? '';
}

describe('Pinterest sign-in', () => {
  it('the authorization page: /oauth/ with the comma-separated scopes, no PKCE', () => {
    const url = new URL(
      pinterestOAuth.authorizationUrl({
        endpoint: 'https://www.pinterest.com',
        clientId: '1500001',
        redirectUri: 'http://127.0.0.1:8788/callback',
        state: 's',
        scopes: pinterestOAuth.scopes,
      }),
    );
    expect(url.origin + url.pathname).toBe('https://www.pinterest.com/oauth/');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: '1500001',
      redirect_uri: 'http://127.0.0.1:8788/callback',
      response_type: 'code',
      scope: 'boards:read,boards:write,pins:read,pins:write,user_accounts:read',
      state: 's',
    });
    expect(pinterestOAuth.pkce).toBe(false);
  });

  it('the code exchange: Basic credentials, the form Pinterest documents, both tokens', async () => {
    const tokens = await pinterestOAuth.exchangeCode({
      endpoint: world.server.url,
      code: await code(),
      redirectUri: 'http://127.0.0.1:8788/callback',
      ...client(),
      ...http,
    });
    expect(tokens).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String) });
    expect(tokens.expiresAtMs! - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const [request] = world.server.kit.requestsTo('/v5/oauth/token');
    const basic = Buffer.from(`${client().clientId}:${client().clientSecret}`).toString('base64');
    expect(request!.headers.authorization).toBe(`Basic ${basic}`);
    expect(Object.fromEntries(request!.body.fields)).toEqual({
      grant_type: 'authorization_code',
      code: expect.any(String),
      redirect_uri: 'http://127.0.0.1:8788/callback',
      continuous_refresh: 'true',
    });
  });

  it('a wrong app secret and a spent code: messages that say what to do, with no secret', async () => {
    const used = await code();
    const exchange = (clientSecret: string) =>
      pinterestOAuth.exchangeCode({
        endpoint: world.server.url,
        code: used,
        redirectUri: 'http://127.0.0.1:8788/callback',
        clientId: client().clientId,
        clientSecret,
        ...http,
      });
    await expect(exchange('wrong-secret')).rejects.toThrow(/check the Pinterest app's credentials/);
    await exchange(client().clientSecret);
    const again = await exchange(client().clientSecret).catch((error: Error) => error.message);
    expect(again).toMatch(/Pinterest did not accept the code \(Invalid authorization code\. \(code 1\)\)/);
    expect(again).not.toContain(used);
  });

  it('a refresh renews the refresh token: the new one works, the spent one is refused', async () => {
    const first = world.server.signedIn();
    const refresh = (refreshToken: string) =>
      pinterestOAuth.refresh!({ endpoint: world.server.url, refreshToken, ...client(), ...http });
    const renewed = await refresh(first.refreshToken);
    expect(renewed.refreshToken).toMatch(/\S/);
    expect(renewed.refreshToken).not.toBe(first.refreshToken);
    await expect(refresh(first.refreshToken)).rejects.toThrow('Pinterest refused the refresh token');
    expect((await refresh(renewed.refreshToken!)).accessToken).toMatch(/\S/);
  });

  it('the identities are the boards, read page by page', async () => {
    await world.close();
    const boards = Array.from({ length: 260 }, (_, i) => ({ id: String(1000 + i), name: `Board ${i}` }));
    world = await startPinterestWorld({ boards });
    const { accessToken } = world.server.signedIn();
    const identities = await pinterestOAuth.identities!({ endpoint: world.server.url, accessToken, ...http });
    expect(identities).toHaveLength(260);
    expect(identities[259]).toEqual({ id: '1259', name: 'Board 259', kind: 'board' });
    expect(world.server.kit.requestsTo('/v5/boards').map((r) => r.query.get('bookmark'))).toEqual([
      null,
      '250',
    ]);
  });
});

describe('Pinterest: verify picks a board', () => {
  it('by name (any case) or by id; the board is the account, its id the pin’s board_id', async () => {
    expect(await world.verified('kitchen TOOLS')).toMatchObject({
      kind: 'pinterest',
      account: 'Kitchen tools',
      accountId: '222',
      profileUrl: 'https://www.pinterest.com/acmekitchen/',
      settings: { boardId: '222', username: 'acmekitchen' },
      capabilities: {
        textLimit: 800,
        titleLimit: 100,
        altLimit: 500,
        linkLimit: 2048,
        maxMedia: 5,
        comments: false,
      },
    });
    expect(await world.verified('111')).toMatchObject({ account: 'Recipes', accountId: '111' });
  });

  it('several boards and none named, or one that is not there: the boards listed', async () => {
    await expect(world.verified()).rejects.toThrow(
      'The Pinterest account acmekitchen has several boards: choose one with --account (its id or its name): Recipes (111), Kitchen tools (222).',
    );
    await expect(world.verified('Desserts')).rejects.toThrow(
      'has no board "Desserts": give one of Recipes (111)',
    );
  });

  it('an account without boards is told to make one', async () => {
    await world.close();
    world = await startPinterestWorld({ boards: [] });
    await expect(world.verified()).rejects.toThrow('has no board to pin to: make one on pinterest.com');
  });
});

describe('Pinterest: the connector keeps its token fresh', () => {
  it('an expiring token is refreshed before the pin, the rotated refresh token stored', async () => {
    const connection = await world.verified('Recipes');
    const old = tokensOf(connection.secret);
    const secret = tokensSecret({ ...old, expiresAtMs: Date.now() + 60_000 });
    const publisher = await world.open(
      { ...connection, secret },
      {
        oauthClient: client,
        refreshSecret: async ({ stale, refresh }) => {
          const fresh = await refresh(stale);
          world.saved.push(fresh);
          return fresh;
        },
      },
    );
    const media = [world.file('m1', 'image/png')];
    expect(await publisher.deliver(pinJob({ media }))).toMatchObject({ ok: true });
    expect(await publisher.deliver(pinJob({ media }))).toMatchObject({ ok: true });
    expect(world.server.kit.requestsTo('/v5/oauth/token')).toHaveLength(1);
    const stored = tokensOf(world.saved[0]!);
    expect(stored.refreshToken).not.toBe(old.refreshToken);
    expect(world.server.refreshTokens.get(stored.refreshToken!)).toMatchObject({ spent: false });
    expect(world.server.refreshTokens.get(old.refreshToken!)).toMatchObject({ spent: true });
  });

  it('a token refused with 401 is refreshed once and the pin sent again; no app: reconnect', async () => {
    const connection = await world.verified('Recipes');
    const publisher = await world.open(connection, {
      oauthClient: client,
      refreshSecret: async ({ stale, refresh }) => refresh(stale),
    });
    world.server.kit.revoke(tokensOf(connection.secret).accessToken);
    expect(await publisher.deliver(pinJob({ media: [world.file('m1', 'image/png')] }))).toMatchObject({
      ok: true,
    });
    expect(world.server.kit.requestsTo('/v5/pins').map((request) => request.status)).toEqual([401, 201]);
    const stranded = await world.open(connection);
    const outcome = await stranded.deliver(pinJob({ media: [world.file('m2', 'image/png')] }));
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'reconnect',
      reason: expect.stringContaining('connect pinterest'),
    });
  });
});
