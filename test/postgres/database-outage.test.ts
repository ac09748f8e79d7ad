/**
 * A PostgreSQL server that is shut down while an instance runs: every REST call answers 503 with a
 * Retry-After header and a body that names the database (never its password), every MCP tool call an
 * error whose text says to try again later, and the instance logs the outage once, with the driver's
 * reason, not once per request. Once the server is back, the same calls succeed, without restarting the
 * instance. Before, each call answered a bare `500 Server Error` with empty `errors`, and each was logged.
 */
import { afterEach, expect, it } from 'vitest';
import { type Answer, type OutageInstance, openOutageInstance } from './outage-instance.js';
import { usePostgres } from './postgres-databases.js';

const postgres = usePostgres();

let instance: OutageInstance | undefined;
afterEach(async () => {
  await postgres
    .server()
    .startAgain()
    .catch(() => undefined);
  await instance?.close();
  instance = undefined;
});

it('a database shut down: 503 naming it, a retry-later tool error, one log line; back when it is', async () => {
  const url = await postgres.database();
  const { hostname, port, pathname, password } = new URL(url);
  const named = `${hostname}:${port}${pathname}`;
  const open = await openOutageInstance(url);
  instance = open;
  const posts = `/v1/brands/${open.brandId}/collections/${open.collectionId}/posts`;
  let drafts = 0;
  const draft = () => ({ publishMode: 'DRAFT', caption: `Draft ${++drafts}` });
  const calls = (): Array<Promise<Answer>> => [
    open.request('GET', '/v1/me'),
    open.request('GET', '/v1/brands'),
    open.request('GET', `/v1/brands/${open.brandId}/posts`),
    open.request('POST', posts, draft()),
  ];
  expect((await Promise.all(calls())).map((answer) => answer.status)).toEqual([200, 200, 200, 201]);

  await postgres.server().shutDown();
  for (let round = 0; round < 3; round++) {
    for (const answer of await Promise.all(calls())) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(answer.body.status).toBe('error');
      expect(answer.body.message).toContain(named);
      expect(answer.body.errors.database).toContain(named);
      expect(answer.body.errors.database).toMatch(/try again/i);
      expect(JSON.stringify(answer.body)).not.toContain(password);
    }
  }
  for (const [tool, args] of [
    ['list_brands', {}],
    ['list_posts', { brandId: open.brandId }],
    ['create_post', { brandId: open.brandId, collectionId: open.collectionId, ...draft() }],
  ] as const) {
    const result = await open.call(tool, args);
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(result.isError, text).toBe(true);
    expect(text).toContain(named);
    expect(text).toMatch(/try .*again in a few seconds/i);
    expect((result.structuredContent as { errors: Record<string, string> }).errors.database).toContain(named);
  }
  // Logged once for the whole outage, by the store, with the driver's reason; the adapters log nothing.
  const outage = open.stderr.filter((line) => line.includes(named));
  expect(outage, open.stderr.join('\n')).toHaveLength(1);
  expect(outage[0]).toMatch(/unavailable/);
  expect(outage[0]).toMatch(/ECONNREFUSED|administrator command|Connection terminated/);
  expect(outage[0]).not.toContain(password);
  expect(open.logged).toEqual([]);

  await postgres.server().startAgain();
  expect((await Promise.all(calls())).map((answer) => answer.status)).toEqual([200, 200, 200, 201]);
  const listed = await open.call('list_posts', { brandId: open.brandId });
  expect(listed.isError).toBeFalsy();
  expect((listed.structuredContent as { data: unknown[] }).data).toHaveLength(2);
  const lines = open.stderr.filter((line) => line.includes(named));
  expect(lines).toHaveLength(2);
  expect(lines[1]).toMatch(/answers again/);
});
