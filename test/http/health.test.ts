/**
 * GET /health, one instance's own answer for a load balancer: 200 while its store answers and its engine
 * runs; 503 once it begins to shut down (while it still serves requests), when its store fails, or when
 * its engine has stopped. No key is needed and the body says nothing about the data.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createHttpApp, type HttpApp } from '../../src/http/serve.js';
import { type PublishingEngine, startPublishingEngine } from '../../src/publish/engine.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

let rt: TestRuntime;
let engine: PublishingEngine;
let http: HttpApp;
let logged: string[];

beforeEach(async () => {
  rt = await openTestRuntime();
  engine = await startPublishingEngine({
    store: rt.runtime.store,
    clock: rt.clock,
    publisher: { kind: 'sandbox' },
    secrets: rt.runtime.secrets,
    version: 'test',
    log: () => undefined,
    planSignal: rt.runtime.planSignal,
  });
  logged = [];
  http = createHttpApp({
    runtime: rt.runtime,
    engine,
    version: 'test',
    loopbackOnly: true,
    log: (message) => logged.push(message),
  });
});

afterEach(async () => {
  await engine.stop();
  await http.sessions.closeAll();
  await rt.close();
});

async function health(): Promise<{ status: number; body: unknown; cache: string | null }> {
  const response = await http.app.request('http://localhost/health', { headers: { host: 'localhost' } });
  return {
    status: response.status,
    body: await response.json(),
    cache: response.headers.get('cache-control'),
  };
}

it('answers 200 without a key while the store answers and the engine runs', async () => {
  expect(await health()).toEqual({
    status: 200,
    body: { status: 'ok', store: 'ok', engine: 'running', shuttingDown: false },
    cache: 'no-store',
  });
});

it('answers 503 from the moment shutting down begins, while the API still answers', async () => {
  http.health.beginShutdown();
  expect(await health()).toMatchObject({
    status: 503,
    body: { status: 'unavailable', store: 'ok', engine: 'running', shuttingDown: true },
  });
  const brands = await http.app.request('http://localhost/v1/brands', { headers: { host: 'localhost' } });
  expect(brands.status).toBe(401);
});

it('answers 503 once the engine has stopped', async () => {
  await engine.stop();
  expect(await health()).toMatchObject({
    status: 503,
    body: { status: 'unavailable', store: 'ok', engine: 'stopped', shuttingDown: false },
  });
});

it('answers 503 while the store fails, logs the change once, and 200 when it answers again', async () => {
  const { store } = rt.runtime;
  const ping = store.ping.bind(store);
  store.ping = async () => {
    throw new Error('disk I/O error');
  };
  for (let i = 0; i < 3; i++) {
    expect(await health()).toMatchObject({ status: 503, body: { status: 'unavailable', store: 'failing' } });
  }
  store.ping = ping;
  expect(await health()).toMatchObject({ status: 200, body: { store: 'ok' } });
  expect(logged).toEqual(['health check: the store is failing', 'health check: the store answers again']);
});
