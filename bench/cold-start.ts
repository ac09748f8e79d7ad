/**
 * Cold start: spawn → the `initialize` result, for the built server (on an existing store, and on a
 * fresh data directory, where it also creates the schema and the demo workspace), against a bare Node
 * JSON-RPC responder spawned the same way, alternately, in the same run. Medians of many starts.
 * Also, as a diagnostic: spawn → the `tools/list` result sent right after `initialize` (the server
 * answers `initialize` before it has loaded; `tools/list` waits for the load).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { EVERYTHING, MAIN, serverEnv, tempDir } from './lib/proc.js';
import type { Figure } from './lib/report.js';
import { rounded, summary } from './lib/stats.js';

const BARE = join(import.meta.dirname, 'fixtures', 'bare-responder.mjs');

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench', version: '0.0.0' },
  },
})}\n`;

const TOOLS_LIST = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })}\n`;

/** Milliseconds from spawn() to the first complete line on stdout that answers request 0. */
export function timeToInitialize(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    let elapsed: number | undefined;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (elapsed !== undefined || !out.includes('\n')) return;
      elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      if (!out.includes('"id":0')) reject(new Error(`unexpected first answer: ${out.slice(0, 200)}`));
      child.kill('SIGKILL');
    });
    child.once('error', reject);
    child.once('exit', () => {
      if (elapsed === undefined) reject(new Error(`exited before answering: ${out.slice(0, 200)}`));
      else resolve(elapsed);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.write(INITIALIZE);
  });
}

/** Milliseconds from spawn() to the answer to `tools/list`, sent as soon as `initialize` is answered. */
export function timeToToolsList(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    let elapsed: number | undefined;
    let initialized = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      const lines = out.split('\n').slice(0, -1);
      if (!initialized && lines.length > 0) {
        initialized = true;
        child.stdin.write(TOOLS_LIST);
      }
      if (
        elapsed === undefined &&
        lines.some((line) => line.includes('"id":1') && line.includes('"tools"'))
      ) {
        elapsed = Number(process.hrtime.bigint() - started) / 1e6;
        child.kill('SIGKILL');
      }
    });
    child.once('error', reject);
    child.once('exit', () => {
      if (elapsed === undefined) reject(new Error(`exited before listing tools: ${out.slice(0, 200)}`));
      else resolve(elapsed);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.write(INITIALIZE);
  });
}

interface Candidate {
  name: string;
  start: () => Promise<number>;
  samples: number[];
}

export async function coldStart(options: { runs?: number } = {}): Promise<Figure[]> {
  const runs = options.runs ?? 15;
  const existing = tempDir();
  // Create the store once: later starts open it as a returning user's server would.
  await timeToInitialize([MAIN], serverEnv(existing));
  const candidates: Candidate[] = [
    { name: 'bare responder', start: () => timeToInitialize([BARE]), samples: [] },
    {
      name: 'server, existing store',
      start: () => timeToInitialize([MAIN], serverEnv(existing)),
      samples: [],
    },
    {
      name: 'server, fresh data dir',
      start: () => timeToInitialize([MAIN], serverEnv(tempDir())),
      samples: [],
    },
    { name: 'server-everything', start: () => timeToInitialize([EVERYTHING, 'stdio']), samples: [] },
    { name: 'server, tools/list', start: () => timeToToolsList([MAIN], serverEnv(existing)), samples: [] },
    {
      name: 'server-everything, tools/list',
      start: () => timeToToolsList([EVERYTHING, 'stdio']),
      samples: [],
    },
  ];
  // Warm the file cache, then alternate so that noise falls on every candidate alike.
  for (const candidate of candidates) await candidate.start();
  for (let run = 0; run < runs; run++) {
    for (const candidate of candidates) candidate.samples.push(await candidate.start());
  }
  type Stats = { name: string; stats: ReturnType<typeof summary> };
  const [bare, existingStore, fresh, everything, toolsList, everythingToolsList] = candidates.map((c) => ({
    name: c.name,
    stats: rounded(summary(c.samples), 1),
  })) as [Stats, Stats, Stats, Stats, Stats, Stats];
  const reference = { name: 'bare responder', value: bare.stats.p50 };
  const figure = (name: string, stats: ReturnType<typeof summary>): Figure => ({
    name,
    value: stats.p50,
    unit: 'ms',
    reference,
    bar: '≤ 1.5× bare responder',
    ratio: stats.p50 / bare.stats.p50,
    pass: stats.p50 <= 1.5 * bare.stats.p50,
    details: { median: stats.p50, runs, samples: stats, bare: bare.stats },
  });
  return [
    figure('cold start, existing store (median)', existingStore.stats),
    figure('cold start, fresh data dir (median)', fresh.stats),
    {
      name: 'cold start, server-everything (median)',
      value: everything.stats.p50,
      unit: 'ms',
      reference,
      bar: '(reference, no bar)',
      ratio: everything.stats.p50 / bare.stats.p50,
      details: { samples: everything.stats },
    },
    {
      name: 'ready: spawn → tools/list result, existing store (median)',
      value: toolsList.stats.p50,
      unit: 'ms',
      reference: { name: 'server-everything', value: everythingToolsList.stats.p50 },
      bar: '(diagnostic: the load after the handshake)',
      ratio: toolsList.stats.p50 / everythingToolsList.stats.p50,
      details: { samples: toolsList.stats, everything: everythingToolsList.stats },
    },
  ];
}
