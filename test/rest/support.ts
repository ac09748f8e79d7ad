/**
 * The REST API on a real runtime (SQLite, demo workspace, fake clock): user A with both demo brands,
 * user B with a brand of their own. Requests go through `app.request` (no port) or a real loopback
 * listener; every request carries a loopback Host header, as a real client would.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { AuthThrottleOptions } from '../../src/http/auth-throttle.js';
import { createHttpApp, type HttpApp, listen, type RunningServer } from '../../src/http/serve.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

export const KEY_A = 'rest-user-a-key-0000000001';
export const KEY_B = 'rest-user-b-key-0000000002';
export const B_BRAND_TITLE = "B's Brand";

/** `<YYYY-MM-DD>T<HH:MM:SS>.<microseconds>Z` */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export interface RestWorld {
  rt: TestRuntime;
  http: HttpApp;
  /** B's brand and its one channel and collection. */
  b: { brandId: number; channelId: number; collectionId: number };
  /** What the app logged (unexpected failures, 500s). */
  logged: Array<{ message: string; error: unknown }>;
  /**
   * A request through `app.request`. `key` defaults to A's key; null sends no Authorization header.
   * `json` is sent as a JSON body.
   */
  request(
    method: string,
    path: string,
    options?: {
      key?: string | null;
      json?: unknown;
      body?: RequestInit['body'];
      headers?: Record<string, string>;
    },
  ): Promise<Response>;
  stagingEntries(): string[];
  close(): Promise<void>;
}

/**
 * Requests through `app.request` have no socket: they all count as one client address ('unknown'). The
 * suites that send wrong keys by the hundred (auth, fuzz) would trip the failed-key throttle, so the
 * world raises its limit unless told otherwise; auth-throttle.test.ts tests the real limits.
 */
const UNTHROTTLED: AuthThrottleOptions = { maxFailures: 1_000_000 };

export async function openRestWorld(
  options: { authThrottle?: AuthThrottleOptions } = {},
): Promise<RestWorld> {
  const rt = await openTestRuntime();
  const ids = await rt.importWorkspace({
    brands: [
      {
        title: B_BRAND_TITLE,
        timezone: 'Europe/Paris',
        channels: [{ name: 'B on Bluesky', type: 'Bluesky', status: 'ACTIVE' }],
        collections: [{ title: 'B Everything', channels: ['B on Bluesky'] }],
      },
    ],
    users: [
      // A's own timezone differs from both brands': scheduled times must not be read in it.
      {
        name: 'User A',
        timezone: 'Pacific/Auckland',
        apiKey: KEY_A,
        brands: ['Northwind Coffee', 'Kite & Key Studio'],
      },
      { name: 'User B', timezone: 'Europe/Paris', apiKey: KEY_B, brands: [B_BRAND_TITLE] },
    ],
  });
  const brand = ids.brands[0]!;
  const logged: RestWorld['logged'] = [];
  const http = createHttpApp({
    runtime: rt.runtime,
    version: 'test',
    loopbackOnly: true,
    log: (message, error) => logged.push({ message, error }),
    authThrottle: options.authThrottle ?? UNTHROTTLED,
  });
  return {
    rt,
    http,
    b: { brandId: brand.id, channelId: brand.channels[0]!.id, collectionId: brand.collections[0]!.id },
    logged,
    request(method, path, options = {}) {
      const headers: Record<string, string> = { host: 'localhost' };
      const key = options.key === undefined ? KEY_A : options.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      let body = options.body;
      if (options.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(options.json);
      }
      return Promise.resolve(
        http.app.request(`http://localhost${path}`, {
          method,
          headers: { ...headers, ...options.headers },
          ...(body === undefined ? {} : { body }),
        }),
      );
    },
    stagingEntries: () => readdirSync(join(rt.dataDir, 'media', 'staging')),
    async close() {
      await http.sessions.closeAll();
      await rt.close();
    },
  };
}

/** Starts a real loopback listener for the world's app. */
export function listenOnLoopback(world: RestWorld): Promise<RunningServer> {
  return listen(world.http, { host: '127.0.0.1', port: 0 });
}

// ------------------------------------------------------------------------------------- bodies

export const UNAUTHENTICATED = JSON.stringify({
  status: 'error',
  message: 'Unauthenticated.',
  errors: { authorization: 'A valid API key is required.' },
});

export function notFoundBody(key: string, message: string): string {
  return JSON.stringify({ status: 'error', message, errors: { [key]: message } });
}

export const BRAND_NOT_FOUND = notFoundBody('brand', 'Brand not found.');
export const COLLECTION_NOT_FOUND = notFoundBody('collection', 'Collection not found.');
export const POST_NOT_FOUND = notFoundBody('post', 'Post not found.');

export function invalidBody(errors: Record<string, readonly string[]>): string {
  return JSON.stringify({ status: 'error', message: 'The given data was invalid.', errors });
}

/** Status and exact body bytes, compared together so that a failure shows both. */
export async function expectExact(response: Response, status: number, body: string): Promise<void> {
  const text = await response.text();
  expect({ status: response.status, body: text }).toEqual({ status, body });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
}

/** A parsed JSON body, walked by key in assertions (the assertions are the type check). */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Json = any;

/** Status and the parsed JSON body. */
export async function readJson(response: Response): Promise<{ status: number; body: Json }> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body };
}

/** Every `...At` timestamp field of a resource (not the local `scheduledAt`) has the interface's form. */
export function expectTimestamps(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) expectTimestamps(item);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, item] of Object.entries(value)) {
    if (/(At|^now)$/.test(key) && key !== 'scheduledAt' && item !== null && typeof item !== 'object') {
      expect(item, key).toMatch(TIMESTAMP);
    } else {
      expectTimestamps(item);
    }
  }
}

// ------------------------------------------------------------------------------------- multipart

/** A multipart/form-data body with one file part. */
export function multipart(
  parts: Array<{ field: string; filename?: string; type?: string; bytes: Uint8Array | string }>,
): { body: Buffer; contentType: string } {
  const boundary = `----rest-test-${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition =
      part.filename === undefined
        ? `form-data; name="${part.field}"`
        : `form-data; name="${part.field}"; filename="${part.filename}"`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n` +
          (part.filename === undefined
            ? ''
            : `Content-Type: ${part.type ?? 'application/octet-stream'}\r\n`) +
          '\r\n',
      ),
      Buffer.from(part.bytes),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Uploads one file as the field `media` (or `field`) through `app.request`. */
export function upload(
  world: RestWorld,
  brandId: number | string,
  file: { name: string; bytes: Uint8Array; field?: string },
  key: string | null = KEY_A,
): Promise<Response> {
  const { body, contentType } = multipart([
    { field: file.field ?? 'media', filename: file.name, bytes: file.bytes },
  ]);
  return world.request('POST', `/v1/brands/${brandId}/media`, {
    key,
    body: new Uint8Array(body),
    headers: { 'content-type': contentType },
  });
}
