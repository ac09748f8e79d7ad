/**
 * The media tests' world: a real store and media directory in a temporary data directory, a service
 * whose URL downloader may reach 127.0.0.1 (and nothing else private), real loopback HTTP servers, and
 * inspection of what an upload left behind: staging files, stored files, media rows (read through a
 * second SQLite connection) and descriptors this process still holds on staging files.
 */
import { existsSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { expect } from 'vitest';
import { UrlDownloader, type UrlDownloaderOptions } from '../../src/media/url-download.js';
import { resolveLocalUser } from '../../src/service/acting-user.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

export const TYPE_MESSAGE = 'The media must be a file of type: png, jpg, jpeg, mp4, mov, pdf.';
export const REQUIRED_MESSAGE = 'The media field is required.';
export const TOO_LARGE_MESSAGE = 'The media file may not be greater than 100 megabytes.';
export const MiB = 1024 * 1024;

export interface MediaWorld {
  rt: TestRuntime;
  dataDir: string;
  downloader: UrlDownloader;
  /** As in stdio mode: paths allowed, url downloads may reach 127.0.0.1. */
  service: LocalPublishingService;
  /** The service with another downloader (or none), still acting as the demo user. */
  serviceWith(deps: { downloader?: UrlDownloader; allowLocalPaths?: boolean }): LocalPublishingService;
  stagingEntries(): string[];
  /** Bytes in staging files, all together. */
  stagingBytes(): number;
  /** Files kept under media/<brandId>/. */
  storedFiles(): string[];
  /** Rows of the media table, counted through a second connection to the SQLite file. */
  mediaRows(): number;
  /** Descriptors of this process open on staging files (deleted or not). */
  openStagingDescriptors(): string[];
  close(): Promise<void>;
}

export async function openMediaWorld(options: UrlDownloaderOptions = {}): Promise<MediaWorld> {
  const rt = await openTestRuntime();
  const user = await resolveLocalUser(rt.runtime.store, undefined);
  const downloader = new UrlDownloader({ allow: ['127.0.0.1'], ...options });
  const extra: UrlDownloader[] = [];
  const serviceWith: MediaWorld['serviceWith'] = (deps) => {
    if (deps.downloader) extra.push(deps.downloader);
    return new LocalPublishingService(
      { ...rt.runtime, allowLocalPaths: deps.allowLocalPaths ?? true, downloader: deps.downloader },
      user,
    );
  };
  const mediaDir = join(rt.dataDir, 'media');
  const staging = join(mediaDir, 'staging');
  return {
    rt,
    dataDir: rt.dataDir,
    downloader,
    service: serviceWith({ downloader }),
    serviceWith,
    stagingEntries: () => readdirSync(staging),
    stagingBytes: () =>
      readdirSync(staging).reduce(
        (sum, entry) => sum + (statSync(join(staging, entry), { throwIfNoEntry: false })?.size ?? 0),
        0,
      ),
    storedFiles: () =>
      readdirSync(mediaDir)
        .filter((entry) => entry !== 'staging')
        .flatMap((brand) => readdirSync(join(mediaDir, brand)).map((file) => `${brand}/${file}`)),
    mediaRows() {
      const db = openDatabase(join(rt.dataDir, DATABASE_FILE));
      try {
        return Number((db.prepare('SELECT COUNT(*) AS n FROM media').get() as { n: number | bigint }).n);
      } finally {
        db.close();
      }
    },
    openStagingDescriptors() {
      const fds = '/proc/self/fd';
      if (!existsSync(fds)) return [];
      const held: string[] = [];
      for (const fd of readdirSync(fds)) {
        try {
          const target = readlinkSync(join(fds, fd));
          if (target.startsWith(staging)) held.push(target);
        } catch {
          // closed while listing
        }
      }
      return held;
    },
    async close() {
      await Promise.all([downloader, ...extra].map((d) => d.close().catch(() => undefined)));
      await rt.close();
    },
  };
}

/** Asserts a rejected upload kept nothing: no staging file, no stored file, no row, no open descriptor. */
export async function expectNothingKept(world: MediaWorld, rows = 0): Promise<void> {
  // A descriptor is closed asynchronously after the call settles: give it a moment, bounded.
  await waitFor(() => world.openStagingDescriptors().length === 0, 2000).catch(() => undefined);
  expect(world.stagingEntries()).toEqual([]);
  expect(world.openStagingDescriptors()).toEqual([]);
  expect(world.mediaRows()).toBe(rows);
  expect(world.storedFiles()).toHaveLength(rows);
}

/** Polls `condition` every 10 ms; rejects after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** A real HTTP server on loopback (127.0.0.1, or ::1) that answers each path with a handler and records
 * what it was asked. */
export interface LoopbackServer {
  port: number;
  /** http://127.0.0.1:<port> or http://[::1]:<port> */
  origin: string;
  url(path: string): string;
  route(path: string, handler: Handler): void;
  requests: string[];
  /** Sockets whose client went away (closed); counted to show a download was stopped. */
  closedResponses: number;
  close(): Promise<void>;
}

export async function startLoopbackServer(host: '127.0.0.1' | '::1' = '127.0.0.1'): Promise<LoopbackServer> {
  const routes = new Map<string, Handler>();
  const sockets = new Set<Socket>();
  const state = { requests: [] as string[], closedResponses: 0 };
  const server: Server = createServer((req, res) => {
    state.requests.push(req.url ?? '');
    res.on('close', () => {
      if (!res.writableFinished) state.closedResponses++;
    });
    const handler = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    Promise.resolve(handler(req, res)).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const origin = host === '::1' ? `http://[::1]:${port}` : `http://127.0.0.1:${port}`;
  return {
    port,
    origin,
    url: (path) => `${origin}${path}`,
    route: (path, handler) => routes.set(path, handler),
    get requests() {
      return state.requests;
    },
    get closedResponses() {
      return state.closedResponses;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers with these bytes and their true length. */
export function serveBytes(bytes: Uint8Array, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-length': String(bytes.length), ...headers });
    res.end(bytes);
  };
}

/**
 * Writes `head` then zeros up to `size` bytes in 1 MiB pieces, waiting for the client to drain each:
 * nothing of the size is ever held in memory. Stops when the client goes away.
 */
export async function streamBody(res: ServerResponse, head: Uint8Array, size: number): Promise<void> {
  const zeros = Buffer.alloc(MiB);
  let left = size - head.length;
  if (!res.write(head)) await drained(res);
  while (left > 0 && !res.destroyed) {
    const n = Math.min(left, zeros.length);
    left -= n;
    if (!res.write(n === zeros.length ? zeros : zeros.subarray(0, n))) await drained(res);
  }
  if (!res.destroyed) res.end();
}

/** Resolves when a writer can take more, or has gone away. */
function drained(writer: ServerResponse | Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      writer.off('drain', done);
      writer.off('close', done);
      resolve();
    };
    writer.on('drain', done);
    writer.on('close', done);
  });
}

/** A bare TCP server on 127.0.0.1 that answers each request with whatever `respond` writes: for framings
 * node:http will not produce (no length and no chunking, a length that lies). */
export async function startRawServer(
  respond: (socket: Socket) => void | Promise<void>,
): Promise<{ url(path: string): string; connections: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const state = { connections: 0 };
  const server = createNetServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', () => {
      Promise.resolve(respond(socket)).catch(() => socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    get connections() {
      return state.connections;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes `head` then zeros up to `size` bytes on a raw socket, with backpressure, then ends it. */
export async function streamRaw(socket: Socket, head: Uint8Array, size: number): Promise<void> {
  const zeros = Buffer.alloc(MiB);
  let left = size - head.length;
  socket.write(head);
  while (left > 0 && !socket.destroyed) {
    const n = Math.min(left, zeros.length);
    left -= n;
    if (!socket.write(n === zeros.length ? zeros : zeros.subarray(0, n))) await drained(socket);
  }
  if (!socket.destroyed) socket.end();
}

/**
 * Records the uncaught exceptions of this process while `work` runs (and `settleMs` after): in the
 * server such an exception ends the process. Vitest reports them too; this names the test.
 */
export async function uncaughtDuring(work: () => Promise<void>, settleMs = 200): Promise<string[]> {
  const uncaught: string[] = [];
  const record = (error: unknown) => uncaught.push((error as { code?: string }).code ?? String(error));
  process.prependListener('uncaughtException', record);
  try {
    await work();
    await new Promise((resolve) => setTimeout(resolve, settleMs));
  } finally {
    process.removeListener('uncaughtException', record);
  }
  return uncaught;
}
