/**
 * Tool calls per second over stdio with the SDK client: list_brands and create_post on the built
 * server (each on its own fresh data directory, demo workspace), against server-everything's `echo`,
 * one call at a time and 16 in flight: all three servers up at once, each warmed up, then measured in
 * alternating slices for a fixed total duration each.
 */
import { formatLocalTime } from '../src/domain/time.js';
import { callTool, connectStdio, measureRates, type RateResult, type StdioServer } from './lib/mcp.js';
import { EVERYTHING, MAIN, serverEnv, tempDir } from './lib/proc.js';
import type { Figure } from './lib/report.js';

const NEW_YORK = 'America/New_York'; // the demo brand 1, Northwind Coffee
const MODES = ['QUEUE', 'SCHEDULE', 'DRAFT'] as const;

/** The i-th create_post of a run: QUEUE, SCHEDULE, DRAFT in turn, each caption unique (no duplicates). */
export function createPostArgs(i: number, run: string, nowMs: number): Record<string, unknown> {
  const publishMode = MODES[i % MODES.length]!;
  const args: Record<string, unknown> = {
    brandId: 1,
    collectionId: 1,
    publishMode,
    caption: `Bench ${run} post ${i}: fresh roast notes, brew ratios and the week's single origin.`,
  };
  if (publishMode === 'SCHEDULE') {
    // A whole minute between 1 and 365 days ahead, spread by i.
    const minutes = 24 * 60 + ((i * 7919) % (364 * 24 * 60));
    args.scheduledAt = formatLocalTime(nowMs + minutes * 60_000, NEW_YORK)
      .slice(0, 17)
      .concat('00');
  }
  return args;
}

export async function stdioThroughput(
  options: { seconds?: number; warmupSeconds?: number } = {},
): Promise<Figure[]> {
  const timing = { seconds: options.seconds ?? 3, warmupSeconds: options.warmupSeconds ?? 0.5 };
  const results: Record<string, RateResult> = {};
  for (const concurrency of [1, 16]) {
    // Fresh servers for each level: create_post's queue starts empty every time.
    const servers: StdioServer[] = [];
    try {
      const echo = await connectStdio([EVERYTHING, 'stdio']);
      servers.push(echo);
      const brands = await connectStdio([MAIN], serverEnv(tempDir()));
      servers.push(brands);
      const posts = await connectStdio([MAIN], serverEnv(tempDir()));
      servers.push(posts);
      const run = `c${concurrency}-${Date.now()}`;
      const nowMs = Date.now();
      const measured = await measureRates(
        [
          {
            name: 'echo',
            pid: echo.pid,
            call: (i) => callTool(echo.client, 'echo', { message: `hello ${i}` }),
          },
          { name: 'list_brands', pid: brands.pid, call: () => callTool(brands.client, 'list_brands', {}) },
          {
            name: 'create_post',
            pid: posts.pid,
            call: (i) => callTool(posts.client, 'create_post', createPostArgs(i, run, nowMs)),
          },
        ],
        { ...timing, concurrency },
      );
      for (const [name, result] of Object.entries(measured)) results[`${name} ×${concurrency}`] = result;
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  }
  const figures: Figure[] = [];
  for (const concurrency of [1, 16]) {
    const echo = results[`echo ×${concurrency}`]!;
    const reference = { name: 'echo', value: echo.callsPerSecond };
    const inFlight = concurrency === 1 ? 'one at a time' : `${concurrency} in flight`;
    for (const tool of ['list_brands', 'create_post'] as const) {
      const measured = results[`${tool} ×${concurrency}`]!;
      // product.md: measured beside echo, before and after each change to the MCP layer; no bar.
      figures.push({
        name: `${tool} over stdio, ${inFlight}`,
        value: measured.callsPerSecond,
        unit: 'calls/s',
        reference,
        bar: '(no bar: measured beside echo)',
        ratio: measured.callsPerSecond / echo.callsPerSecond,
        details: { measured, echo },
      });
    }
  }
  // Where the time goes: CPU per call of each server process (the bar's ratio is bound by it).
  const cpu = (name: string) => results[`${name} ×1`]!.serverCpuUsPerCall;
  for (const tool of ['list_brands', 'create_post']) {
    figures.push({
      name: `${tool}: server CPU per call, one at a time`,
      value: cpu(tool),
      unit: 'µs',
      reference: { name: 'echo', value: cpu('echo') },
      bar: '(diagnostic, no bar)',
      ratio: cpu(tool) / cpu('echo'),
    });
  }
  return figures;
}
