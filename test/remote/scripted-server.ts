/**
 * A real HTTP server on 127.0.0.1 whose answers a test scripts, one call of `answer` per request; it
 * records every request it saw (method, path, query, headers, body bytes).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  /** The path without the query, e.g. `/v1/brands/1/channels`. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body read as JSON, or undefined when it is empty or not JSON. */
  json: unknown;
}

export type Reply =
  | { status: number; body?: unknown; text?: string; headers?: Record<string, string> }
  /** Never answer: the client's timeout must act. */
  | 'hang'
  /** Drop the connection without an answer: a network error for the client. */
  | 'drop';

export interface ScriptedServer {
  /** The base URL a client is given, ending in /v1. */
  baseUrl: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export const API_KEY = 'remote-test-key-7f3a9c1e5b';

/** `{ status: 'success', data }` */
export const ok = (data: unknown, status = 200): Reply => ({ status, body: { status: 'success', data } });

export async function startScriptedServer(
  answer: (request: SeenRequest, index: number) => Reply | Promise<Reply>,
): Promise<ScriptedServer> {
  const requests: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
      } catch {
        json = undefined;
      }
      const seen: SeenRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body,
        json,
      };
      requests.push(seen);
      const reply = await answer(seen, requests.length - 1);
      if (reply === 'hang') return;
      if (reply === 'drop') {
        req.socket.destroy();
        return;
      }
      const text = reply.text ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
      res.writeHead(reply.status, {
        'content-type': reply.text === undefined ? 'application/json' : 'text/html',
        ...reply.headers,
      });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 that nothing listens on (it was just released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// ---------------------------------------------------------------- resources as a server sends them

export const T = '2026-11-21T12:00:00.000000Z';

export const USER = { id: 'usr_demo', name: 'Demo User', joinedAt: T, timezone: 'America/New_York' };
export const BRAND = {
  id: 1,
  title: 'Northwind Coffee',
  description: null,
  timezone: 'America/New_York',
  createdAt: T,
  updatedAt: T,
};
export const CHANNEL = {
  id: 3,
  name: 'Northwind on Threads',
  status: 'ACTIVE',
  type: 'Threads',
  createdAt: T,
  updatedAt: T,
};
export const COLLECTION = {
  id: 2,
  title: 'Visual',
  description: 'Picture platforms',
  status: 'ACTIVE',
  createdAt: T,
  updatedAt: T,
  channels: [CHANNEL],
};
export const POST = {
  id: 7,
  brandId: 1,
  collectionId: 2,
  status: 'scheduled',
  publishMode: 'SCHEDULE',
  timezone: 'America/New_York',
  scheduledAt: '2026-11-24 09:00:00',
  dueAt: '2026-11-24T14:00:00.000000Z',
  content: { caption: 'Fresh roast', media: [{ url: 'https://example.com/a.png' }] },
  deliveries: [
    {
      id: 11,
      channelId: 3,
      channelName: 'Northwind on Threads',
      channelType: 'Threads',
      status: 'pending',
      reason: null,
      notes: [],
      content: null,
      externalId: null,
      attempts: 0,
      sentAt: null,
      comment: { status: 'none', dueAt: null, sentAt: null, reason: null },
    },
  ],
  createdAt: T,
  updatedAt: T,
  publishedAt: null,
};
export const QUEUE = {
  brandId: 1,
  timezone: 'America/New_York',
  localNow: '2026-11-21 07:00:00',
  now: T,
  queueTimes: ['09:00', '12:00', '17:00'],
  nextSlots: [{ scheduledAt: '2026-11-21 09:00:00', at: '2026-11-21T14:00:00.000000Z' }],
  queued: [],
};

/** A list body with the page URLs a server adds (the client drops them). */
export function listBody(
  data: unknown[],
  pagination = { currentPage: 1, perPage: 10, total: 1, lastPage: 1 },
) {
  return {
    status: 'success',
    data,
    pagination: { ...pagination, nextPageUrl: null, prevPageUrl: null },
  };
}
