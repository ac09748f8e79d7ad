/**
 * What the conformance checks share: the built `serve` on a fresh data dir, a loopback proxy that adds
 * the bearer key (the conformance suite cannot send headers), and child processes with time limits.
 * Processes and temp dirs are cleaned up by cli-harness's `cleanup()`.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHILD_TIMEOUT_MS, childEnv, spawnMain } from '../mcp/cli-harness.js';

export interface Serve {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** The demo user's API key, printed once on a fresh data dir. */
  key: string;
  stderr(): string;
  /** SIGTERM, resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the built `serve --port 0` on `dataDir`; resolves once it printed its URL and the demo key. */
export async function startServe(dataDir: string): Promise<Serve> {
  const child = spawnMain(['serve', '--port', '0'], childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir }));
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<{ url: string; key: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), CHILD_TIMEOUT_MS);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before it was ready: ${stderr}`));
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const url = /listening on (http:\/\/\S+):/.exec(stderr)?.[1];
      const key = /(spk_[\w-]+)/.exec(stderr)?.[1];
      if (url && key) {
        clearTimeout(timer);
        resolve({ url, key });
      }
    });
  });
  return {
    ...(await ready),
    stderr: () => stderr,
    stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface AuthProxy {
  /** e.g. http://127.0.0.1:41235 */
  url: string;
  close(): Promise<void>;
}

/**
 * A loopback HTTP proxy to `target` that sets `Authorization: Bearer <key>` and changes nothing else:
 * method, path, every other header (Host and Origin included, so serve judges them itself) and both
 * bodies stream through unchanged, SSE included. It answers nothing itself except 502 when `target`
 * cannot be reached.
 */
export async function startAuthProxy(target: string, key: string): Promise<AuthProxy> {
  const upstream = new URL(target);
  const forward = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const toServe = request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${key}` },
        agent: false,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
        // An SSE stream may stay quiet for a while: its client must see the headers now.
        outgoing.flushHeaders();
        answer.pipe(outgoing);
        answer.on('error', () => outgoing.destroy());
      },
    );
    toServe.on('error', () => {
      if (outgoing.headersSent) outgoing.destroy();
      else outgoing.writeHead(502).end();
    });
    // The client went away (e.g. it cancelled an SSE stream): so does the request to serve.
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) toServe.destroy();
    });
    incoming.pipe(toServe);
  };
  const server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Waits until every process of group `pgid` has exited (a child may outlive its parent by a moment,
 * e.g. the stdio server the Inspector started); kills what is left after `graceMs`.
 */
async function groupGone(pgid: number, graceMs = 5_000): Promise<void> {
  const alive = () => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + graceMs;
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (alive()) process.kill(-pgid, 'SIGKILL');
}

/**
 * Runs a command to its end (it and its children are killed after `timeoutMs`), with the parent's env
 * minus SOCIAL_PUBLISHER_* plus `env`.
 */
export function run(
  command: string,
  args: string[],
  options: { timeoutMs: number; env?: Record<string, string>; cwd?: string },
): Promise<Run> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: childEnv(options.env ?? {}),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a timeout ends what it started too (npx starts the Inspector, which
    // starts our server).
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      reject(new Error(`${command} ${args.join(' ')} took over ${options.timeoutMs} ms; stderr: ${stderr}`));
    }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      void groupGone(child.pid!).then(() => resolve({ code, stdout, stderr }));
    });
  });
}

/** The 2026-07-28 protocol version: no handshake, each request says its version in `_meta`. */
export const STATELESS_VERSION = '2026-07-28';

export interface JsonRpcAnswer {
  status: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * One request of the 2026-07-28 wire to `url` (serve's /mcp), as a conformant client sends it: the
 * per-request `_meta` (protocol version, client info and capabilities) and the standard headers
 * (MCP-Protocol-Version, Mcp-Method, Mcp-Name). Reads a JSON body or the last message of an SSE stream.
 * The request's `params` may carry `inputResponses` and `requestState` (an answer to input_required).
 */
export async function statelessRequest(
  url: string,
  key: string,
  method: string,
  params: Record<string, unknown>,
  clientCapabilities: Record<string, unknown> = {},
): Promise<JsonRpcAnswer> {
  const name = params.name ?? params.uri ?? (params.ref as { name?: string } | undefined)?.name;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': STATELESS_VERSION,
      'mcp-method': method,
      ...(typeof name === 'string' && method !== 'completion/complete' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': STATELESS_VERSION,
          'io.modelcontextprotocol/clientInfo': { name: 'conformance-test', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
        },
      },
    }),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('text/event-stream')
    ? [...text.matchAll(/^data: (.*)$/gm)].map((match) => match[1]!).at(-1)
    : text;
  return { status: response.status, ...JSON.parse(json ?? '{}') };
}
