/**
 * The fake-platform kit: one loopback HTTP server (127.0.0.1, a free port) that a platform stand-in
 * declares its endpoints and its error bodies to, and that does the rest alike for every platform:
 *
 * - a request log: every request in order, with its parsed body, when it came and when (whether) it was
 *   answered, and with what status;
 * - scripted trouble (trouble.ts) for the next requests of a route or of any route: a failure, a 429
 *   with the platform's headers, no answer (or a late one), a request carried out whose answer is lost
 *   (or is a failure), a connection cut, a platform that goes away after answering;
 * - credentials (credentials.ts): a route marked `auth` is refused the platform's way unless the
 *   request carries a credential that works, and `revoke()` makes one (or all) stop working;
 * - rate-limit counters per account (rate-limits.ts), sent as the platform's headers on every answer;
 * - `latencyMs` before every answer;
 * - a clean close: the sockets of requests left hanging are destroyed, late answers dropped.
 *
 * A platform's stand-in (mastodon-server.ts, telegram-server.ts, bluesky-xrpc-server.ts) only says
 * what its endpoints do and how its errors read.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CredentialProblem, Credentials } from './credentials.js';
import { type RateLimitOptions, type RateLimitState, RateLimits } from './rate-limits.js';
import { type RequestBody, readRequestBody } from './request-body.js';
import { compilePattern } from './routes.js';
import { isBefore, TroubleScript, type TroubleTarget } from './trouble.js';

export type { CredentialProblem } from './credentials.js';
export type { RateLimitState } from './rate-limits.js';
export { nestedFields, type RequestBody, type UploadedFile } from './request-body.js';
export type { TroubleTarget } from './trouble.js';

/** What a handler returns to leave a request without an answer. */
export const NO_ANSWER: unique symbol = Symbol('no answer');

/**
 * What a handler returns to cut the connection after carrying out part of the request (a resumable
 * upload that kept some bytes): the client sees the connection reset, with no answer.
 */
export const CUT_CONNECTION: unique symbol = Symbol('cut connection');

export interface FakeAnswer {
  status: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; text or bytes as they are. */
  body?: unknown;
}

export type HandlerResult = FakeAnswer | typeof NO_ANSWER | typeof CUT_CONNECTION;

/** One request, as the handler sees it and as the log keeps it. */
export interface FakeRequest {
  method: string;
  /** The URL's path as sent. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: RequestBody;
  /** The pattern of the route it matched (`/api/v1/media/:id`); undefined when none did. */
  route: string | undefined;
  params: Record<string, string>;
  receivedAt: number;
  /** When its answer went out; null until then, and for good when none did. */
  answeredAt: number | null;
  status: number | null;
  /** Its account's rate limit after it, when the platform keeps one and the request named an account. */
  rateLimit?: RateLimitState;
}

export interface FakeRoute {
  method: string;
  /** A pattern: `/api/v1/statuses`, `/api/v1/media/:id`, `/bot:token/:method`. */
  path: string;
  /** Refused with `errors.unauthorized` unless `tokenOf` finds a credential that works. */
  auth?: boolean;
  handle(request: FakeRequest): HandlerResult | Promise<HandlerResult>;
}

/** How the platform words its errors. */
export interface PlatformErrors {
  /** A failure of this status (failNext); `said` is the platform's message when the test gives one. */
  failure(status: number, said?: string): FakeAnswer;
  /** A 429, with the platform's headers. */
  rateLimited(wait: { retryAfterSeconds?: number; resetAtMs: number }): FakeAnswer;
  /** A credential missing, unknown or revoked. */
  unauthorized(problem: CredentialProblem, request: FakeRequest): FakeAnswer;
  /** A path no route takes. */
  notFound(request: FakeRequest): FakeAnswer;
}

export interface PlatformDeclaration {
  routes: FakeRoute[];
  /** Default: `{ error: <message> }` bodies, a plain 401, 404 and 429. */
  errors?: PlatformErrors;
  /** Where a request carries its credential (a bearer token, a token in the path). */
  tokenOf?(request: FakeRequest): string | undefined;
  /** The account a request counts against for rate limits; default: its credential. */
  accountOf?(request: FakeRequest): string | undefined;
  /** Rate-limit counters per account, and their headers on every answer. None by default. */
  rateLimit?: RateLimitOptions;
  /** The platform's clock (rate-limit resets, the log's times). Default Date.now. */
  now?: () => number;
  /** Wait before every answer. Default 0. */
  latencyMs?: number;
  /** Multipart files are cut at this many bytes (`truncated`). */
  fileSizeLimit?: number;
}

