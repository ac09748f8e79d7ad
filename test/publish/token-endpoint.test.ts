/**
 * The OAuth modules' one call of a token endpoint (src/publish/connectors/token-endpoint.ts), against
 * a loopback server that answers as RFC 6749 §5 and Meta's envelope say: what is sent (HTTP Basic or
 * credentials in the form, a GET's query), the tokens read, and each refusal's message, never holding a
 * secret.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaTokenCall } from '../../src/publish/connectors/meta/meta-token.js';
import { callTokenEndpoint, signedInGet } from '../../src/publish/connectors/token-endpoint.js';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

let server: Server;
let root: string;
const seen: Seen[] = [];
/** What the next request is answered: a status and a JSON body. */
let next: { status: number; body: unknown } = { status: 200, body: {} };

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      authorization: request.headers.authorization,
      contentType: request.headers['content-type'],
      body: await bodyOf(request),
    });
    response.writeHead(next.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(next.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const base = {
  platform: 'Example',
  http: { userAgent: 'test', timeoutMs: 5_000 },
  checkApp: 'check the app on example.com.',
  refusal: (said: string) => `Example did not accept the code (${said}): sign in again.`,
};

describe('callTokenEndpoint', () => {
  it('posts the form with HTTP Basic and reads the tokens, their expiry and scope', async () => {
    next = {
      status: 200,
      body: {
        access_token: 'AT-1',
        refresh_token: 'RT-1',
        expires_in: 3600,
        scope: 'a b',
        token_type: 'Bearer',
      },
    };
    const before = Date.now();
    const tokens = await callTokenEndpoint({
      ...base,
      url: `${root}/token`,
      form: { grant_type: 'authorization_code', code: 'the-code' },
      basic: { clientId: 'client', clientSecret: 'shh' },
      secrets: ['the-code'],
    });
    expect(tokens).toMatchObject({ accessToken: 'AT-1', refreshToken: 'RT-1', scope: 'a b' });
    expect(tokens.expiresAtMs).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(tokens.expiresAtMs).toBeLessThanOrEqual(Date.now() + 3_600_000);
    const request = seen.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', url: '/token' });
    expect(request.authorization).toBe(`Basic ${Buffer.from('client:shh').toString('base64')}`);
    expect(request.contentType).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(request.body).get('code')).toBe('the-code');
  });

  it('GETs the address without a form, and keeps no expiry the answer does not give', async () => {
    next = { status: 200, body: { access_token: 'AT-2' } };
    const tokens = await callTokenEndpoint({
      ...base,
      url: `${root}/exchange?grant_type=x&t=1`,
      secrets: [],
    });
    expect(tokens).toEqual({ accessToken: 'AT-2' });
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/exchange?grant_type=x&t=1', body: '' });
  });

  it("says the app's credentials were refused on 401 or invalid_client, in the platform's words", async () => {
    for (const answer of [
      { status: 401, body: { error: 'unauthorized_client', error_description: 'bad client shh' } },
      { status: 400, body: { error: 'invalid_client' } },
    ]) {
      next = answer;
      const message = await callTokenEndpoint({
        ...base,
        url: `${root}/token`,
        form: { code: 'c0de' },
        basic: { clientId: 'client', clientSecret: 'shh' },
        secrets: ['c0de'],
      }).catch((error: Error) => error.message);
      expect(message).toMatch(
        /^Example did not accept the app's credentials \(.+\): check the app on example\.com\.$/,
      );
      expect(message).not.toContain('shh');
    }
  });

  it('words any other refusal as the caller says, the code hidden', async () => {
    next = {
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Code c0de was already used.' },
    };
    const message = await callTokenEndpoint({
      ...base,
      url: `${root}/token`,
      form: { code: 'c0de' },
      secrets: ['c0de'],
    }).catch((error: Error) => error.message);
    expect(message).toBe(
      'Example did not accept the code (invalid_grant: Code <secret> was already used.): sign in again.',
    );
  });

  it('says a token endpoint it cannot reach, and to try again', async () => {
    const message = await callTokenEndpoint({
      ...base,
      url: 'http://127.0.0.1:9/token?client_secret=shh',
      secrets: ['shh'],
    }).catch((error: Error) => error.message);
    expect(message).toMatch(
      /^Could not reach Example's token endpoint http:\/\/127\.0\.0\.1:9\/token \(.+\): try again\.$/,
    );
    expect(message).not.toContain('shh');
  });
});

describe('metaTokenCall', () => {
  it("reads Meta's envelope, and tells the app's credentials from a refused code by Meta's message", async () => {
    const call = (secrets: string[]) =>
      metaTokenCall({
        ...base,
        platform: 'Threads',
        url: `${root}/oauth/access_token?client_secret=s3cr3t`,
        http: base.http,
        secrets,
      }).catch((error: Error) => error.message);
    next = {
      status: 400,
      body: { error: { message: 'Error validating client secret.', type: 'OAuthException', code: 1 } },
    };
    expect(await call(['s3cr3t'])).toBe(
      "Threads did not accept the app's credentials (Error validating client secret. (code 1)): check the app on example.com.",
    );
    next = {
      status: 400,
      body: {
        error: { message: 'This authorization code has been used.', type: 'OAuthException', code: 100 },
      },
    };
    expect(await call(['s3cr3t'])).toMatch(
      /^Example did not accept the code \(.*This authorization code has been used\./,
    );
  });
});

describe('signedInGet', () => {
  it('GETs with the token as a bearer and answers whatever the status; an unreachable host says to check --api-root', async () => {
    next = { status: 403, body: { error: 'nope' } };
    const answer = await signedInGet(`${root}/me?fields=id`, 'tok-123456', base.http);
    expect(answer.status).toBe(403);
    expect(seen.at(-1)).toMatchObject({
      method: 'GET',
      url: '/me?fields=id',
      authorization: 'Bearer tok-123456',
    });
    const message = await signedInGet(
      'http://127.0.0.1:9/me?access_token=tok-123456',
      'tok-123456',
      base.http,
    ).catch((error: Error) => error.message);
    expect(message).toMatch(/^Could not reach http:\/\/127\.0\.0\.1:9 \(.+\): check --api-root\.$/);
    expect(message).not.toContain('tok-123456');
  });
});
