import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommentJob, DeliveryJob } from '../../src/ports.js';
import {
  signPayload,
  verifySignature,
  WebhookPublisher,
  type WebhookPublisherOptions,
} from '../../src/publish/webhook-publisher.js';
import { type Receiver, type Reply, startReceiver, unusedPort } from './webhook-receiver.js';

const SECRET = 'whsec-test-5f1c2a9e7b';

const job: DeliveryJob = {
  deliveryId: 17,
  postId: 4,
  brandId: 2,
  channel: { id: 9, name: 'Acme on Instagram', type: 'Instagram' },
  content: {
    platform: 'Instagram',
    format: 'feed',
    caption: 'Fresh beans today',
    media: [{ id: 'med_1', type: 'image/png' }],
  },
  idempotencyKey: 'store-17',
  dueAtMs: 1_800_000_000_000,
  attempt: 1,
  state: {},
};

const commentJob: CommentJob = {
  deliveryId: 17,
  postId: 4,
  brandId: 2,
  channel: { id: 9, name: 'Acme on Instagram', type: 'Instagram' },
  externalId: 'ig-555',
  idempotencyKey: 'store-17-comment',
  comment: 'Link in bio',
};

const receivers: Receiver[] = [];
const publishers: WebhookPublisher[] = [];
let logged: string[] = [];

afterEach(async () => {
  await Promise.all(publishers.splice(0).map((publisher) => publisher.close()));
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  // Whatever a test did, the secret must never have reached a log line.
  expect(logged.join('\n')).not.toContain(SECRET);
  logged = [];
});

async function receiver(reply: (index: number) => Reply): Promise<Receiver> {
  const started = await startReceiver(reply);
  receivers.push(started);
  return started;
}

function publisher(url: string, options: Partial<WebhookPublisherOptions> = {}): WebhookPublisher {
  const created = new WebhookPublisher({
    url,
    secret: SECRET,
    baseDelayMs: 20,
    log: (message) => logged.push(message),
    ...options,
  });
  publishers.push(created);
  return created;
}

/** Replies in turn, repeating the last one. */
function sequence(...replies: Reply[]): (index: number) => Reply {
  return (index) => replies[Math.min(index, replies.length - 1)]!;
}

const ok = (body = ''): Reply => ({ status: 200, headers: { 'content-type': 'application/json' }, body });