export interface RateLimitWait {
  /** A Retry-After (or the platform's equivalent) of this many seconds. */
  retryAfterSeconds?: number;
  /** When the platform gives the requests back. Default 60. */
  resetInSeconds?: number;
  /** Headers added to (or replacing) the platform's. */
  headers?: Record<string, string>;
}

export interface FakePlatform {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  log: FakeRequest[];
  credentials: Credentials;
  rateLimits: RateLimits;
  /** Wait before every answer; may be changed at any time. */
  latencyMs: number;
  /** The logged requests that matched `route` (and `method`). */
  requestsTo(route: string, method?: string): FakeRequest[];
  /** The next requests fail with `status`: `body` the platform's message (worded its way) or a JSON body. */
  failNext(status: number, body?: string | object, target?: TroubleTarget): void;
  /** The next requests get the platform's 429. */
  rateLimitNext(wait?: RateLimitWait, target?: TroubleTarget): void;
  /** The next requests get exactly this answer. */
  answerNext(answer: FakeAnswer, target?: TroubleTarget): void;
  /** The next requests are never answered nor carried out ('forever'), or carried out and answered late. */
  hang(ms: number | 'forever', target?: TroubleTarget): void;
  /** The next requests that succeed are carried out (the status created) and then never answered. */
  hangAfterCreating(target?: TroubleTarget): void;
  /** The next requests that succeed are carried out, and then answered with a failure instead. */
  failAfterCreating(status: number, body?: string | object, target?: TroubleTarget): void;
  /** The connection of the next requests is cut once they arrive: no answer, nothing carried out. */
  dropNext(target?: TroubleTarget): void;
  /** The next request is carried out and answered, and then the platform goes away (connections refused). */
  closeAfterAnswering(target?: TroubleTarget): void;
  /** The credential stops working (every credential when none is named): 401 the platform's way. */
  revoke(secret?: string): void;
  close(): Promise<void>;
}

/** The errors of a platform that declares none of its own. */
const PLAIN_ERRORS: PlatformErrors = {
  failure: (status, said) => ({ status, body: { error: said ?? `HTTP ${status}` } }),
  rateLimited: ({ retryAfterSeconds }) => ({
    status: 429,
    ...(retryAfterSeconds === undefined ? {} : { headers: { 'retry-after': String(retryAfterSeconds) } }),
    body: { error: 'Too many requests' },
  }),
  unauthorized: (problem) => ({ status: 401, body: { error: `The credential is ${problem}` } }),
  notFound: () => ({ status: 404, body: { error: 'Not found' } }),
};

