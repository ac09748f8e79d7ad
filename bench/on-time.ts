/**
 * On time: N brands × 11 channels, one post per brand scheduled for the same second (a 9:00 burst),
 * published by the built `serve` through the webhook to a loopback receiver that answers each request
 * after 400 ms, as real platform APIs do. Measured at the receiver: from the due second to each
 * acknowledgement (the answer sent), p50, p99 and the last, beside the floor (the receiver's latency).
 * Checked: every delivery arrives, none twice (counted by idempotency key at the receiver).
 * Bar (product.md): p99 ≤ latency + 1 s at 100 brands, on SQLite and on PostgreSQL.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHANNEL_TYPES } from '../src/domain/schemas.js';
import { formatLocalTime } from '../src/domain/time.js';
import { openLocalRuntime } from '../src/local-runtime.js';
import type { Workspace } from '../src/publish/connectors/schemas.js';
import { authenticate } from '../src/service/acting-user.js';
import { LocalPublishingService } from '../src/service/local-service.js';
import { importWorkspace } from '../src/service/workspace.js';
import { tempDir } from './lib/proc.js';
import type { Figure } from './lib/report.js';
import { startServe } from './lib/serve.js';
import { percentile } from './lib/stats.js';

const API_KEY = 'bench-on-time-key-0123456789';
const TIMEZONE = 'Europe/Berlin';
const CHANNELS_PER_BRAND = 11;
const SECRET = 'bench-on-time-webhook-secret';

export interface OnTimeOptions {
  brands?: number;
  latencyMs?: number;
  /** `postgres://…` of an empty database; SQLite in a fresh data directory when absent. */
  databaseUrl?: string;
  /** Extra environment for `serve` (a setting under test). */
  env?: Record<string, string>;
}

/** A loopback platform: answers every POST after `latencyMs`, recording when and what it acknowledged. */
async function startReceiver(latencyMs: number) {
  const acks: Array<{ key: string; atMs: number; arrivedMs: number }> = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const arrivedMs = Date.now();
    request.resume();
    request.on('end', () => {
      setTimeout(() => {
        const key = String(request.headers['idempotency-key'] ?? '');
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ id: key }));
        acks.push({ key, atMs: Date.now(), arrivedMs });
      }, latencyMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  // A platform's API takes a burst of connections: with Node's default accept backlog (511) the
  // connections past it would wait for the client's SYN retry (1 s), a limit of this stand-in alone.
  server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 });
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/deliveries`,
    acks,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function workspace(brands: number): Workspace {
  const types = CHANNEL_TYPES.slice(0, CHANNELS_PER_BRAND);
  const titles = Array.from({ length: brands }, (_, i) => `On Time ${i + 1}`);
  return {
    brands: titles.map((title) => ({
      title,
      timezone: TIMEZONE,
      channels: types.map((type) => ({ name: `${title} on ${type}`, type, status: 'ACTIVE' as const })),
      collections: [{ title: 'All', channels: types.map((type) => `${title} on ${type}`) }],
    })),
    users: [{ name: 'Bench', timezone: TIMEZONE, apiKey: API_KEY, brands: titles }],
  };
}

export async function onTime(options: OnTimeOptions = {}): Promise<Figure[]> {
  const brands = options.brands ?? 100;
  const latencyMs = options.latencyMs ?? 400;
  const dataDir = tempDir('spm-on-time-');
  const database = options.databaseUrl ? { url: options.databaseUrl, poolSize: 10 } : undefined;
  const runtime = await openLocalRuntime({ dataDir, demo: false, ...(database ? { database } : {}) });
  let dueAtMs: number;
  try {
    const ids = await importWorkspace(runtime.store, runtime.clock, workspace(brands));
    const service = new LocalPublishingService(runtime, await authenticate(runtime.store, API_KEY));
    // A whole second far enough ahead for the posts to be planned and the server to start.
    dueAtMs = Math.ceil((Date.now() + 4_000 + brands * 15) / 1000) * 1000;
    for (const brand of ids.brands) {
      await service.createPost({
        brandId: brand.id,
        collectionId: brand.collections[0]!.id,
        publishMode: 'SCHEDULE',
        scheduledAt: formatLocalTime(dueAtMs, TIMEZONE),
        caption: `The 9:00 burst, ${brand.id}`,
      });
    }
  } finally {
    await runtime.close();
  }
  const receiver = await startReceiver(latencyMs);
  const serve = await startServe(dataDir, {
    SOCIAL_PUBLISHER_WEBHOOK_URL: receiver.url,
    SOCIAL_PUBLISHER_WEBHOOK_SECRET: SECRET,
    ...(options.databaseUrl ? { SOCIAL_PUBLISHER_DATABASE_URL: options.databaseUrl } : {}),
    ...options.env,
  });
  const expected = brands * CHANNELS_PER_BRAND;
  try {
    if (Date.now() > dueAtMs) throw new Error('the server started after the due second: raise the lead');
    const deadline = dueAtMs + 180_000;
    while (receiver.acks.length < expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Anything sent twice comes now, if at all.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  } finally {
    await serve.stop();
    await receiver.close();
  }
  const keys = new Set(receiver.acks.map((ack) => ack.key));
  const late = receiver.acks.map((ack) => ack.atMs - dueAtMs).sort((a, b) => a - b);
  // When the requests arrived, from the due second: what the server took before the platform's latency.
  const arrived = receiver.acks.map((ack) => ack.arrivedMs - dueAtMs).sort((a, b) => a - b);
  const p99 = percentile(late, 99);
  const store = options.databaseUrl ? 'PostgreSQL' : 'SQLite';
  const barMs = latencyMs + 1_000;
  return [
    {
      name: `on time: ${brands} brands × ${CHANNELS_PER_BRAND} channels due at one second, ${store}: p99 due → acknowledged`,
      value: p99,
      unit: 'ms',
      bar: `p99 ≤ latency + 1 s (${barMs} ms) at 100 brands; none twice`,
      ratio: p99 / barMs,
      pass: brands === 100 ? p99 <= barMs && keys.size === expected && late.length === expected : undefined,
      details: {
        floorMs: latencyMs,
        p50Ms: percentile(late, 50),
        p99Ms: p99,
        lastMs: late.at(-1),
        firstArrivalMs: arrived[0],
        p50ArrivalMs: percentile(arrived, 50),
        p99ArrivalMs: percentile(arrived, 99),
        acknowledged: late.length,
        distinct: keys.size,
        expected,
      },
    },
  ];
}
