/**
 * A load balancer for tests, following the rules docs/deploy.md gives for a real one (its HAProxy
 * example does the same): requests without an `Mcp-Session-Id` header (REST, /health, an MCP initialize)
 * go round-robin to the instances whose GET /health last answered 200; an MCP request with a session id
 * goes to the instance that answered the initialize which created that session, learned from the
 * `Mcp-Session-Id` header of its response (stickiness on the header), while that instance is healthy,
 * else round-robin too; a request an instance refuses to connect goes to another. Answers stream through
 * (MCP's event streams included). With `sticky: false`, every request goes round-robin.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Balancer {
  url: string;
  /** Which instance (its URL) holds each MCP session, as learned from the answers. */
  sessions: Map<string, string>;
  close(): Promise<void>;
}

export async function startBalancer(
  instances: () => string[],
  options: { sticky: boolean; healthEveryMs?: number },
): Promise<Balancer> {
  const sessions = new Map<string, string>();
  const healthy = new Set<string>(instances());
  let next = 0;
  const checkHealth = async () => {
    await Promise.all(
      instances().map(async (url) => {
        try {
          const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
          await response.body?.cancel();
          if (response.status === 200) healthy.add(url);
          else healthy.delete(url);
        } catch {
          healthy.delete(url);
        }
      }),
    );
  };
  // One check at a time: an answer that arrives late must not undo a newer one.
  let checking = true;
  const checks = (async () => {
    while (checking) {
      await checkHealth();
      await new Promise((resolve) => setTimeout(resolve, options.healthEveryMs ?? 200));
    }
  })();

  const choose = (request: IncomingMessage, tried: ReadonlySet<string>): string | undefined => {
    const session = request.headers['mcp-session-id'];
    const home = typeof session === 'string' ? sessions.get(session) : undefined;
    // A session's instance, while it is up; else anywhere (HAProxy's `option redispatch`).
    if (options.sticky && home && healthy.has(home) && !tried.has(home)) return home;
    const candidates = instances().filter((url) => healthy.has(url) && !tried.has(url));
    if (candidates.length === 0) return undefined;
    return candidates[next++ % candidates.length];
  };

  /**
   * The body is read first (MCP's and REST's are small here), so that a request an instance refused to
   * connect goes to another one (HAProxy's `retries` with `option redispatch`).
   */
  const forward = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const tried = new Set<string>();
    for (;;) {
      const target = choose(request, tried);
      if (!target) {
        response.writeHead(503).end('no healthy instance');
        return;
      }
      tried.add(target);
      if (await send(target, request, body, response)) return;
      healthy.delete(target);
    }
  };

  /** False when the instance could not be reached (nothing was sent to the client yet). */
  const send = (target: string, request: IncomingMessage, body: Buffer, response: ServerResponse) =>
    new Promise<boolean>((resolve) => {
      const { hostname, port } = new URL(target);
      const upstream = httpRequest(
        {
          hostname,
          port,
          method: request.method,
          path: request.url,
          headers: { ...request.headers, host: `${hostname}:${port}` },
        },
        (answer) => {
          const session = answer.headers['mcp-session-id'];
          if (typeof session === 'string') sessions.set(session, target);
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
          resolve(true);
        },
      );
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (!response.headersSent && error.code === 'ECONNREFUSED') return resolve(false);
        if (!response.headersSent) response.writeHead(502);
        response.end();
        resolve(true);
      });
      response.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  const server = createServer((request, response) => void forward(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sessions,
    async close() {
      checking = false;
      await checks;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
