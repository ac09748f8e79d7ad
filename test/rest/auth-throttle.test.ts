/**
 * The failed-key throttle with its default limits on the REST API in process (`app.request`): such
 * requests have no socket and all count as one address ('unknown'). 20 wrong keys are 401s, the 21st
 * request a 429 with Retry-After and the spec-shaped body. (The other REST suites raise the limit: they
 * send wrong keys by the hundred; test/http/auth-throttle.test.ts covers real addresses.)
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { KEY_A, KEY_B, openRestWorld, type RestWorld, UNAUTHENTICATED } from './support.js';

let world: RestWorld;
beforeEach(async () => {
  world = await openRestWorld({ authThrottle: {} }); // the defaults
});
afterEach(async () => {
  expect(world.logged).toEqual([]);
  await world.close();
});

it('answers 20 wrong keys with 401 and then 429 with Retry-After, even for a key never seen succeed', async () => {
  expect((await world.request('GET', '/v1/me', { key: KEY_A })).status).toBe(200);
  for (let i = 0; i < 20; i++) {
    const response = await world.request('GET', '/v1/brands', { key: `wrong-key-${i}` });
    expect({ attempt: i + 1, status: response.status, body: await response.text() }).toEqual({
      attempt: i + 1,
      status: 401,
      body: UNAUTHENTICATED,
    });
  }
  const blocked = await world.request('GET', '/v1/brands', { key: 'wrong-key-20' });
  expect(blocked.status).toBe(429);
  expect(blocked.headers.get('retry-after')).toBe('60');
  expect(blocked.headers.get('content-type')).toMatch(/^application\/json/);
  expect(await blocked.text()).toBe(
    JSON.stringify({
      status: 'error',
      message: 'Too Many Attempts.',
      errors: {
        authorization: 'Too many failed API key attempts from this address; try again in 60 seconds.',
      },
    }),
  );
  expect((await world.request('GET', '/v1/me', { key: KEY_B })).status).toBe(429);
  // A's key succeeded from this address before: it goes on working.
  expect((await world.request('GET', '/v1/me', { key: KEY_A })).status).toBe(200);
  // The OpenAPI document needs no key and is not throttled.
  expect((await world.request('GET', '/v1/openapi.json', { key: null })).status).toBe(200);
});