describe('WebhookPublisher', () => {
  it('POSTs the delivery as signed JSON with the documented headers', async () => {
    const hook = await receiver(() => ok('{"id":"abc-1"}'));
    const before = Date.now();
    const outcome = await publisher(hook.url, { version: '1.2.3' }).deliver(job);

    expect(outcome).toEqual({ ok: true, externalId: 'abc-1' });
    expect(hook.requests).toHaveLength(1);
    const [request] = hook.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/hooks/social?token=abc');
    const body = JSON.parse(request!.body);
    expect(body).toEqual({
      event: 'delivery',
      deliveryId: 17,
      postId: 4,
      brandId: 2,
      channel: { id: 9, name: 'Acme on Instagram', type: 'Instagram' },
      content: job.content,
      attempt: 1,
      sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Date.parse(body.sentAt)).toBeGreaterThanOrEqual(before);

    const { headers } = request!;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('social-publisher-mcp/1.2.3');
    expect(headers['idempotency-key']).toBe('delivery-17');
    expect(headers['x-social-publisher-event']).toBe('delivery');
    const timestamp = headers['x-social-publisher-timestamp'] as string;
    expect(timestamp).toBe(String(Math.floor(Date.parse(body.sentAt) / 1000)));

    const signature = headers['x-social-publisher-signature'] as string;
    const independent = createHmac('sha256', SECRET).update(`${timestamp}.${request!.body}`).digest('hex');
    expect(signature).toBe(`sha256=${independent}`);
    expect(verifySignature(SECRET, signature, timestamp, request!.body)).toBe(true);
    expect(verifySignature('another-secret', signature, timestamp, request!.body)).toBe(false);
    expect(JSON.stringify(headers)).not.toContain(SECRET);
  });

  it('POSTs the comment with its own event and idempotency key', async () => {
    const hook = await receiver(() => ok('{"id":77}'));
    const outcome = await publisher(hook.url).comment(commentJob);

    expect(outcome).toEqual({ ok: true, externalId: '77' });
    const [request] = hook.requests;
    expect(JSON.parse(request!.body)).toEqual({
      event: 'comment',
      deliveryId: 17,
      postId: 4,
      brandId: 2,
      channel: commentJob.channel,
      externalId: 'ig-555',
      comment: 'Link in bio',
      attempt: 1,
      sentAt: expect.any(String),
    });
    expect(request!.headers['idempotency-key']).toBe('comment-17');
    expect(request!.headers['x-social-publisher-event']).toBe('comment');
    expect(request!.headers['user-agent']).toBe('social-publisher-mcp/dev');
    const timestamp = request!.headers['x-social-publisher-timestamp'] as string;
    const signature = request!.headers['x-social-publisher-signature'] as string;
    expect(verifySignature(SECRET, signature, timestamp, request!.body)).toBe(true);
  });

  it.each([
    ['an answer without an id', '{"status":"queued"}'],
    ['an empty answer', ''],
    ['an answer that is not JSON', 'thanks!'],
  ])('reports no external id for %s', async (_, body) => {
    const hook = await receiver(() => ({ status: 202, body }));
    expect(await publisher(hook.url).deliver(job)).toEqual({ ok: true, externalId: null });
  });

  it('retries 500s with the same idempotency key and succeeds on the third attempt', async () => {
    const fail: Reply = { status: 500, body: 'boom' };
    const hook = await receiver(sequence(fail, fail, ok('{"id":"x-3"}')));
    const outcome = await publisher(hook.url).deliver(job);

    expect(outcome).toEqual({ ok: true, externalId: 'x-3' });
    expect(hook.requests).toHaveLength(3);
    expect(hook.requests.map((r) => r.headers['idempotency-key'])).toEqual([
      'delivery-17',
      'delivery-17',
      'delivery-17',
    ]);
    expect(hook.requests.map((r) => JSON.parse(r.body).attempt)).toEqual([1, 2, 3]);
    for (const r of hook.requests) {
      const timestamp = r.headers['x-social-publisher-timestamp'] as string;
      expect(
        verifySignature(SECRET, r.headers['x-social-publisher-signature'] as string, timestamp, r.body),
      ).toBe(true);
    }
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatch(
      /delivery-17 answered 500 Internal Server Error on attempt 1 of 5; retrying in/,
    );
    expect(logged.join('\n')).not.toContain('token=abc');
  });

  it.each([408, 429, 502, 503])('retries a %i', async (status) => {
    const hook = await receiver(sequence({ status }, ok()));
    expect(await publisher(hook.url).deliver(job)).toEqual({ ok: true, externalId: null });
    expect(hook.requests).toHaveLength(2);
  });

  it('waits as long as a 429 Retry-After asks', async () => {
    const hook = await receiver(sequence({ status: 429, headers: { 'retry-after': '1' } }, ok()));
    const outcome = await publisher(hook.url).deliver(job);

    expect(outcome.ok).toBe(true);
    expect(hook.requests).toHaveLength(2);
    expect(hook.requests[1]!.at - hook.requests[0]!.at).toBeGreaterThanOrEqual(900);
    expect(logged[0]).toContain('retrying in 1000 ms');
  });

  it('caps a Retry-After at maxDelayMs', async () => {
    const hook = await receiver(sequence({ status: 503, headers: { 'retry-after': '3600' } }, ok()));
    const outcome = await publisher(hook.url, { maxDelayMs: 50 }).deliver(job);

    expect(outcome.ok).toBe(true);
    expect(hook.requests[1]!.at - hook.requests[0]!.at).toBeLessThan(1000);
    expect(logged[0]).toContain('retrying in 50 ms');
  });

  it.each([
    [400, 'Bad Request'],
    [401, 'Unauthorized'],
    [404, 'Not Found'],
    [422, 'Unprocessable Entity'],
  ])('does not retry a %i', async (status, text) => {
    const hook = await receiver(() => ({ status, body: '{"error":"channel unknown"}' }));
    const outcome = await publisher(hook.url).deliver(job);

    expect(hook.requests).toHaveLength(1);
    expect(outcome).toEqual({
      ok: false,
      reason: `The webhook answered ${status} ${text} after 1 attempt. It said: {"error":"channel unknown"}`,
    });
  });

  it('quotes only the start of a large error body', async () => {
    const hook = await receiver(() => ({ status: 400, body: 'x'.repeat(2_000_000) }));
    const outcome = await publisher(hook.url).deliver(job);

    expect(outcome.ok).toBe(false);
    const reason = outcome.ok ? '' : outcome.reason;
    expect(reason.startsWith('The webhook answered 400 Bad Request after 1 attempt. It said: xxx')).toBe(
      true,
    );
    expect(reason.length).toBeLessThan(300);
  });

  it('gives up after maxAttempts when the webhook keeps failing', async () => {
    const hook = await receiver(() => ({ status: 500 }));
    const outcome = await publisher(hook.url, { maxAttempts: 3 }).deliver(job);

    expect(hook.requests).toHaveLength(3);
    expect(outcome).toEqual({
      ok: false,
      reason: 'The webhook answered 500 Internal Server Error after 3 attempts.',
    });
    expect(outcome.ok || outcome.reason).not.toContain(SECRET);
  });

  it('times out on a webhook that never answers, retries, then gives up', async () => {
    const hook = await receiver(() => 'hang');
    const started = performance.now();
    const outcome = await publisher(hook.url, { timeoutMs: 200, maxAttempts: 2 }).deliver(job);

    expect(performance.now() - started).toBeGreaterThanOrEqual(380);
    expect(hook.requests).toHaveLength(2);
    expect(outcome).toEqual({
      ok: false,
      reason: 'The webhook timed out (no answer within 200 ms) after 2 attempts.',
    });
  });

  it('reports a refused connection without throwing', async () => {
    const port = await unusedPort();
    const outcome = await publisher(`http://127.0.0.1:${port}/hook`, { maxAttempts: 2 }).deliver(job);

    expect(outcome.ok).toBe(false);
    const reason = outcome.ok ? '' : outcome.reason;
    expect(reason).toMatch(/^The webhook could not be reached \(.*ECONNREFUSED.*\) after 2 attempts\.$/);
    expect(reason).not.toContain(SECRET);
    expect(logged).toHaveLength(1);
  });

  it('refuses a URL that is not http(s) and an empty secret', () => {
    expect(() => new WebhookPublisher({ url: 'ftp://example.com/hook', secret: SECRET })).toThrow(/http/);
    expect(() => new WebhookPublisher({ url: 'not a url', secret: SECRET })).toThrow();
    expect(() => new WebhookPublisher({ url: 'https://example.com/hook', secret: '' })).toThrow(/secret/);
  });
});

describe('verifySignature', () => {
  const body = '{"event":"delivery","deliveryId":1}';
  const nowMs = Date.UTC(2030, 0, 1, 12, 0, 0);
  const timestamp = String(nowMs / 1000);
  const header = signPayload(SECRET, timestamp, body);

  it('accepts the signature of the same body, secret and timestamp', () => {
    expect(header).toBe(
      `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${body}`).digest('hex')}`,
    );
    expect(verifySignature(SECRET, header, timestamp, body, 300, nowMs)).toBe(true);
    expect(verifySignature(SECRET, header, Number(timestamp), body, 300, nowMs + 299_000)).toBe(true);
  });

  it('rejects a tampered body', () => {
    expect(verifySignature(SECRET, header, timestamp, body.replace('1', '2'), 300, nowMs)).toBe(false);
  });

  it('rejects a signature made for another timestamp', () => {
    expect(verifySignature(SECRET, header, String(nowMs / 1000 + 1), body, 300, nowMs)).toBe(false);
  });

  it('rejects a timestamp older than the tolerance', () => {
    expect(verifySignature(SECRET, header, timestamp, body, 300, nowMs + 301_000)).toBe(false);
    expect(verifySignature(SECRET, header, timestamp, body, 600, nowMs + 301_000)).toBe(true);
  });

  it('rejects a missing or malformed header or timestamp', () => {
    expect(verifySignature(SECRET, undefined, timestamp, body, 300, nowMs)).toBe(false);
    expect(verifySignature(SECRET, 'sha256=abc', timestamp, body, 300, nowMs)).toBe(false);
    expect(verifySignature(SECRET, header.toUpperCase(), timestamp, body, 300, nowMs)).toBe(false);
    expect(verifySignature(SECRET, header, 'yesterday', body, 300, nowMs)).toBe(false);
    expect(verifySignature(SECRET, header, undefined, body, 300, nowMs)).toBe(false);
  });
});
