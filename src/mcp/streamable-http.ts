/**
 * MCP over Streamable HTTP: one MCP server per session, each acting as the user whose API key opened
 * it. Every request carries the key; a session answers only to its own user (another user's session id
 * is unknown to them). Sessions idle for too long are closed.
 */
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { toErrorBody, UnauthenticatedError } from '../domain/errors.js';
import type { UserRecord } from '../ports.js';
import { InFlightCalls } from './in-flight.js';

export interface McpHttpOptions {
  /** The user an API key belongs to; throws UnauthenticatedError. */
  authenticate(apiKey: string | undefined): UserRecord;
  createServer(user: UserRecord, inFlight: InFlightCalls): McpServer;
  idleTimeoutMs?: number;
  maxRequestBodyBytes?: number;
}

interface Session {
  userId: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  inFlight: InFlightCalls;
  lastSeenMs: number;
}

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

export class McpHttpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly idleTimeoutMs: number;

  constructor(private readonly options: McpHttpOptions) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60_000;
    this.sweeper = setInterval(() => void this.closeIdle(), Math.min(60_000, this.idleTimeoutMs));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(request: Request, apiKey: string | undefined): Promise<Response> {
    let user: UserRecord;
    try {
      user = this.options.authenticate(apiKey);
    } catch (error) {
      if (!(error instanceof UnauthenticatedError)) throw error;
      return new Response(JSON.stringify(toErrorBody(error)), {
        status: 401,
        headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer' },
      });
    }
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = this.sessions.get(sessionId);
      // Another user's session does not exist for this one.
      if (!session || session.userId !== user.id) return jsonRpcError(404, -32001, 'Session not found');
      session.lastSeenMs = Date.now();
      return session.transport.handleRequest(request);
    }
    if (request.method !== 'POST')
      return jsonRpcError(400, -32000, 'Bad Request: no session; send initialize first');
    const body: unknown = await request
      .clone()
      .json()
      .catch(() => undefined);
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((message) => isInitializeRequest(message))) {
      return jsonRpcError(400, -32000, 'Bad Request: no valid session id; send initialize first');
    }
    const session = await this.open(user);
    return session.transport.handleRequest(request, { parsedBody: body });
  }

  private async open(user: UserRecord): Promise<Session> {
    const inFlight = new InFlightCalls();
    const server = this.options.createServer(user, inFlight);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: this.options.maxRequestBodyBytes ?? 4 * 1024 * 1024,
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    const session: Session = { userId: user.id, transport, server, inFlight, lastSeenMs: Date.now() };
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return session;
  }

  private async closeIdle(): Promise<void> {
    const cutoff = Date.now() - this.idleTimeoutMs;
    for (const [id, session] of this.sessions) {
      if (session.lastSeenMs < cutoff) {
        this.sessions.delete(id);
        await session.server.close().catch(() => undefined);
      }
    }
  }

  /** Lets the calls under way finish, then closes every session. */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((session) => session.inFlight.settled()));
    await Promise.all(sessions.map((session) => session.server.close().catch(() => undefined)));
  }
}
