/**
 * MCP over Streamable HTTP, both protocol generations on one endpoint. Every request carries the API key
 * (checked by the caller, who passes the user in); bodies are bounded before they are read.
 * - 2025-11-25 and before (`initialize`, then `mcp-session-id`): one MCP server per session, acting as
 *   the user whose key opened it; a session answers only to its own user (another user's session id is
 *   unknown to them). Sessions idle for too long are closed, and a user may hold only so many at once:
 *   each holds an MCP server in memory until it is closed.
 * - 2026-07-28 (a `_meta` envelope in every request, no sessions): the SDK's handler makes a server for
 *   each request; one handler per user, whose `subscriptions/listen` streams hear that user's publishing
 *   events (resource-updates.ts).
 * The SDK's own classification tells them apart (`isLegacyRequest`). A closing endpoint waits for the
 * answers under way to be written out, not only computed.
 */
import { randomUUID } from 'node:crypto';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type McpHttpHandler,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { UserRecord } from '../ports.js';
import { InFlightCalls } from './in-flight.js';
import type { PublishingLog } from './logging.js';
import { declaresTooLarge, describeBytes, readBodyText } from './request-body.js';
import { PublishingEventBus } from './resource-updates.js';

export interface McpHttpOptions {
  /** A server acting as `user`: for one 2025 session, or for one 2026-07-28 request. */
  createServer(user: UserRecord, inFlight: InFlightCalls, era: 'legacy' | 'modern'): McpServer;
  /** The publishing events `user` may hear, where this process publishes. */
  publishingLogOf?(user: UserRecord): PublishingLog | undefined;
  idleTimeoutMs?: number;
  /** Largest request body read (default 4 MiB); larger ones get 413. */
  maxRequestBodyBytes?: number;
  /** Sessions one user may have open at once (default 100); one more `initialize` gets 429. */
  maxSessionsPerUser?: number;
}

