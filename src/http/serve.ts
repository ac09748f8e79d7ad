/**
 * `serve`: one HTTP listener with the REST API under /v1 and MCP (Streamable HTTP) at /mcp, both
 * authenticated with the same API keys, and GET /health (health.ts) without a key. Bound to loopback, it
 * refuses other Host and Origin headers (DNS rebinding). Failed keys are throttled per client address
 * across both (auth-throttle.ts). SIGTERM/SIGINT stop it gracefully: /health turns to 503, then no new
 * requests, and the ones under way finish. A post planned here wakes this process's engine; the
 * transaction that planned it tells the other processes on the store (Store.announcePlanChange).
 */
import type { AddressInfo } from 'node:net';
import { serve as serveNode } from '@hono/node-server';
import { Hono } from 'hono';
import type { Config } from '../config.js';
import { isStorageFault, NotFoundError, toErrorBody, UnauthenticatedError } from '../domain/errors.js';
import type { LocalRuntime } from '../local-runtime.js';
import type { InFlightCalls } from '../mcp/in-flight.js';
import type { PublishingEventFeed, PublishingLog } from '../mcp/logging.js';
import { createMcpServer } from '../mcp/server.js';
import { McpHttpSessions } from '../mcp/streamable-http.js';
import type { ToolSelection } from '../mcp/toolsets.js';
import type { MediaAddresses } from '../media/public-addresses.js';
import type { ServerSignIns } from '../oauth/server-sign-in.js';
import type { OpenedMedia, UserRecord } from '../ports.js';
import type { PublishingEngine } from '../publish/engine.js';
import { createRestApp } from '../rest/app.js';
import { presentedKey } from '../rest/auth.js';
import { errorResponse, routeNotFound } from '../rest/errors.js';
import { authenticate, canSeeBrand } from '../service/acting-user.js';
import { LocalPublishingService } from '../service/local-service.js';
import {
  type Admission,
  AuthThrottle,
  type AuthThrottleOptions,
  clientAddress,
  tooManyAttemptsResponse,
} from './auth-throttle.js';
import { HealthCheck } from './health.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127(?:\.\d{1,3}){3}$/.test(host);
}

function hostnameOf(hostHeader: string): string {
  return hostHeader.startsWith('[')
    ? hostHeader.slice(0, hostHeader.indexOf(']') + 1)
    : hostHeader.split(':')[0]!;
}

export interface HttpApp {
  app: Hono;
  sessions: McpHttpSessions;
  /** GET /health; `beginShutdown()` turns it to 503. */
  health: HealthCheck;
}

