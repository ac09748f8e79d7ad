/**
 * DNS-rebinding protection of a loopback-only server: Host and Origin must name the loopback; checked
 * in-process and over a real loopback connection (where the client cannot hide its Host).
 */
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp, type RunningServer } from '../../src/http/serve.js';
import { KEY_A, listenOnLoopback, openRestWorld, type RestWorld, readJson } from './support.js';

let world: RestWorld;
beforeEach(async () => {
  world = await openRestWorld();
});
afterEach(async () => {
  expect(world.logged).toEqual([]);
  await world.close();
});

const FORBIDDEN = JSON.stringify({
  status: 'error',
  message: 'Forbidden.',
  errors: { host: 'This server only answers to localhost.' },
});

const me = (headers: Record<string, string>) => world.request('GET', '/v1/me', { headers });

describe('in-process', () => {
  it('refuses a foreign Host with 403', async () => {
    for (const host of ['evil.example', 'evil.example:8787', 'localhost.evil.example', '10.0.0.1', '']) {
      const response = await me({ host });
      expect({ host, status: response.status, text: await response.text() }).toEqual({
        host,
        status: 403,
        text: FORBIDDEN,
      });
    }
  });

  it('refuses a Host that only starts like a loopback address (DNS rebinding through 127.x names)', async () => {
    for (const host of ['127.evil.example', '127.0.0.1.nip.example:8787']) {
      const response = await me({ host });
      expect({ host, status: response.status }).toEqual({ host, status: 403 });
    }
    const response = await me({ origin: 'http://127.evil.example:8787' });
    expect({ origin: true, status: response.status }).toEqual({ origin: true, status: 403 });
  });

  it('refuses a foreign or opaque Origin with 403, even with a loopback Host', async () => {
    for (const origin of [
      'http://evil.example',
      'https://evil.example:443',
      'null',
      'http://localhost.evil.example',
    ]) {
      const response = await me({ origin });
      expect({ origin, status: response.status, text: await response.text() }).toEqual({
        origin,
        status: 403,
        text: FORBIDDEN,
      });
    }
  });

  it('answers loopback Hosts and Origins', async () => {
    const allowed: Array<Record<string, string>> = [
      { host: 'localhost' },
      { host: 'localhost:8787' },
      { host: '127.0.0.1:8787' },
      { host: '[::1]:8787' },
      { origin: 'http://localhost:1234' },
      { origin: 'http://127.0.0.1:5173' },
      { origin: 'http://[::1]:3000' },
    ];
    for (const headers of allowed) {
      const response = await me(headers);
      expect({ headers, status: response.status }).toEqual({ headers, status: 200 });
    }
  });

  it('checks Host before the API key and on every path, /mcp included', async () => {
    for (const path of ['/v1/brands', '/v1/openapi.json', '/mcp', '/v1/brands/1/media']) {
      const response = await world.request('GET', path, { key: null, headers: { host: 'evil.example' } });
      expect({ path, status: response.status, text: await response.text() }).toEqual({
        path,
        status: 403,
        text: FORBIDDEN,
      });
    }
  });

  it('answers any Host when the server is not loopback-only', async () => {
    const open = createHttpApp({
      runtime: world.rt.runtime,
      version: 'test',
      loopbackOnly: false,
      log: () => {},
    });
    const response = await open.app.request('http://api.example/v1/me', {
      headers: { host: 'api.example', authorization: `Bearer ${KEY_A}` },
    });
    expect(response.status).toBe(200);
    await open.sessions.closeAll();
  });
});

describe('over a real loopback connection', () => {
  let server: RunningServer;
  beforeEach(async () => {
    server = await listenOnLoopback(world);
  });
  afterEach(async () => {
    await server.close();
  });

  function get(headers: Record<string, string>): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(new URL('/v1/me', server.url), {
        headers: { authorization: `Bearer ${KEY_A}`, ...headers },
      });
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
        );
      });
      request.on('error', reject);
      request.end();
    });
  }

  it('answers the Host a client sends for the listener', async () => {
    const answer = await get({});
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).data.name).toBe('User A');
    const viaFetch = await readJson(
      await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${KEY_A}` } }),
    );
    expect(viaFetch.status).toBe(200);
  });

  it('refuses Host: evil.example and Origin: http://evil.example with 403', async () => {
    expect(await get({ host: 'evil.example' })).toEqual({ status: 403, text: FORBIDDEN });
    expect(await get({ origin: 'http://evil.example' })).toEqual({ status: 403, text: FORBIDDEN });
  });

  it('allows Origin: http://localhost:1234', async () => {
    const answer = await get({ origin: 'http://localhost:1234' });
    expect(answer.status).toBe(200);
  });
});