interface Session {
  userId: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  inFlight: InFlightCalls;
  /** The session's answers being written out. */
  deliveries: InFlightCalls;
  lastSeenMs: number;
}

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/** "30 minutes", "2 seconds", "250 ms" */
function describeDuration(ms: number): string {
  const [amount, unit] =
    ms % 60_000 === 0 ? [ms / 60_000, 'minute'] : ms % 1000 === 0 ? [ms / 1000, 'second'] : [ms, ''];
  return unit ? `${amount} ${unit}${amount === 1 ? '' : 's'}` : `${amount} ms`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The 2026-07-28 endpoint of one user. */
interface ModernEndpoint {
  handler: McpHttpHandler;
  inFlight: InFlightCalls;
  deliveries: InFlightCalls;
}

/**
 * How long a closing endpoint lets the answers already computed be written out. A response stream still
 * open after that holds a question waiting for a person, which closing ends.
 */
const WRITE_OUT_MS = 1_000;

/** The response, counted in `deliveries` until its body has been written out (or abandoned). */
function delivered(response: Response, deliveries: InFlightCalls): Response {
  if (!response.body) return response;
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  deliveries.track(response.body.pipeTo(writable).catch(() => undefined));
  return new Response(readable, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

export class McpHttpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly modern = new Map<string, ModernEndpoint>();
  /** Every session of a user, counted from its creation (before its id exists) until it closes. */
  private readonly sessionsOfUser = new Map<string, Set<Session>>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly idleTimeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly maxSessionsPerUser: number;

  constructor(private readonly options: McpHttpOptions) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60_000;
    this.maxBodyBytes = options.maxRequestBodyBytes ?? 4 * 1024 * 1024;
    this.maxSessionsPerUser = options.maxSessionsPerUser ?? 100;
    this.sweeper = setInterval(() => void this.closeIdle(), Math.min(60_000, this.idleTimeoutMs));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Answers one request of `user`, whose key the caller has checked. */
  async handle(request: Request, user: UserRecord): Promise<Response> {
    if (declaresTooLarge(request, this.maxBodyBytes)) return this.tooLarge();
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = this.sessions.get(sessionId);
      // Another user's session does not exist for this one.
      if (!session || session.userId !== user.id) return jsonRpcError(404, -32001, 'Session not found');
      session.lastSeenMs = Date.now();
      if (request.method !== 'POST') return session.transport.handleRequest(request);
      const text = await readBodyText(request, this.maxBodyBytes);
      if (text === undefined) return this.tooLarge();
      const body = parseJson(text);
      if (body === undefined) return jsonRpcError(400, -32700, 'Parse error: Invalid JSON');
      return delivered(
        await session.transport.handleRequest(request, { parsedBody: body }),
        session.deliveries,
      );
    }
    if (request.method !== 'POST')
      return jsonRpcError(400, -32000, 'Bad Request: no session; send initialize first');
    const text = await readBodyText(request, this.maxBodyBytes);
    if (text === undefined) return this.tooLarge();
    const body = parseJson(text);
    if (body !== undefined && !(await isLegacyRequest(request, body))) {
      const { handler, deliveries } = this.modernEndpoint(user);
      return delivered(await handler.fetch(request, { parsedBody: body }), deliveries);
    }
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((message) => isInitializeRequest(message))) {
      return jsonRpcError(400, -32000, 'Bad Request: no valid session id; send initialize first');
    }
    const open = this.sessionsOfUser.get(user.id)?.size ?? 0;
    if (open >= this.maxSessionsPerUser) {
      return jsonRpcError(
        429,
        -32000,
        `Too many MCP sessions: this user has ${open} open MCP sessions, and the limit is ` +
          `${this.maxSessionsPerUser} per user. Idle sessions close after ${describeDuration(this.idleTimeoutMs)}; ` +
          'to end one now, send DELETE /mcp with its mcp-session-id header.',
      );
    }
    const session = await this.open(user);
    try {
      const response = await session.transport.handleRequest(request, { parsedBody: body });
      // An initialize the transport refused opened no session: its place is free again.
      if (!session.transport.sessionId) await this.close(session);
      return response;
    } catch (error) {
      await this.close(session);
      throw error;
    }
  }

  /** The user's 2026-07-28 handler, made on their first such request. */
  private modernEndpoint(user: UserRecord): ModernEndpoint {
    let endpoint = this.modern.get(user.id);
    if (!endpoint) {
      const inFlight = new InFlightCalls();
      const log = this.options.publishingLogOf?.(user);
      const handler = createMcpHandler(() => this.options.createServer(user, inFlight, 'modern'), {
        legacy: 'reject',
        maxRequestBodySize: this.maxBodyBytes,
        ...(log ? { bus: new PublishingEventBus(log) } : {}),
      });
      endpoint = { handler, inFlight, deliveries: new InFlightCalls() };
      this.modern.set(user.id, endpoint);
    }
    return endpoint;
  }

  private tooLarge(): Response {
    return jsonRpcError(
      413,
      -32000,
      `Payload Too Large: the request body may not be greater than ${describeBytes(this.maxBodyBytes)}.`,
      // The rest of the body is left unread: the connection cannot carry another request (keep-alive-413).
      { connection: 'close' },
    );
  }

  private async open(user: UserRecord): Promise<Session> {
    const inFlight = new InFlightCalls();
    const server = this.options.createServer(user, inFlight, 'legacy');
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: this.maxBodyBytes,
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
      },
      onsessionclosed: () => this.forget(session),
    });
    const session: Session = {
      userId: user.id,
      transport,
      server,
      inFlight,
      deliveries: new InFlightCalls(),
      lastSeenMs: Date.now(),
    };
    const ofUser = this.sessionsOfUser.get(user.id) ?? new Set<Session>();
    this.sessionsOfUser.set(user.id, ofUser.add(session));
    transport.onclose = () => this.forget(session);
    try {
      await server.connect(transport);
    } catch (error) {
      this.forget(session);
      throw error;
    }
    return session;
  }

  /** Drops a session from both maps, freeing its user's place; safe to call more than once. */
  private forget(session: Session): void {
    const id = session.transport.sessionId;
    if (id && this.sessions.get(id) === session) this.sessions.delete(id);
    const ofUser = this.sessionsOfUser.get(session.userId);
    ofUser?.delete(session);
    if (ofUser?.size === 0) this.sessionsOfUser.delete(session.userId);
  }

  private async close(session: Session): Promise<void> {
    this.forget(session);
    await session.server.close().catch(() => undefined);
  }

  private async closeIdle(): Promise<void> {
    const cutoff = Date.now() - this.idleTimeoutMs;
    for (const session of [...this.sessions.values()]) {
      if (session.lastSeenMs < cutoff) await this.close(session);
    }
  }

  /** Lets the calls under way finish, then closes every session. */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const sessions = [...this.sessions.values()];
    const modern = [...this.modern.values()];
    this.sessions.clear();
    this.sessionsOfUser.clear();
    this.modern.clear();
    const all = [...sessions, ...modern];
    await Promise.all(all.map((each) => each.inFlight.settled()));
    await Promise.race([
      Promise.all(all.map((each) => each.deliveries.settled())),
      new Promise((resolve) => setTimeout(resolve, WRITE_OUT_MS).unref()),
    ]);
    await Promise.all([
      ...sessions.map((session) => session.server.close().catch(() => undefined)),
      ...modern.map((endpoint) => endpoint.handler.close().catch(() => undefined)),
    ]);
  }
}
