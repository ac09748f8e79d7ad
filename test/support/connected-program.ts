/**
 * The built program (dist/main.js) with connected channels, as a user runs it: `connect` and
 * `disconnect` on the command line, `serve` with its REST API and MCP over Streamable HTTP, and the
 * SQLite file read as it is on disk. Processes and temp dirs go through test/mcp/cli-harness.ts, so its
 * `cleanup()` (in afterEach) ends them.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { DATABASE_FILE } from '../../src/store/open-store.js';
import { openDatabase, type SqlDatabase, type SqlValue } from '../../src/store/sqlite/driver.js';
import { CHILD_TIMEOUT_MS, childEnv, type RunResult, runMain, spawnMain } from '../mcp/cli-harness.js';
import type { MastodonServer } from './mastodon-server.js';

/** The variable `--token-env` names in these tests. */
export const TOKEN_VAR = 'SPM_TEST_MASTODON_TOKEN';
export const DEMO_BRAND = 'Northwind Coffee';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The program's environment: nothing of the parent's SOCIAL_PUBLISHER_* settings, the data dir, `extra`. */
export function programEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir, ...extra });
}

/** `connect mastodon` against the stand-in, the token in TOKEN_VAR (or `options.token`). */
export function connectMastodon(
  env: Record<string, string>,
  mastodon: Pick<MastodonServer, 'url' | 'token'>,
  options: { brand?: string; collections?: string[]; name?: string; token?: string } = {},
): Promise<RunResult> {
  const args = [
    'connect',
    'mastodon',
    '--brand',
    options.brand ?? DEMO_BRAND,
    '--instance',
    mastodon.url,
    '--token-env',
    TOKEN_VAR,
  ];
  for (const collection of options.collections ?? []) args.push('--collection', collection);
  if (options.name !== undefined) args.push('--name', options.name);
  return runMain(args, { ...env, [TOKEN_VAR]: options.token ?? mastodon.token });
}

/** The channel as `connect` and `disconnect` print it (src/domain/channel-detail.ts). */
export interface ChannelDetailJson {
  id: number;
  name: string;
  type: string;
  status: 'ACTIVE' | 'INACTIVE';
  statusReason: string | null;
  connection: {
    connector: string;
    account: string | null;
    accountId: string | null;
    instance: string | null;
    profileUrl: string | null;
    connectedAt: string | null;
    credentials: 'stored' | 'environment' | 'erased' | 'none';
    lastError: string | null;
    lastErrorAt: string | null;
    lastPublishedAt: string | null;
    limits: Record<string, unknown>;
  };
}

export interface DeliveryJson {
  id: number;
  channelId: number;
  channelName: string;
  channelType: string;
  status: 'pending' | 'sending' | 'sent' | 'failed' | 'skipped';
  reason: string | null;
  externalId: string | null;
  url: string | null;
  attempts: number;
  retryAt: string | null;
  sentAt: string | null;
  comment: { status: string; dueAt: string | null; sentAt: string | null; reason: string | null };
}

export interface PostJson {
  id: number;
  status: string;
  deliveries: DeliveryJson[];
}

/** A running `serve`: its URL, the demo user's API key, everything it wrote to stderr. */
/** Uploads a file to brand 1 through serve's REST API (`POST /v1/brands/1/media`); its media id. */
export async function uploadThroughServe(
  serve: Serve,
  bytes: Buffer,
  type: string,
  name: string,
): Promise<string> {
  const answer = await uploadMedia(serve, bytes, type, name);
  if (answer.status !== 201) throw new Error(`upload answered ${answer.status}: ${await answer.text()}`);
  return ((await answer.json()) as { data: { id: string } }).data.id;
}

export interface Serve {
  child: ChildProcess;
  url: string;
  key: string;
  stderr(): string;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL (a crash), and wait for the exit. */
  kill(): Promise<void>;
}

/**
 * Starts `serve --port 0` with this environment. The demo user's key is printed on the first start of a
 * data directory only: give it (`key`) when starting again.
 */
export async function startServe(env: Record<string, string>, key?: string, port = 0): Promise<Serve> {
  const child = spawnMain(['serve', '--port', String(port)], env);
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<{ url: string; key: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), CHILD_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before it listened: ${stderr}`));
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const url = /listening on (http:\/\/\S+):/.exec(stderr)?.[1];
      const found = key ?? /(spk_[\w-]+)/.exec(stderr)?.[1];
      if (url && found) {
        clearTimeout(timer);
        resolve({ url, key: found });
      }
    });
  });
  const started = await ready;
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    child,
    ...started,
    stderr: () => stderr,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
  };
}

/** A REST client of a running `serve`; every response body is kept in `bodies`. */
export function restClient(serve: { url: string; key: string }, bodies: string[] = []) {
  const call = async <T = unknown>(method: string, path: string, body?: unknown) => {
    const response = await fetch(`${serve.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${serve.key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    bodies.push(text);
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return (JSON.parse(text) as { data: T }).data;
  };
  return {
    bodies,
    get: <T = unknown>(path: string) => call<T>('GET', path),
    post: <T = unknown>(path: string, body?: unknown) => call<T>('POST', path, body),
    /** GET of a path answered without the envelope (openapi.json). */
    raw: async (path: string) => {
      const response = await fetch(`${serve.url}${path}`, {
        headers: { authorization: `Bearer ${serve.key}` },
      });
      const text = await response.text();
      bodies.push(text);
      return text;
    },
  };
}
export type RestClient = ReturnType<typeof restClient>;

/** POSTs one file to brand 1's media, as a multipart upload; the answer as it came (uploadThroughServe checks it). */
export function uploadMedia(
  serve: { url: string; key: string },
  bytes: Uint8Array,
  type: string,
  name: string,
): Promise<Response> {
  const form = new FormData();
  form.append('media', new Blob([new Uint8Array(bytes)], { type }), name);
  return fetch(`${serve.url}/v1/brands/1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${serve.key}` },
    body: form,
  });
}