export function createHttpApp(options: {
  runtime: LocalRuntime;
  engine?: PublishingEngine;
  /** The engine's events: each MCP session hears those of its user's brands. */
  events?: PublishingEventFeed;
  version: string;
  /** Refuse Host and Origin headers that are not loopback names. */
  loopbackOnly: boolean;
  log: (message: string, error: unknown) => void;
  idleTimeoutMs?: number;
  /** MCP sessions one user may have open at once (default 100). */
  maxMcpSessionsPerUser?: number;
  /** Limits of the failed-key throttle, shared by /v1 and /mcp (defaults: 20 failures per 60 s). */
  authThrottle?: AuthThrottleOptions;
  /** Which MCP tools /mcp offers (default: all); the REST API is not affected. */
  tools?: ToolSelection;
  /** Sign-ins completed on /oauth/callback (with SOCIAL_PUBLISHER_PUBLIC_URL); absent: none. */
  signIns?: ServerSignIns;
  /** Signed addresses of uploaded media served on /media/<token> (with SOCIAL_PUBLISHER_PUBLIC_URL). */
  mediaAddresses?: MediaAddresses;
  /** The public URL's host: answered although not a loopback name (a reverse proxy's Host). */
  publicHost?: string;
}): HttpApp {
  const { runtime } = options;
  // Over HTTP the caller is not on this machine: an upload path would read the server's files.
  const deps = {
    ...runtime,
    // The other instances were told by the transaction that planned the post (announcePlanChange).
    onPlanChanged: () => options.engine?.scheduler.wake(),
    allowLocalPaths: false,
    signIns: options.signIns && (async () => options.signIns!),
    // Signed addresses on /media, or the media store's own (object storage: runtime.publicMedia).
    publicMedia: options.mediaAddresses !== undefined || runtime.publicMedia === true,
  };
  const health = new HealthCheck({ store: runtime.store, engine: options.engine, log: options.log });
  const serviceFor = (user: UserRecord) => new LocalPublishingService(deps, user);
  const throttle = new AuthThrottle(options.authThrottle);
  const publishingLogOf = (user: UserRecord): PublishingLog | undefined =>
    options.events && {
      feed: options.events,
      canSeeBrand: (brandId) => canSeeBrand(runtime.store, user, brandId),
    };
  // Shared by every instance on the store: any of them may take the answer to another's question.
  const requestStateKey = runtime.secrets.derive('mcp request state');
  const sessions = new McpHttpSessions({
    createServer: (user, inFlight: InFlightCalls, era) =>
      createMcpServer(serviceFor(user), {
        name: 'social-publisher-mcp',
        version: options.version,
        log: options.log,
        inFlight,
        ...(options.tools ? { tools: options.tools } : {}),
        publishes: options.events !== undefined,
        // A 2026-07-28 server lives for one request: the endpoint's bus passes events on instead.
        publishingLog: era === 'legacy' ? publishingLogOf(user) : undefined,
        era,
        requestStateKey,
        principal: user.id,
      }),
    publishingLogOf,
    idleTimeoutMs: options.idleTimeoutMs,
    maxSessionsPerUser: options.maxMcpSessionsPerUser,
  });
  const app = new Hono();
  // A mounted app's handlers do not apply to the parent: errors and unknown routes are answered here.
  app.onError((error, c) => errorResponse(c, error, options.log));
  app.notFound(routeNotFound);
  if (options.loopbackOnly) {
    app.use('*', async (c, next) => {
      const host = hostnameOf(c.req.header('host') ?? '');
      const origin = c.req.header('origin');
      let originHost = host;
      if (origin !== undefined) {
        try {
          originHost = new URL(origin).hostname;
        } catch {
          originHost = '';
        }
      }
      const allowed = (name: string) => isLoopback(name) || name === options.publicHost;
      if (!allowed(host) || !allowed(originHost === '::1' ? '[::1]' : originHost)) {
        return c.json(
          {
            status: 'error',
            message: 'Forbidden.',
            errors: { host: 'This server only answers to localhost.' },
          },
          403,
        );
      }
      await next();
    });
  }
  app.get('/health', async (c) => {
    const { code, body } = await health.check();
    return c.json(body, code, { 'cache-control': 'no-store' });
  });
  app.all('/mcp', async (c) => {
    const apiKey = presentedKey(c.req.header('authorization'));
    let admission: Admission<UserRecord>;
    try {
      admission = await throttle.authenticate(clientAddress(c.env), apiKey, () =>
        authenticate(runtime.store, apiKey),
      );
    } catch (error) {
      if (!(error instanceof UnauthenticatedError)) throw error;
      return c.json(toErrorBody(error), 401, { 'www-authenticate': 'Bearer' });
    }
    if (!admission.admitted) return tooManyAttemptsResponse(admission.retryAfterSeconds);
    return sessions.handle(c.req.raw, admission.value);
  });
  // A platform fetching an uploaded file by its signed address: that file, and nothing else.
  app.on(['GET', 'HEAD'], '/media/:token', async (c) => {
    const addresses = options.mediaAddresses;
    // Whatever is refused answers as an unknown route does: a token reveals nothing by its answer.
    if (!addresses) return routeNotFound(c);
    const checked = addresses.check(c.req.param('token'), runtime.clock.now());
    if (!checked.ok && checked.reason === 'expired') {
      const body = toErrorBody(
        new NotFoundError('media', 'This media address has expired: ask for the post again.'),
      );
      return c.json(body, 410, { 'cache-control': 'no-store' });
    }
    if (!checked.ok) return routeNotFound(c);
    const { brandId, mediaId } = checked.media;
    const [media] = await runtime.store.findMedia(brandId, [mediaId]);
    if (!media) return routeNotFound(c);
    const opened = await runtime.media.open(brandId, media.id, media.type);
    const headers = {
      'content-type': media.type,
      'content-length': String(opened.blob.size),
      'cache-control': 'private, no-transform',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
    };
    if (c.req.method === 'HEAD') {
      await opened.release();
      return c.body(null, 200, headers);
    }
    return c.body(releasedWhenRead(opened), 200, headers);
  });
  // The platform sends the browser here after the user approved (or refused) the app: a page for a
  // person, never a token or a code in it.
  app.get('/oauth/callback', async (c) => {
    const page = (status: 200 | 400, text: string) =>
      c.text(text, status, { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    // Without a public URL there is no such page: an unknown route, as any other.
    if (!options.signIns) return routeNotFound(c);
    try {
      const channel = await options.signIns.complete(c.req.url);
      return page(
        200,
        `Connected: ${channel.connection.account ?? channel.name} is the channel "${channel.name}" (id ${channel.id}). You can close this tab.`,
      );
    } catch (error) {
      if (!(error instanceof Error) || isStorageFault(error)) throw error;
      return page(400, `Not connected: ${error.message}`);
    }
  });
  app.route(
    '/',
    createRestApp({
      authenticate: (key) => authenticate(runtime.store, key),
      serviceFor,
      log: options.log,
      authThrottle: throttle,
    }),
  );
  return { app, sessions, health };
}

export interface RunningServer {
  url: string;
  /** Stops accepting, lets requests under way finish, closes sessions. */
  close(): Promise<void>;
}

export async function listen(http: HttpApp, config: Pick<Config, 'host' | 'port'>): Promise<RunningServer> {
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve, reject) => {
    const started = serveNode({ fetch: http.app.fetch, hostname: config.host, port: config.port }, () =>
      resolve(started),
    );
    started.once('error', reject);
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    async close() {
      http.health.beginShutdown();
      const node = server as import('node:http').Server;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      node.closeIdleConnections();
      await http.sessions.closeAll();
      // Sessions closed their event streams; connections now idle go, requests still running may finish.
      node.closeIdleConnections();
      const idle = setInterval(() => node.closeIdleConnections(), 100);
      const force = setTimeout(() => node.closeAllConnections(), 10_000);
      await closed;
      clearInterval(idle);
      clearTimeout(force);
    },
  };
}

/** A stored file's bytes, released once read to the end or abandoned by the client. */
function releasedWhenRead(opened: OpenedMedia): ReadableStream<Uint8Array> {
  const reader = (opened.blob.stream() as ReadableStream<Uint8Array>).getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (!done) return controller.enqueue(value);
      controller.close();
      await opened.release();
    },
    async cancel(reason) {
      await reader.cancel(reason);
      await opened.release();
    },
  });
}
