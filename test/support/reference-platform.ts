/**
 * A small reference platform on the fake-platform kit and its connector, with every optional step
 * (prepare, confirm) and the rate limit read from each answer: what the connector contract runs on
 * (test/publish/contract-reference.test.ts), and the engine's tests of steps no real connector reaches
 * (a commit confirmed on a platform that cannot deduplicate: test/publish/confirm-steps.test.ts).
 */
import type {
  ConfirmOutcome,
  DeliveryJob,
  FailedOutcome,
  PrepareOutcome,
  Publisher,
  PublishOutcome,
} from '../../src/ports.js';
import type { ContractOpenOptions } from './connector-contract.js';
import { type FakeRequest, startFakePlatform } from './fake-platform/kit.js';

export const ACCOUNT = 'reference-account';

/**
 * The platform: uploads, posts (deduplicated by their key unless `deduplicates` is false), a lookup by
 * key. Bearer tokens.
 */
export async function startReferencePlatform(options: { deduplicates?: boolean } = {}) {
  const posts = new Map<string, { id: string; text: string }>();
  const bearerOf = (request: FakeRequest) => /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  const reset = (resetAtMs: number) => ({ 'x-ratelimit-reset-ms': String(resetAtMs) });
  const kit = await startFakePlatform({
    tokenOf: bearerOf,
    accountOf: (request) => (bearerOf(request) ? ACCOUNT : undefined),
    rateLimit: {
      limit: 100,
      windowMs: 60_000,
      headers: (state) => ({ 'x-ratelimit-remaining': String(state.remaining), ...reset(state.resetAtMs) }),
    },
    routes: [
      { method: 'POST', path: '/uploads', auth: true, handle: () => ({ status: 201, body: { id: 'u1' } }) },
      {
        method: 'POST',
        path: '/posts',
        auth: true,
        handle: (request) => {
          const key = String(request.headers['idempotency-key']);
          const { text } = request.body.json as { text: string };
          const earlier = options.deduplicates === false ? undefined : posts.get(key);
          const post = earlier ?? { id: `p${posts.size + 1}`, text };
          posts.set(options.deduplicates === false && posts.has(key) ? `${key}#${posts.size}` : key, post);
          return { status: 201, body: post };
        },
      },
      {
        method: 'GET',
        path: '/posts',
        auth: true,
        handle: (request) => {
          const post = posts.get(request.query.get('key') ?? '');
          return post ? { status: 200, body: post } : { status: 404, body: { error: 'No such post' } };
        },
      },
    ],
    errors: {
      failure: (status, said) => ({ status, body: { error: said ?? `HTTP ${status}` } }),
      rateLimited: ({ retryAfterSeconds, resetAtMs }) => ({
        status: 429,
        headers: {
          ...reset(resetAtMs),
          ...(retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) }),
        },
        body: { error: 'Slow down' },
      }),
      unauthorized: (problem) => ({ status: 401, body: { error: `Token ${problem}` } }),
      notFound: () => ({ status: 404, body: { error: 'Not found' } }),
    },
  });
  const token = kit.credentials.issue();
  return { kit, token, posts };
}

type Answer = { status: number; headers: Headers; body: Record<string, unknown> };

/** The reference connector: every failure classified in `failure`, the one place that decides. */
export class ReferencePublisher implements Publisher {
  readonly name = 'reference';

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly options: ContractOpenOptions,
    /** Whether the platform recognises a repeated post by its key. */
    readonly idempotent = true,
  ) {}

  async prepare(): Promise<PrepareOutcome> {
    const answer = await this.call('POST', '/uploads', {});
    if ('ok' in answer) return answer;
    return { ok: 'prepared', state: { uploadId: answer.body.id } };
  }

  async deliver(job: DeliveryJob): Promise<PublishOutcome> {
    const body = { text: job.content.caption, uploadId: job.state.uploadId };
    const answer = await this.call('POST', '/posts', body, job.idempotencyKey);
    if ('ok' in answer) return answer;
    const remaining = Number(answer.headers.get('x-ratelimit-remaining'));
    const resetAtMs = Number(answer.headers.get('x-ratelimit-reset-ms'));
    return { ok: true, externalId: String(answer.body.id), limit: { remaining, resetAtMs } };
  }

  async confirm(job: DeliveryJob): Promise<ConfirmOutcome> {
    const answer = await this.call('GET', `/posts?key=${encodeURIComponent(job.idempotencyKey)}`);
    if (!('ok' in answer)) return { ok: true, externalId: String(answer.body.id) };
    return answer.reason.includes('No such post') ? { ok: 'absent' } : answer;
  }

  async comment(): Promise<PublishOutcome> {
    return { ok: false, kind: 'refused', reason: 'The reference platform takes no comments.' };
  }

  private async call(
    method: string,
    path: string,
    body?: object,
    key?: string,
  ): Promise<Answer | FailedOutcome> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (body) headers['content-type'] = 'application/json';
    if (key) headers['idempotency-key'] = key;
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, {
        method,
        headers,
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      const neverSent = code === 'ECONNREFUSED';
      return this.failure(
        neverSent || path !== '/posts' ? 'transient' : 'unknown',
        `No answer (${code ?? error})`,
      );
    }
    const text = await response.text().catch(() => '');
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      if (response.ok) return this.failure('unknown', `An unreadable answer: ${text.slice(0, 100)}`);
    }
    const said = String(json.error ?? `HTTP ${response.status}`);
    if (response.status === 401) return this.failure('reconnect', `The token was refused (${said})`);
    if (response.status === 429) {
      const seconds = Number(response.headers.get('retry-after'));
      const resetAtMs = Number(response.headers.get('x-ratelimit-reset-ms'));
      const wait = seconds > 0 ? seconds * 1000 : Math.max(0, resetAtMs - Date.now());
      return { ...this.failure('rate_limited', `Rate limited (${said})`), retryAfterMs: wait };
    }
    if (response.status === 408 || response.status >= 500)
      return this.failure('transient', `Failed (${said})`);
    if (!response.ok) return this.failure('refused', `Refused: ${said}`);
    return { status: response.status, headers: response.headers, body: json };
  }

  private failure(kind: FailedOutcome['kind'], reason: string): FailedOutcome {
    const hidden = reason.replaceAll(this.token, '<secret>');
    if (kind === 'unknown') this.options.log(`reference: ${hidden}`);
    return { ok: false, kind, reason: hidden };
  }
}
