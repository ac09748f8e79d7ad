/** MCP clients of servers under test, over stdio, and a fixed-duration call-rate runner. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { cpuMs } from './proc.js';

export interface StdioServer {
  client: Client;
  pid: number;
  close(): Promise<void>;
}

/** Spawns `node <args>` and completes the MCP handshake with it. */
export async function connectStdio(args: string[], env?: Record<string, string>): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    ...(env ? { env } : {}),
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '0.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the server process has no pid');
  return { client, pid, close: () => client.close() };
}

/**
 * Calls a tool. Through `client.request` rather than `callTool`: the client never listed tools, so
 * neither path validates output schemas, and this one says so. A tool error is a failed call.
 */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<void> {
  const result = await client.request(
    { method: 'tools/call', params: { name, arguments: args } },
    CallToolResultSchema,
  );
  if (result.isError) {
    const text = result.content.map((part) => (part.type === 'text' ? part.text : part.type)).join(' ');
    throw new Error(`${name} failed: ${text}`);
  }
}

export interface RateResult {
  callsPerSecond: number;
  calls: number;
  seconds: number;
  concurrency: number;
  /** CPU time per call of the server process and of this (client) process, µs. */
  serverCpuUsPerCall: number;
  clientCpuUsPerCall: number;
}

export interface RateTarget {
  name: string;
  /** The i-th call of this target (i counts on across warm-up and rounds). */
  call: (i: number) => Promise<void>;
  /** The server process, whose CPU time is read. */
  pid: number;
}

/**
 * Calls each target with `concurrency` calls in flight for `seconds` in all, after `warmupSeconds` of the
 * same: in `rounds` slices that take the targets in turn, so that a noisy machine's slow moments fall
 * on every target alike. Counts the calls that completed within each slice.
 */
export async function measureRates(
  targets: readonly RateTarget[],
  options: { seconds: number; warmupSeconds: number; concurrency: number; rounds?: number },
): Promise<Record<string, RateResult>> {
  const rounds = options.rounds ?? 6;
  const next = new Map(targets.map((t) => [t.name, 0]));
  const slice = async (target: RateTarget, ms: number) => {
    const cpu = { server: cpuMs(target.pid), client: cpuMs('self') };
    const started = performance.now();
    const until = started + ms;
    let calls = 0;
    const worker = async () => {
      while (performance.now() < until) {
        const i = next.get(target.name)!;
        next.set(target.name, i + 1);
        await target.call(i);
        calls++;
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    return {
      calls,
      ms: performance.now() - started,
      serverCpuMs: cpuMs(target.pid) - cpu.server,
      clientCpuMs: cpuMs('self') - cpu.client,
    };
  };
  for (const target of targets) await slice(target, options.warmupSeconds * 1000);
  const totals = new Map(targets.map((t) => [t.name, { calls: 0, ms: 0, serverCpuMs: 0, clientCpuMs: 0 }]));
  for (let round = 0; round < rounds; round++) {
    // Rotate the order too: no target always runs right after the same one.
    for (let k = 0; k < targets.length; k++) {
      const target = targets[(round + k) % targets.length]!;
      const done = await slice(target, (options.seconds * 1000) / rounds);
      const total = totals.get(target.name)!;
      total.calls += done.calls;
      total.ms += done.ms;
      total.serverCpuMs += done.serverCpuMs;
      total.clientCpuMs += done.clientCpuMs;
    }
  }
  return Object.fromEntries(
    [...totals].map(([name, total]) => [
      name,
      {
        callsPerSecond: total.calls / (total.ms / 1000),
        calls: total.calls,
        seconds: total.ms / 1000,
        concurrency: options.concurrency,
        serverCpuUsPerCall: (total.serverCpuMs * 1000) / total.calls,
        clientCpuUsPerCall: (total.clientCpuMs * 1000) / total.calls,
      },
    ]),
  );
}