export async function startFakePlatform(declaration: PlatformDeclaration): Promise<FakePlatform> {
  const now = declaration.now ?? Date.now;
  const routes = declaration.routes.map((route) => ({ route, pattern: compilePattern(route.path) }));
  const errors = declaration.errors ?? PLAIN_ERRORS;
  const log: FakeRequest[] = [];
  const troubles = new TroubleScript();
  const credentials = new Credentials();
  const rateLimits = new RateLimits(declaration.rateLimit, now);
  const timers = new Set<NodeJS.Timeout>();
  let closing: Promise<void> | undefined;
  const failure = (status: number, body?: string | object): FakeAnswer =>
    typeof body === 'object' && body !== null ? { status, body } : errors.failure(status, body);

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  /** The request as logged, and the route that takes it. */
  async function receive(req: IncomingMessage): Promise<{ request: FakeRequest; route?: FakeRoute }> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const request: FakeRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: await readRequestBody(req, declaration.fileSizeLimit),
      route: undefined,
      params: {},
      receivedAt: now(),
      answeredAt: null,
      status: null,
    };
    for (const { route, pattern } of routes) {
      const params = route.method === request.method ? pattern.match(request.path) : undefined;
      if (!params) continue;
      request.route = route.path;
      request.params = params;
      return { request, route };
    }
    return { request };
  }

  /** Sends the answer after the latency; resolves once it is written (or dropped: closing, client gone). */
  async function send(res: ServerResponse, request: FakeRequest, answer: FakeAnswer): Promise<void> {
    const headers: Record<string, string> = {
      ...(request.rateLimit ? rateLimits.headersOf(request.rateLimit) : {}),
      ...answer.headers,
    };
    let payload: string | Buffer = '';
    if (typeof answer.body === 'string' || Buffer.isBuffer(answer.body)) payload = answer.body;
    else if (answer.body !== undefined) {
      payload = JSON.stringify(answer.body);
      headers['content-type'] ??= 'application/json';
    }
    await wait(handle.latencyMs);
    if (closing || res.destroyed) return;
    res.writeHead(answer.status, headers);
    await new Promise<void>((resolve) => res.end(payload, resolve));
    request.answeredAt = now();
    request.status = answer.status;
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { request, route } = await receive(req);
    log.push(request);
    // A path no route takes meets no trouble: the platform answers it as it does.
    if (!route) return send(res, request, errors.notFound(request));
    const before = troubles.next(route.path);
    if (before && isBefore(before)) {
      troubles.take(route.path);
      if (before.kind === 'answer') return send(res, request, before.answer);
      if (before.kind === 'drop') return void res.socket?.destroy();
      if (before.ms === 'forever') return;
      await wait(before.ms);
      if (closing) return;
    }
    const account = declaration.accountOf?.(request) ?? declaration.tokenOf?.(request);
    const counted = account === undefined ? undefined : rateLimits.count(account);
    if (counted) request.rateLimit = counted.state;
    if (counted?.over) return send(res, request, errors.rateLimited({ resetAtMs: counted.state.resetAtMs }));
    const problem = route.auth ? credentials.problemOf(declaration.tokenOf?.(request)) : undefined;
    const answer = problem ? errors.unauthorized(problem, request) : await route.handle(request);
    if (answer === NO_ANSWER) return;
    if (answer === CUT_CONNECTION) return void res.socket?.destroy();
    // Looked up again: other requests may have met the trouble while this one was carried out.
    const after = troubles.next(route.path);
    if (after?.kind === 'close-after') {
      troubles.take(route.path);
      await send(res, request, answer);
      return handle.close();
    }
    if (after?.kind === 'after-success' && answer.status >= 200 && answer.status < 300) {
      troubles.take(route.path);
      return after.answer ? send(res, request, after.answer) : undefined;
    }
    return send(res, request, answer);
  }

  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      if (res.headersSent || res.destroyed) return;
      const answer = errors.failure(500, String(error));
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  const handle: FakePlatform = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    credentials,
    rateLimits,
    latencyMs: declaration.latencyMs ?? 0,
    requestsTo: (route, method) =>
      log.filter((request) => request.route === route && (method === undefined || request.method === method)),
    failNext: (status, body, target) =>
      troubles.add({ kind: 'answer', answer: failure(status, body) }, target),
    rateLimitNext(limited = {}, target) {
      const resetAtMs = now() + (limited.resetInSeconds ?? 60) * 1000;
      const answer = errors.rateLimited({ retryAfterSeconds: limited.retryAfterSeconds, resetAtMs });
      troubles.add(
        { kind: 'answer', answer: { ...answer, headers: { ...answer.headers, ...limited.headers } } },
        target,
      );
    },
    answerNext: (answer, target) => troubles.add({ kind: 'answer', answer }, target),
    hang: (ms, target) => troubles.add({ kind: 'hang', ms }, target),
    hangAfterCreating: (target) => troubles.add({ kind: 'after-success' }, target),
    failAfterCreating: (status, body, target) =>
      troubles.add({ kind: 'after-success', answer: failure(status, body) }, target),
    dropNext: (target) => troubles.add({ kind: 'drop' }, target),
    closeAfterAnswering: (target) => troubles.add({ kind: 'close-after' }, target),
    revoke: (secret) => credentials.revoke(secret),
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        troubles.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closing;
    },
  };
  return handle;
}