/** Creates a post in a collection of brand 1 (REST), returns its id. */
export async function createPost(
  rest: RestClient,
  collectionId: number,
  body: Record<string, unknown>,
): Promise<number> {
  const created = await rest.post<{ id: number }>(`/v1/brands/1/collections/${collectionId}/posts`, body);
  return created.id;
}

const OPEN_POST = new Set(['publishing', 'queued', 'scheduled', 'draft']);

/** Polls the post every 100 ms until `done` says so (default: settled, no comment left to post). */
export async function waitForPost(
  rest: RestClient,
  postId: number,
  done: (post: PostJson) => boolean = (post) =>
    !OPEN_POST.has(post.status) &&
    post.deliveries.every((d) => d.comment.status !== 'pending' && d.comment.status !== 'sending'),
  timeoutMs = 15_000,
): Promise<PostJson> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const post = await rest.get<PostJson>(`/v1/brands/1/posts/${postId}`);
    if (done(post)) return post;
    if (Date.now() > deadline) {
      throw new Error(`post ${postId} did not get there in ${timeoutMs} ms: ${JSON.stringify(post)}`);
    }
    await sleep(100);
  }
}

/** An MCP client of a running `serve`, over Streamable HTTP with the SDK's own transport. */
export async function mcpClient(
  serve: { url: string; key: string },
  /** When given: the session asks for every log message (debug and up) and keeps them here, as JSON. */
  logs?: string[],
): Promise<{
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}> {
  const client = new Client({ name: 'connected-channels-test', version: '1.0.0' });
  if (logs) {
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(JSON.stringify(notification.params));
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${serve.key}` } },
  });
  await client.connect(transport, { timeout: CHILD_TIMEOUT_MS });
  if (logs) await client.setLoggingLevel('debug');
  return {
    client,
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args }, undefined, {
        timeout: CHILD_TIMEOUT_MS,
      })) as CallToolResult,
    close: () => client.close(),
  };
}

/** The store's SQLite file as the tests read it: rows with blobs as Buffers. */
export interface DatabaseReader {
  prepare(sql: string): { get(...params: SqlValue[]): unknown; all(...params: SqlValue[]): unknown[] };
}

/** node:sqlite's API returns blobs as Uint8Arrays; the tests compare them as Buffers. */
function withBuffers(row: unknown): unknown {
  if (row === undefined) return row;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row as Record<string, unknown>)) {
    copy[key] = value instanceof Uint8Array ? Buffer.from(value) : value;
  }
  return copy;
}

/** Runs `read` on the data directory's SQLite file opened read-only, then closes it. */
export function readDatabase<T>(dataDir: string, read: (db: DatabaseReader) => T): T {
  const db: SqlDatabase = openDatabase(join(dataDir, DATABASE_FILE), { readOnly: true });
  try {
    return read({
      prepare: (sql) => {
        const statement = db.prepare(sql);
        return {
          get: (...params) => withBuffers(statement.get(...params)),
          all: (...params) => statement.all(...params).map(withBuffers),
        };
      },
    });
  } finally {
    db.close();
  }
}

/** The Conversation collection of the demo brand, by title. */
export async function collectionId(rest: RestClient, title: string): Promise<number> {
  const collections = await rest.get<Array<{ id: number; title: string }>>('/v1/brands/1/collections');
  const found = collections.find((collection) => collection.title === title);
  if (!found) throw new Error(`no collection "${title}"`);
  return found.id;
}

/** Reads the child's stderr until `pattern` matches; resolves with the match. */
export function waitForStderr(
  child: ChildProcess,
  pattern: RegExp,
  seen: { text: string },
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} on stderr: ${seen.text}`)),
      CHILD_TIMEOUT_MS,
    );
    const check = () => {
      const match = pattern.exec(seen.text);
      if (match) {
        clearTimeout(timer);
        child.stderr!.off('data', check);
        resolve(match);
      }
    };
    child.stderr!.on('data', check);
    check();
  });
}

export function collect(child: ChildProcess): {
  stdout: { text: string };
  stderr: { text: string };
  exit: Promise<number | null>;
} {
  const stdout = { text: '' };
  const stderr = { text: '' };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout.text += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr.text += chunk;
  });
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { stdout, stderr, exit };
}

/** A loopback port nobody listens on now (a redirect URI registered with an app, a public URL). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
