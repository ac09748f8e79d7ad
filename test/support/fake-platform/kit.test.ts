/** The fake-platform kit by itself: its log, its trouble, its credentials and counters, its close. */
import { afterEach, describe, expect, it } from 'vitest';
import { type FakePlatform, startFakePlatform } from './kit.js';

let kit: FakePlatform;
let made = 0;

async function start(options: { latencyMs?: number; limit?: number } = {}): Promise<FakePlatform> {
  kit = await startFakePlatform({
    tokenOf: (request) => /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1],
    ...(options.limit === undefined
      ? {}
      : {
          rateLimit: {
            limit: options.limit,
            windowMs: 60_000,
            headers: (state) => ({ 'x-left': String(state.remaining) }),
          },
        }),
    ...(options.latencyMs === undefined ? {} : { latencyMs: options.latencyMs }),
    routes: [
      {
        method: 'POST',
        path: '/things/:kind',
        auth: true,
        handle: (request) => ({ status: 201, body: { id: ++made, kind: request.params.kind } }),
      },
    ],
  });
  return kit;
}

afterEach(() => kit.close());

const post = (token: string, body: unknown = { a: 1 }, timeoutMs = 2_000) =>
  fetch(`${kit.url}/things/cups`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });

describe('the fake-platform kit', () => {
  it('logs each request with its route, parsed body and the times it came and was answered', async () => {
    await start({ latencyMs: 50 });
    const token = kit.credentials.issue();
    const answer = await post(token, { text: 'hi' });
    expect(answer.status).toBe(201);
    expect(await answer.json()).toMatchObject({ kind: 'cups' });
    const [logged] = kit.log;
    expect(logged).toMatchObject({
      method: 'POST',
      path: '/things/cups',
      route: '/things/:kind',
      status: 201,
    });
    expect(logged?.body.json).toEqual({ text: 'hi' });
    expect(logged!.answeredAt! - logged!.receivedAt).toBeGreaterThanOrEqual(45);
    expect((await fetch(`${kit.url}/elsewhere`)).status).toBe(404);
    expect(kit.log.map((request) => request.route)).toEqual(['/things/:kind', undefined]);
  });

  it('refuses a credential missing, unknown or revoked', async () => {
    await start();
    const token = kit.credentials.issue();
    expect((await post(token)).status).toBe(201);
    kit.revoke();
    expect(await (await post(token)).json()).toEqual({ error: 'The credential is revoked' });
    expect(await (await post('made-up')).json()).toEqual({ error: 'The credential is unknown' });
    expect(kit.credentials.all()).toEqual([token]);
  });

  it('scripts trouble in order, each for as many requests as it says, aimed at a route or at any', async () => {
    await start();
    const token = kit.credentials.issue();
    kit.failNext(503, undefined, { count: 2 });
    kit.rateLimitNext({ retryAfterSeconds: 9 }, { route: '/things/:kind' });
    kit.failNext(422, 'Too fancy');
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(token)).status);
    expect(statuses).toEqual([503, 503, 429, 422, 201]);
    expect(kit.log[2]?.status).toBe(429);
    kit.rateLimitNext({ retryAfterSeconds: 9 });
    expect((await post(token)).headers.get('retry-after')).toBe('9');
  });

  it('hangs for ever, answers late, loses the answer of what it did, or cuts the connection', async () => {
    await start();
    const token = kit.credentials.issue();
    const before = made;
    kit.hang('forever');
    await expect(post(token, {}, 200)).rejects.toThrow();
    expect(made - before).toBe(0);
    kit.hang(300);
    await expect(post(token, {}, 100)).rejects.toThrow();
    await expect.poll(() => made - before).toBe(1);
    kit.hangAfterCreating();
    await expect(post(token, {}, 200)).rejects.toThrow();
    expect(made - before).toBe(2);
    kit.failAfterCreating(500);
    expect((await post(token)).status).toBe(500);
    expect(made - before).toBe(3);
    kit.dropNext();
    await expect(post(token)).rejects.toThrow(/fetch failed/);
    expect(kit.log.map((request) => request.answeredAt === null)).toEqual([true, true, true, false, true]);
  });

  it('counts each account down, says so in every answer, and answers 429 once none is left', async () => {
    await start({ limit: 2 });
    const token = kit.credentials.issue();
    expect((await post(token)).headers.get('x-left')).toBe('1');
    expect((await post(token)).headers.get('x-left')).toBe('0');
    expect((await post(token)).status).toBe(429);
    kit.rateLimits.set(token, { remaining: 5 });
    expect((await post(token)).headers.get('x-left')).toBe('4');
  });

  it('closes with a request still hanging, and twice; connections are refused after', async () => {
    await start();
    kit.hang('forever');
    const hanging = post(kit.credentials.issue()).catch((error: Error) => error);
    await expect.poll(() => kit.log.length).toBe(1);
    await Promise.all([kit.close(), kit.close()]);
    expect(await hanging).toBeInstanceOf(Error);
    await expect(fetch(kit.url)).rejects.toThrow();
  });

  it('goes away after answering when asked', async () => {
    await start();
    kit.closeAfterAnswering();
    expect((await post(kit.credentials.issue())).status).toBe(201);
    await expect(post('any')).rejects.toThrow();
  });
});
